/**
 * A get serves the stored text with its resourceVersion spliced in (served-json.ts): never stale
 * after a write, never JSON text for another version or media type, and the body still there for
 * whoever reads it (the audit, a Table).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type request from 'supertest';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { AuditPolicy, Auditor, MemoryAuditBackend } from '../audit/index.js';
import { MEDIA_PROTOBUF, ProtobufCodecs } from '../codec/index.js';
import { EncryptionAtRest } from '../encryption/index.js';
import { JsonTextReply } from './served-json.js';
import { type Harness, type HarnessOptions, type Json, startServer } from './server.testing.js';

const codecs = new ProtobufCodecs(allProtobufPackages);
const dir = mkdtempSync(join(tmpdir(), 'svckit-served-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function serve(options: HarnessOptions = {}): Promise<Harness> {
  h = await startServer(options);
  return h;
}

const configMaps = (s: Harness) => `/api/v1/namespaces/${s.ns}/configmaps`;
const configMap = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/** Collects a binary response body (supertest's parser signature). */
function binary(res: request.Response, done: (err: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

describe('a get of a stored object', () => {
  it('returns the new object after an update, a patch, a delete and a recreate', async () => {
    const s = await serve();
    const path = `${configMaps(s)}/a`;
    const created = await s.create(configMaps(s), configMap('a', { v: '1' }));
    // Twice: the second is answered from the JSON the first made.
    expect(await s.read(path)).toEqual(created);
    expect(await s.read(path)).toEqual(created);

    const updated = (await s.put(path, { ...created, data: { v: '2' } }).expect(200)).body as Json;
    expect(updated.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    expect(await s.read(path)).toEqual(updated);

    const patched = (await s.patch(path, { data: { v: '3' } }).expect(200)).body as Json;
    expect(await s.read(path)).toEqual(patched);
    expect((await s.read(path)).data).toEqual({ v: '3' });

    await s.delete(path).expect(200);
    await s.get(path).expect(404);
    const again = await s.create(configMaps(s), configMap('a', { v: '4' }));
    expect(again.metadata.uid).not.toBe(created.metadata.uid);
    expect(await s.read(path)).toEqual(again);
  });

  it('is the same JSON text, resourceVersion included, as the object decoded and written again', async () => {
    const s = await serve();
    const created = await s.create(configMaps(s), configMap('a', { v: '1' }));
    for (let i = 0; i < 2; i++) {
      const res = await s.get(`${configMaps(s)}/a`).expect(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe(`${JSON.stringify(created)}\n`);
    }
  });

  it('answers each media type, pretty printing and version from the object, never with JSON made for another', async () => {
    const s = await serve({ server: { protobufPackages: allProtobufPackages } });
    const path = `${configMaps(s)}/a`;
    const created = await s.create(configMaps(s), configMap('a', { v: '1' }));
    await s.get(path).expect(200);
    await s.get(path).expect(200);

    const proto = await s.get(path).set('accept', MEDIA_PROTOBUF).buffer(true).parse(binary).expect(200);
    expect(proto.headers['content-type']).toBe(MEDIA_PROTOBUF);
    expect(codecs.decode(proto.body as Buffer)).toMatchObject({ kind: 'ConfigMap', data: { v: '1' } });

    const yaml = await s.get(path).set('accept', 'application/yaml').expect(200);
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(parseYaml(yaml.text)).toEqual(created);

    const table = await s.get(path).set('accept', 'application/json;as=Table;g=meta.svc.io;v=v1').expect(200);
    expect(JSON.parse(table.text)).toMatchObject({ kind: 'Table', rows: [{ cells: ['a', 1, expect.any(String)] }] });

    const pretty = await s.get(`${path}?pretty=true`).expect(200);
    expect(pretty.text).toBe(`${JSON.stringify(created, null, 2)}\n`);

    // And plain JSON again, after the others.
    expect((await s.get(path).expect(200)).text).toBe(`${JSON.stringify(created)}\n`);
  });

  it('through another version is converted, and each version answers in its own', async () => {
    const s = await serve({ createNamespace: false });
    const FC = '/apis/flowcontrol.apiserver.svc.io';
    const PRESERVE_ZERO = 'flowcontrol.svc.io/v1beta3-preserve-zero-concurrency-shares';
    await s.create(`${FC}/v1/prioritylevelconfigurations`, {
      apiVersion: 'flowcontrol.apiserver.svc.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'zero' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } },
    });
    for (let i = 0; i < 2; i++) {
      const v1 = await s.read(`${FC}/v1/prioritylevelconfigurations/zero`);
      expect(v1.apiVersion).toBe('flowcontrol.apiserver.svc.io/v1');
      expect(Object.keys(v1.metadata.annotations ?? {})).not.toContain(PRESERVE_ZERO);
      const beta = await s.read(`${FC}/v1beta3/prioritylevelconfigurations/zero`);
      expect(beta.apiVersion).toBe('flowcontrol.apiserver.svc.io/v1beta3');
      expect(Object.keys(beta.metadata.annotations ?? {})).toContain(PRESERVE_ZERO);
    }
  });

  it('with encryption at rest, serves the object as decrypted and follows its updates', async () => {
    const config = join(dir, 'encryption.yaml');
    writeFileSync(
      config,
      `apiVersion: apiserver.config.svc.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["secrets"]
    providers:
      - aesgcm: {keys: [{name: k1, secret: "${randomBytes(32).toString('base64')}"}]}
`,
    );
    const s = await serve({ server: { encryption: await EncryptionAtRest.load(config, allKinds) } });
    const secrets = `/api/v1/namespaces/${s.ns}/secrets`;
    const created = await s.create(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { p: 'one' } });
    expect((await s.store.get(`/registry/secrets/${s.ns}/s`))?.value).toMatch(/^k8s:enc:aesgcm:v1:k1:/);
    expect(await s.read(`${secrets}/s`)).toEqual(created);
    expect(await s.read(`${secrets}/s`)).toEqual(created);
    await s.patch(`${secrets}/s`, { data: { p: Buffer.from('two').toString('base64') } }).expect(200);
    expect(Buffer.from((await s.read(`${secrets}/s`)).data.p, 'base64').toString()).toBe('two');
  });

  it('of a stored value that is no JSON answers 500 without echoing the value', async () => {
    const s = await serve();
    await s.store.create(`/registry/configmaps/${s.ns}/broken`, 'password=hunter2');
    const res = await s.get(`${configMaps(s)}/broken`).expect(500);
    expect(res.body).toMatchObject({ kind: 'Status', code: 500, reason: 'InternalError' });
    expect(res.text).toContain('the stored value is not JSON');
    expect(res.text).not.toContain('hunter2');
    const list = await s.get(configMaps(s)).expect(500);
    expect(list.text).not.toContain('hunter2');
  });

  it('is recorded in full by an audit at RequestResponse, every time', async () => {
    const backend = new MemoryAuditBackend();
    const s = await serve({ server: { chain: { audit: new Auditor(AuditPolicy.everything('RequestResponse'), backend) } } });
    const created = await s.create(configMaps(s), configMap('a', { v: '1' }));
    await s.read(`${configMaps(s)}/a`);
    await s.read(`${configMaps(s)}/a`);
    const gets = backend.events().filter((e) => e.verb === 'get' && e.stage === 'ResponseComplete');
    expect(gets.map((e) => e.responseObject)).toEqual([created, created]);
  });
});

describe('JsonTextReply', () => {
  it('parses its body only when read, and a body set in its place drops the text', () => {
    const reply = new JsonTextReply(200, '{"kind":"ConfigMap","data":{"v":"1"}}\n');
    expect(reply.jsonLine).toBe('{"kind":"ConfigMap","data":{"v":"1"}}\n');
    expect(reply.body).toEqual({ kind: 'ConfigMap', data: { v: '1' } });
    expect(reply.body).toBe(reply.body);
    expect(reply.jsonLine).toBeDefined();
    reply.body = { kind: 'ConfigMap', data: { v: '2' } };
    expect(reply.jsonLine).toBeUndefined();
    expect(reply.body).toEqual({ kind: 'ConfigMap', data: { v: '2' } });
  });
});

describe('a list served from the stored texts (stored-text.ts)', () => {
  it('answers each item as its get does, in JSON, YAML and Protobuf, before and after an update', async () => {
    const s = await serve({ server: { protobufPackages: allProtobufPackages } });
    for (const name of ['a', 'b', 'c']) await s.create(configMaps(s), configMap(name, { key: `${name}"}\\` }));
    await s.patch(`${configMaps(s)}/b`, { metadata: { labels: { changed: 'yes' } } });
    const list = await s.get(configMaps(s));
    expect(list.status).toBe(200);
    const items = list.body.items as Json[];
    expect(items.map((i) => i.metadata.name)).toEqual(['a', 'b', 'c']);
    for (const item of items) expect(item).toEqual((await s.get(`${configMaps(s)}/${item.metadata.name}`)).body);
    expect(items[1].metadata.labels).toEqual({ changed: 'yes' });
    // The text served is the list's own JSON, kind and metadata included.
    expect(list.body).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: expect.any(String) } });
    const yaml = await s.get(configMaps(s)).set('accept', 'application/yaml');
    expect(parseYaml(yaml.text)).toEqual(list.body);
    const proto = await s.get(configMaps(s)).set('accept', MEDIA_PROTOBUF).buffer(true).parse(binary).expect(200);
    expect(codecs.decode(proto.body as Buffer)).toMatchObject({ items: items.map((i) => ({ metadata: { name: i.metadata.name } })) });
  });

  it('pages carry their continue token and count as before', async () => {
    const s = await serve();
    for (const name of ['a', 'b', 'c']) await s.create(configMaps(s), configMap(name, { key: 'v' }));
    const first = (await s.get(`${configMaps(s)}?limit=2`)).body;
    expect(first.items.map((i: Json) => i.metadata.name)).toEqual(['a', 'b']);
    expect(first.metadata.remainingItemCount).toBe(1);
    const second = (await s.get(`${configMaps(s)}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`)).body;
    expect(second.items.map((i: Json) => i.metadata.name)).toEqual(['c']);
    expect(second.metadata.continue).toBe('');
  });
});
