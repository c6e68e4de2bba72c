/**
 * Objects written through one version and read or written back through another keep every field
 * (the spec's deprecation rule 2), and an object is read from the version recorded with it,
 * whichever versions the server serves now (rule 4b).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { ProtobufCodecs } from '../codec/index.js';
import { createStore } from '../store/index.js';
import { type Harness, type Json, startServer } from './server.testing.js';

const codecs = new ProtobufCodecs(allProtobufPackages);

/** Collects a binary response body (supertest's parser signature). */
function binary(res: request.Response, done: (err: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

const running: Harness[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of running.splice(0)) await h.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(runtimeConfig = '', file?: string, createNamespace = true, protobuf = false): Promise<Harness> {
  const store = file ? await createStore(`sqlite:${file}`, { compactionIntervalMs: 0 }) : undefined;
  const server = { runtimeConfig, ...(protobuf ? { protobufPackages: allProtobufPackages } : {}) };
  const h = await startServer({ server, createNamespace, ...(store ? { store } : {}) });
  running.push(h);
  return h;
}

const FC = '/apis/flowcontrol.apiserver.svc.io';
const PRESERVE_ZERO = 'flowcontrol.svc.io/v1beta3-preserve-zero-concurrency-shares';

function priorityLevel(version: string, name: string, shares: number | undefined): Json {
  return {
    apiVersion: `flowcontrol.apiserver.svc.io/${version}`,
    kind: 'PriorityLevelConfiguration',
    metadata: { name },
    spec: {
      type: 'Limited',
      limited: { ...(shares === undefined ? {} : { nominalConcurrencyShares: shares }), limitResponse: { type: 'Reject' } },
    },
  };
}

describe('PriorityLevelConfiguration nominalConcurrencyShares 0 through v1beta3', () => {
  it('reads a v1 zero through v1beta3 with the round-trip annotation and keeps it when written back', async () => {
    const h = await start();
    const created = await h.create(`${FC}/v1/prioritylevelconfigurations`, priorityLevel('v1', 'zero', 0));
    expect(created.spec.limited.nominalConcurrencyShares).toBe(0);

    const old = await h.read(`${FC}/v1beta3/prioritylevelconfigurations/zero`);
    expect(old.spec.limited.nominalConcurrencyShares).toBe(0);
    expect(old.metadata.annotations).toEqual({ [PRESERVE_ZERO]: '' });

    old.metadata.labels = { touched: 'yes' };
    const put = await h.put(`${FC}/v1beta3/prioritylevelconfigurations/zero`, old);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.spec.limited.nominalConcurrencyShares).toBe(0);

    const merged = await h.patch(`${FC}/v1beta3/prioritylevelconfigurations/zero`, { metadata: { labels: { again: 'yes' } } });
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(merged.body.spec.limited.nominalConcurrencyShares).toBe(0);

    const v1 = await h.read(`${FC}/v1/prioritylevelconfigurations/zero`);
    expect(v1.spec.limited.nominalConcurrencyShares).toBe(0);
    // The annotation exists only in v1beta3: it is dropped on the way to storage.
    expect(v1.metadata.annotations ?? {}).toEqual({});
    expect(v1.metadata.labels).toEqual({ touched: 'yes', again: 'yes' });
  });

  it('keeps the zero through every write verb and body format of v1beta3: JSON patch, strategic merge, apply, YAML', async () => {
    const h = await start();
    await h.create(`${FC}/v1/prioritylevelconfigurations`, priorityLevel('v1', 'zero', 0));
    const path = `${FC}/v1beta3/prioritylevelconfigurations/zero`;
    const shares = async () => (await h.read(`${FC}/v1/prioritylevelconfigurations/zero`)).spec.limited.nominalConcurrencyShares;

    const json = await h.patch(path, [{ op: 'add', path: '/metadata/labels', value: { a: '1' } }], 'json');
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    expect(await shares()).toBe(0);
    const strategic = await h.patch(path, { spec: { limited: { lendablePercent: 10 } } }, 'strategic');
    expect(strategic.status, JSON.stringify(strategic.body)).toBe(200);
    expect(await shares()).toBe(0);
    const applied = await h.http
      .patch(`${path}?fieldManager=tool`)
      .set('content-type', 'application/apply-patch+yaml')
      .send(JSON.stringify({ ...priorityLevel('v1beta3', 'zero', undefined), metadata: { name: 'zero', labels: { applied: 'yes' } } }));
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.spec.limited.nominalConcurrencyShares).toBe(0);
    expect(await shares()).toBe(0);
    const asRead = await h.read(path);
    const yaml = Object.entries(asRead.metadata.annotations as Record<string, string>)
      .map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`)
      .join('\n');
    const put = await h.http
      .put(path)
      .set('content-type', 'application/yaml')
      .send(
        `apiVersion: flowcontrol.apiserver.svc.io/v1beta3\nkind: PriorityLevelConfiguration\nmetadata:\n  name: zero\n  resourceVersion: "${asRead.metadata.resourceVersion}"\n  annotations:\n${yaml}\nspec:\n  type: Limited\n  limited:\n    nominalConcurrencyShares: 0\n    limitResponse: {type: Reject}\n`,
      );
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(await shares()).toBe(0);
  });

  it('keeps the zero when the object read as Protobuf through v1beta3 is PUT back as Protobuf', async () => {
    const h = await start('', undefined, true, true);
    await h.create(`${FC}/v1/prioritylevelconfigurations`, priorityLevel('v1', 'zero', 0));
    const path = `${FC}/v1beta3/prioritylevelconfigurations/zero`;
    const read = await h.http.get(path).set('accept', 'application/vnd.svc.protobuf').buffer(true).parse(binary);
    expect(read.status).toBe(200);
    const labelled = codecs.decode(read.body as Buffer);
    (labelled.metadata as Json).labels = { via: 'protobuf' };
    const put = await h.http
      .put(path)
      .set('content-type', 'application/vnd.svc.protobuf')
      .send(Buffer.from(codecs.encode(labelled)));
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const v1 = await h.read(`${FC}/v1/prioritylevelconfigurations/zero`);
    expect(v1.metadata.labels).toEqual({ via: 'protobuf' });
    expect(v1.spec.limited.nominalConcurrencyShares).toBe(0);
  });

  it('still defaults a v1beta3 zero without the annotation to 30, and a v1 absent value to 30', async () => {
    const h = await start();
    expect(
      (await h.create(`${FC}/v1beta3/prioritylevelconfigurations`, priorityLevel('v1beta3', 'b3', 0))).spec.limited
        .nominalConcurrencyShares,
    ).toBe(30);
    expect((await h.read(`${FC}/v1/prioritylevelconfigurations/b3`)).spec.limited.nominalConcurrencyShares).toBe(30);
    expect(
      (await h.create(`${FC}/v1/prioritylevelconfigurations`, priorityLevel('v1', 'v1', undefined))).spec.limited.nominalConcurrencyShares,
    ).toBe(30);
    const annotated = priorityLevel('v1beta3', 'b3z', 0);
    annotated.metadata.annotations = { [PRESERVE_ZERO]: '' };
    expect((await h.create(`${FC}/v1beta3/prioritylevelconfigurations`, annotated)).spec.limited.nominalConcurrencyShares).toBe(0);
    expect((await h.read(`${FC}/v1/prioritylevelconfigurations/b3z`)).spec.limited.nominalConcurrencyShares).toBe(0);
    // v1beta3's field is a plain integer: absent is zero, and the annotation keeps that zero too.
    const absent = priorityLevel('v1beta3', 'b3a', undefined);
    absent.metadata.annotations = { [PRESERVE_ZERO]: '' };
    expect((await h.create(`${FC}/v1beta3/prioritylevelconfigurations`, absent)).spec.limited.nominalConcurrencyShares).toBe(0);
  });
});

describe('the v1beta3 round-trip annotation elsewhere', () => {
  it('is forbidden on a write through v1, as upstream validates the converted object', async () => {
    const h = await start();
    const body = priorityLevel('v1', 'marked', 0);
    body.metadata.annotations = { [PRESERVE_ZERO]: '' };
    const res = await h.post(`${FC}/v1/prioritylevelconfigurations`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.details.causes).toEqual([
      { reason: 'FieldValueForbidden', field: 'metadata.annotations', message: `Forbidden: annotation '${PRESERVE_ZERO}' is forbidden` },
    ]);
  });
});

const DISCOVERY = '/apis/discovery.svc.io';
const ZONE_KEY = 'topology.svc.io/zone';

function slice(version: 'v1' | 'v1beta1', name: string, endpoint: Json): Json {
  return {
    apiVersion: `discovery.svc.io/${version}`,
    kind: 'EndpointSlice',
    metadata: { name },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'], ...endpoint }],
  };
}

describe('EndpointSlice topology between v1beta1 and v1', () => {
  it('keeps zone through v1beta1 and back (v1 -> v1beta1 -> v1)', async () => {
    const h = await start('discovery.svc.io/v1beta1=true');
    await h.create(`${DISCOVERY}/v1/namespaces/test/endpointslices`, slice('v1', 's', { zone: 'z1', nodeName: 'n1' }));
    const beta = await h.read(`${DISCOVERY}/v1beta1/namespaces/test/endpointslices/s`);
    expect(beta.endpoints[0].topology).toEqual({ [ZONE_KEY]: 'z1', 'svc.io/hostname': 'n1' });
    expect(beta.endpoints[0].zone).toBeUndefined();
    const put = await h.put(`${DISCOVERY}/v1beta1/namespaces/test/endpointslices/s`, beta);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const v1 = await h.read(`${DISCOVERY}/v1/namespaces/test/endpointslices/s`);
    expect(v1.endpoints[0]).toMatchObject({ zone: 'z1', nodeName: 'n1' });
    expect(v1.endpoints[0].deprecatedTopology).toBeUndefined();
  });

  it('maps the v1beta1 zone key, svc.io or the original name, to zone and keeps the other keys', async () => {
    const h = await start('discovery.svc.io/v1beta1=true');
    const topology = { 'topology.kubernetes.io/zone': 'z2', rack: 'r7' };
    await h.create(`${DISCOVERY}/v1beta1/namespaces/test/endpointslices`, slice('v1beta1', 'k', { topology }));
    const v1 = await h.read(`${DISCOVERY}/v1/namespaces/test/endpointslices/k`);
    expect(v1.endpoints[0].zone).toBe('z2');
    expect(v1.endpoints[0].deprecatedTopology).toEqual({ rack: 'r7' });
    await h.create(`${DISCOVERY}/v1beta1/namespaces/test/endpointslices`, slice('v1beta1', 's', { topology: { [ZONE_KEY]: 'z3' } }));
    expect((await h.read(`${DISCOVERY}/v1/namespaces/test/endpointslices/s`)).endpoints[0]).toMatchObject({ zone: 'z3' });
    expect((await h.read(`${DISCOVERY}/v1beta1/namespaces/test/endpointslices/s`)).endpoints[0].topology).toEqual({ [ZONE_KEY]: 'z3' });
  });

  it('does not let v1 write deprecatedTopology: dropped on create, the old value kept on update', async () => {
    const h = await start('discovery.svc.io/v1beta1=true');
    const created = await h.create(
      `${DISCOVERY}/v1/namespaces/test/endpointslices`,
      slice('v1', 'd', { deprecatedTopology: { rack: 'r1' } }),
    );
    expect(created.endpoints[0].deprecatedTopology).toBeUndefined();

    await h.create(`${DISCOVERY}/v1beta1/namespaces/test/endpointslices`, slice('v1beta1', 'b', { topology: { rack: 'r2' } }));
    const v1 = await h.read(`${DISCOVERY}/v1/namespaces/test/endpointslices/b`);
    expect(v1.endpoints[0].deprecatedTopology).toEqual({ rack: 'r2' });
    v1.endpoints[0].deprecatedTopology = { rack: 'forged' };
    v1.metadata.labels = { l: '1' };
    const put = await h.put(`${DISCOVERY}/v1/namespaces/test/endpointslices/b`, v1);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.endpoints[0].deprecatedTopology).toEqual({ rack: 'r2' });
  });
});

const CRONJOB_V1BETA1 = {
  apiVersion: 'batch/v1beta1',
  kind: 'CronJob',
  metadata: { name: 'nightly' },
  spec: {
    schedule: '0 3 * * *',
    jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'example/job:1' }] } } } },
  },
};

describe('stored versions', () => {
  it('reads a CronJob stored as batch/v1beta1 through batch/v1 after a restart that serves only v1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-versions-'));
    dirs.push(dir);
    const file = join(dir, 'data.db');
    // Only v1beta1 served: it is the storage version.
    const before = await start('batch/v1beta1=true,batch/v1=false', file);
    await before.create('/apis/batch/v1beta1/namespaces/test/cronjobs', CRONJOB_V1BETA1);
    running.splice(running.indexOf(before), 1);
    await before.close();

    const after = await start('', file, false);
    const got = await after.read('/apis/batch/v1/namespaces/test/cronjobs/nightly');
    expect(got.apiVersion).toBe('batch/v1');
    expect(got.spec.schedule).toBe('0 3 * * *');
    const list = await after.read('/apis/batch/v1/namespaces/test/cronjobs');
    expect(list.items.map((i: Json) => i.apiVersion)).toEqual(['batch/v1']);

    got.metadata.labels = { put: 'yes' };
    const put = await after.put('/apis/batch/v1/namespaces/test/cronjobs/nightly', got);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.apiVersion).toBe('batch/v1');
    const patched = await after.patch('/apis/batch/v1/namespaces/test/cronjobs/nightly', { spec: { suspend: true } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ apiVersion: 'batch/v1', metadata: { labels: { put: 'yes' } }, spec: { suspend: true } });
  });
});
