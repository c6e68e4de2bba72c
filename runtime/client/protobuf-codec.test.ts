import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client.js';
import type { ConfigMap } from '../../generated/core/v1/index.js';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { protobufCodec } from './index.js';
import { type Front, type RunningServer, front, referenceServer } from './client.testing.js';

/** The client speaking Protobuf to the reference server: built-in kinds in the envelope, custom resources in JSON. */
describe('the Protobuf transport', () => {
  let server: RunningServer;
  let spy: Front;
  const NS = 'proto';

  beforeAll(async () => {
    server = await referenceServer();
    spy = await front(server.url);
  });
  afterAll(async () => {
    await spy.close();
    await server.close();
  });

  const client = () => createClient({ server: spy.url, namespace: NS, codec: protobufCodec(allProtobufPackages) });

  it('creates, reads, lists and watches built-in kinds in Protobuf', async () => {
    const c = client();
    await c.core.v1.namespaces.create({ metadata: { name: NS } });
    const cm: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' }, data: { k: 'v' } };
    const created = await c.core.v1.configMaps(NS).create(cm);
    expect(created.data).toEqual({ k: 'v' });
    expect((await c.core.v1.configMaps(NS).get('p')).metadata?.uid).toBe(created.metadata?.uid);
    const list = await c.core.v1.configMaps(NS).list();
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['p']);
    const seen: string[] = [];
    for await (const event of c.core.v1.configMaps(NS).watch({ timeoutSeconds: 1 })) {
      seen.push(`${event.type} ${event.object.metadata?.name}`);
      break;
    }
    expect(seen).toEqual(['ADDED p']);
    // What went over the wire: Protobuf requests and responses for the ConfigMaps.
    const configMapRequests = spy.seen.filter((r) => r.url.includes('/configmaps'));
    expect(configMapRequests.find((r) => r.method === 'POST')?.headers['content-type']).toBe('application/vnd.svc.protobuf');
    expect(configMapRequests.every((r) => String(r.headers.accept).startsWith('application/vnd.svc.protobuf'))).toBe(true);
  });

  it('keeps custom resources in JSON', async () => {
    const c = client();
    const ct = await c.stable.v1.cronTabs(NS).create({
      apiVersion: 'stable.example.svc.io/v1',
      kind: 'CronTab',
      metadata: { name: 'c' },
      spec: { cronSpec: '* * * * *', image: 'i' },
    });
    expect(ct.spec?.image).toBe('i');
  });
});
