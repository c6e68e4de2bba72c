import { readdirSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { type Harness, startServer } from './server.testing.js';

// The server's Protobuf output read by a plain protobufjs reflection decoder built from the
// emitted .proto files: independent of the runtime's codec that wrote it.
const GENERATED = new URL('../../generated/', import.meta.url).pathname;
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => join(GENERATED, target);
root.loadSync(
  (readdirSync(GENERATED, { recursive: true }) as string[]).filter((f) => f.endsWith('.proto')),
  { keepCase: true },
);
root.resolveAll();
const Unknown = root.lookupType('svc.io.api.meta.v1.Unknown');

function fetchBytes(url: string, accept: string): Promise<{ type: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ type: res.headers['content-type'], body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

/** The envelope, then the object in `raw`, decoded with the message type the envelope names. */
function decode(bytes: Buffer, message: string): { typeMeta: unknown; object: Record<string, unknown> } {
  expect([...bytes.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
  const envelope = Unknown.toObject(Unknown.decode(bytes.subarray(4)), { bytes: Buffer }) as {
    typeMeta: { apiVersion: string; kind: string };
    raw: Buffer;
  };
  const type = root.lookupType(message);
  return { typeMeta: envelope.typeMeta, object: type.toObject(type.decode(envelope.raw), { longs: Number, bytes: String }) };
}

describe("the server's Protobuf output, read with protobufjs reflection", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startServer({ server: { protobufPackages: allProtobufPackages } });
    await h.create(`/api/v1/namespaces/${h.ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] },
    });
  });
  afterAll(() => h.close());

  it('decodes a Pod from get', async () => {
    const res = await fetchBytes(`${h.url}/api/v1/namespaces/${h.ns}/pods/web`, 'application/vnd.svc.protobuf');
    expect(res.type).toBe('application/vnd.svc.protobuf');
    const { typeMeta, object } = decode(res.body, 'svc.io.api.core.v1.Pod');
    expect(typeMeta).toEqual({ apiVersion: 'v1', kind: 'Pod' });
    expect(object).toMatchObject({
      metadata: { name: 'web', namespace: h.ns, labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }] },
    });
  });

  it('decodes a PodList from list', async () => {
    const res = await fetchBytes(`${h.url}/api/v1/namespaces/${h.ns}/pods`, 'application/vnd.svc.protobuf');
    const { typeMeta, object } = decode(res.body, 'svc.io.api.core.v1.PodList');
    expect(typeMeta).toEqual({ apiVersion: 'v1', kind: 'PodList' });
    expect((object.items as { metadata: { name: string } }[]).map((p) => p.metadata.name)).toEqual(['web']);
  });

  it('decodes a Status error in the negotiated type', async () => {
    const res = await fetchBytes(`${h.url}/api/v1/namespaces/${h.ns}/pods/missing`, 'application/vnd.svc.protobuf');
    const { typeMeta, object } = decode(res.body, 'svc.io.api.meta.v1.Status');
    expect(typeMeta).toEqual({ apiVersion: 'v1', kind: 'Status' });
    expect(object).toMatchObject({ code: 404, reason: 'NotFound' });
  });
});

describe('the scale subresource over Protobuf (autoscaling/v1 Scale)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startServer({ server: { protobufPackages: allProtobufPackages } });
    await h.create(`/apis/apps/v1/namespaces/${h.ns}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
  });
  afterAll(() => h.close());

  it('reads a Scale as Protobuf and writes one sent as Protobuf, as Go clients with Protobuf do', async () => {
    const path = `${h.url}/apis/apps/v1/namespaces/${h.ns}/deployments/web/scale`;
    const got = await fetchBytes(path, 'application/vnd.svc.protobuf');
    expect(got.type).toBe('application/vnd.svc.protobuf');
    const { typeMeta, object } = decode(got.body, 'svc.io.api.autoscaling.v1.Scale');
    expect(typeMeta).toEqual({ apiVersion: 'autoscaling/v1', kind: 'Scale' });
    expect(object).toMatchObject({ metadata: { name: 'web' }, spec: { replicas: 2 }, status: { selector: 'app=web' } });

    const Scale = root.lookupType('svc.io.api.autoscaling.v1.Scale');
    const raw = Scale.encode(Scale.fromObject({ metadata: { name: 'web', namespace: h.ns }, spec: { replicas: 5 } })).finish();
    const envelope = Unknown.encode(
      Unknown.fromObject({ typeMeta: { apiVersion: 'autoscaling/v1', kind: 'Scale' }, raw, contentType: '', contentEncoding: '' }),
    ).finish();
    const res = await fetch(path, {
      method: 'PUT',
      headers: { 'content-type': 'application/vnd.svc.protobuf', accept: 'application/json' },
      body: Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from(envelope)]),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 5 } });
    expect((await h.get(`/apis/apps/v1/namespaces/${h.ns}/deployments/web`)).body.spec.replicas).toBe(5);
  });
});
