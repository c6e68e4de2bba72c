import { type IncomingHttpHeaders, get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { MEDIA_PROTOBUF, ProtobufCodecs, WatchFrameReader, decodeEnvelope } from '../codec/index.js';
import { type Harness, type Json, crontab, crontabs, expectStatus, startServer } from './server.testing.js';

const TABLE = 'application/json;as=Table;g=meta.svc.io;v=v1';
const codecs = new ProtobufCodecs(allProtobufPackages);

/** Content negotiation (spec: Headers and media types, Table representation, Protobuf envelope). */
describe('media types', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startServer({ server: { protobufPackages: allProtobufPackages } });
  });
  afterEach(() => h.close());

  const configMaps = () => `/api/v1/namespaces/${h.ns}/configmaps`;
  const createConfigMap = (name: string, data: Record<string, string> = { a: '1' }) =>
    h.create(configMaps(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

  it('answers a Table with the printer columns of a kind that has them, Table first then JSON', async () => {
    await h.createCronTab('a');
    const res = await h.get(crontabs(h.ns)).set('accept', `${TABLE}, application/json`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(TABLE);
    const table = JSON.parse(res.text) as Json;
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.svc.io/v1' });
    expect(table.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Spec', 'Replicas', 'Age']);
    expect(table.rows[0].cells.slice(0, 3)).toEqual(['a', '*/5 * * * *', 1]);
    expect(table.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'a' } });
  });

  it("answers kubectl's Table request (g=meta.k8s.io) with the same Table under that name, on lists, gets and watches", async () => {
    await h.createCronTab('a');
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const list = await h.get(crontabs(h.ns)).set('accept', accept);
    expect(list.headers['content-type']).toBe('application/json;as=Table;g=meta.k8s.io;v=v1');
    const table = JSON.parse(list.text) as Json;
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(table.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Spec', 'Replicas', 'Age']);
    const one = JSON.parse((await h.get(crontab(h.ns, 'a')).set('accept', accept)).text) as Json;
    expect(one).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      rows: [{ cells: ['a', '*/5 * * * *', 1, expect.any(String)] }],
    });
    const watch = await rawGet(`${h.url}${crontabs(h.ns)}?watch=true&timeoutSeconds=1`, { accept });
    const event = JSON.parse(watch.body.toString('utf8').split('\n')[0]!) as Json;
    expect(event).toMatchObject({ type: 'ADDED', object: { kind: 'Table', apiVersion: 'meta.k8s.io/v1' } });
    // Not a name of anything else: a 406 still lists the server's own types.
    const res = await h.get(crontabs(h.ns)).set('accept', 'application/x-none');
    expect(res.status).toBe(406);
    expect(res.text).not.toContain('k8s.io');
  });

  it('answers the default Name and Created At columns for a kind without printer columns, and includeObject=Object', async () => {
    const bindings = '/apis/admissionregistration.svc.io/v1/validatingadmissionpolicybindings';
    const binding = { metadata: { name: 'media-c' }, spec: { policyName: 'p', validationActions: ['Deny'] } };
    const made = await h.post(bindings, binding);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const res = await h.get(`${bindings}/media-c?includeObject=Object`).set('accept', TABLE);
    const table = JSON.parse(res.text) as Json;
    expect(table.columnDefinitions.map((c: Json) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect(table.rows[0].object).toMatchObject({ kind: 'ValidatingAdmissionPolicyBinding', spec: { policyName: 'p' } });
  });

  it('answers Protobuf with the envelope for built-in kinds', async () => {
    await createConfigMap('c');
    const res = await rawGet(`${h.url}${configMaps()}/c`, { accept: `${MEDIA_PROTOBUF}, application/json` });
    expect(res.headers['content-type']).toBe(MEDIA_PROTOBUF);
    const bytes = res.body;
    expect([...bytes.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect(decodeEnvelope(bytes)).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(codecs.decode(bytes)).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } });
  });

  it('never answers Protobuf for a custom resource: 406 when it is the only type accepted', async () => {
    await h.createCronTab('a');
    expectStatus(await h.get(crontab(h.ns, 'a')).set('accept', MEDIA_PROTOBUF), 406, 'NotAcceptable');
    const fallback = await h.get(crontab(h.ns, 'a')).set('accept', `${MEDIA_PROTOBUF}, application/json`);
    expect(fallback.headers['content-type']).toBe('application/json');
  });

  it('accepts a Protobuf body with its Content-Type', async () => {
    const body = codecs.encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' }, data: { k: 'v' } });
    const res = await h.http.post(configMaps()).set('content-type', MEDIA_PROTOBUF).send(Buffer.from(body));
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ k: 'v' });
    const missingPrefix = await h.http
      .post(configMaps())
      .set('content-type', MEDIA_PROTOBUF)
      .send(Buffer.from(body.subarray(4)));
    expectStatus(missingPrefix, 400, 'BadRequest');
  });

  it('answers YAML when asked', async () => {
    await createConfigMap('c');
    const res = await h.get(`${configMaps()}/c`).set('accept', 'application/yaml');
    expect(res.headers['content-type']).toBe('application/yaml');
    expect(res.text).toContain('kind: ConfigMap');
  });

  it('sends a body whole with its Content-Length, and headers byte for byte (an echoed Audit-ID above ASCII)', async () => {
    await createConfigMap('c');
    const plain = await rawGet(`${h.url}${configMaps()}/c`, {});
    expect(plain.headers['transfer-encoding']).toBeUndefined();
    expect(Number(plain.headers['content-length'])).toBe(plain.body.length);
    const echoed = await rawGet(`${h.url}${configMaps()}/c`, { 'audit-id': 'caf\u00e9-1' });
    expect(echoed.headers['audit-id']).toBe('caf\u00e9-1');
    expect(Number(echoed.headers['content-length'])).toBe(echoed.body.length);
    expect(JSON.parse(echoed.body.toString()).metadata.name).toBe('c');
  });

  it('compresses get and list responses above the threshold with Accept-Encoding: gzip', async () => {
    await createConfigMap('big', { blob: 'x'.repeat(200 * 1024) });
    // fetch leaves the body compressed only when asked not to decode; read the raw bytes with node:http.
    const raw = await rawGet(`${h.url}${configMaps()}/big`, { 'accept-encoding': 'gzip' });
    expect(raw.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(raw.body).toString()).data.blob).toHaveLength(200 * 1024);
    const list = await rawGet(`${h.url}${configMaps()}`, { 'accept-encoding': 'gzip' });
    expect(list.headers['content-encoding']).toBe('gzip');
    const small = await rawGet(`${h.url}${crontabs(h.ns)}`, { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('does not compress when the server turns compression off (APIResponseCompression=false)', async () => {
    const off = await startServer({ server: { compression: false } });
    try {
      await off.create(`/api/v1/namespaces/${off.ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'big' },
        data: { blob: 'x'.repeat(200 * 1024) },
      });
      const res = await off.get(`/api/v1/namespaces/${off.ns}/configmaps/big`).set('accept-encoding', 'gzip');
      expect(res.headers['content-encoding']).toBeUndefined();
    } finally {
      await off.close();
    }
  });

  it('streams a watch as length-delimited Protobuf frames', async () => {
    await createConfigMap('w');
    const res = await fetch(`${h.url}${configMaps()}?watch=1&timeoutSeconds=1`, { headers: { accept: `${MEDIA_PROTOBUF};stream=watch` } });
    expect(res.headers.get('content-type')).toBe(`${MEDIA_PROTOBUF};stream=watch`);
    const reader = new WatchFrameReader();
    const frames = reader.push(new Uint8Array(await res.arrayBuffer()));
    const events = frames.map((f) => codecs.decodeWatchEvent(f));
    expect(events.map((e) => [e.type, (e.object as Json).metadata.name])).toEqual([['ADDED', 'w']]);
  });

  it('streams a watch of Tables: column definitions in the first event only', async () => {
    await h.createCronTab('a');
    await h.createCronTab('b');
    const res = await fetch(`${h.url}${crontabs(h.ns)}?watch=1&timeoutSeconds=1`, { headers: { accept: TABLE } });
    const events = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    expect(events.map((e) => [e.type, e.object.kind, e.object.columnDefinitions?.length ?? 0])).toEqual([
      ['ADDED', 'Table', 4],
      ['ADDED', 'Table', 0],
    ]);
  });
});

function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}
