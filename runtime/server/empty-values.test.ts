/**
 * Empty maps and lists of built-in kinds: Go's `omitempty` drops them and Protobuf cannot tell them
 * from absent, so the real system stores and answers neither. Both encodings of one object give
 * the same stored object and the same managedFields.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { ProtobufCodecs } from '../codec/index.js';
import { type Harness, type Json, crontabs, cronTabBody, startServer } from './server.testing.js';

const codecs = new ProtobufCodecs(allProtobufPackages);
let h: Harness;
beforeEach(async () => {
  h = await startServer({ server: { protobufPackages: allProtobufPackages } });
});
afterEach(() => h.close());

const pods = () => `/api/v1/namespaces/${h.ns}/pods`;

function pod(name: string): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: {}, annotations: {}, finalizers: [] },
    spec: {
      containers: [{ name: 'c', image: 'nginx', env: [], ports: [], resources: { limits: {} } }],
      nodeSelector: {},
      volumes: [],
      tolerations: [],
    },
  };
}

/** The parts of a stored object that do not depend on its name, uid or time (nor its token volume's random name). */
function comparable(o: Json): Json {
  const { name: _n, uid: _u, creationTimestamp: _c, resourceVersion: _r, managedFields, ...meta } = o.metadata;
  const text = JSON.stringify({ meta, spec: o.spec, owned: managedFields.map((m: Json) => m.fieldsV1) });
  return JSON.parse(text.replace(/kube-api-access-[a-z0-9]{5}/g, 'kube-api-access-xxxxx'));
}

describe('empty maps and lists of built-in kinds', () => {
  it('are dropped alike from a JSON and a Protobuf create, in the object and in managedFields', async () => {
    const json = await h.post(pods(), pod('j'));
    expect(json.status, JSON.stringify(json.body)).toBe(201);
    const proto = await h.http
      .post(pods())
      .set('content-type', 'application/vnd.svc.protobuf')
      .send(Buffer.from(codecs.encode(pod('p'))));
    expect(proto.status, JSON.stringify(proto.body)).toBe(201);
    const [j, p] = [await h.read(`${pods()}/j`), await h.read(`${pods()}/p`)];
    expect(comparable(j)).toEqual(comparable(p));
    expect(j.metadata.labels).toBeUndefined();
    expect(j.metadata.annotations).toBeUndefined();
    expect(j.spec.nodeSelector).toBeUndefined();
    // Only the service-account token volume the admission plugin adds.
    expect(j.spec.volumes.map((v: Json) => v.name)).toEqual([expect.stringMatching(/^kube-api-access-/)]);
    // A struct is not a map: an emptied resources stays, as Go's encoder writes it.
    expect(j.spec.containers[0]).toMatchObject({ name: 'c', image: 'nginx', resources: {} });
    expect(Object.keys(j.spec.containers[0])).not.toContain('env');
    expect(JSON.stringify(j.metadata.managedFields)).not.toMatch(/f:labels|f:nodeSelector|f:env|f:limits/);
  });

  it('change nothing when a PUT or a merge patch only adds empties (no new resourceVersion)', async () => {
    const created = await h.create(pods(), {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'x' },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    const put = await h.put(`${pods()}/x`, {
      ...created,
      metadata: { ...created.metadata, labels: {} },
      spec: { ...created.spec, imagePullSecrets: [] },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    const patched = await h.patch(`${pods()}/x`, { metadata: { annotations: {} }, spec: { nodeSelector: {} } });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(patched.body.spec.nodeSelector).toBeUndefined();
  });

  it('are kept in custom resources, which the real system stores as JSON', async () => {
    const created = await h.create(crontabs(h.ns), cronTabBody('c', { metadata: { labels: {} } }));
    expect(created.metadata.labels).toEqual({});
  });
});
