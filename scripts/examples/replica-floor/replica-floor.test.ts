/**
 * The two versions of the comparison controller (README, "svckit and @kubernetes/client-node,
 * measured") do the same thing: each, run against the test server, scales an annotated
 * Deployment up to its floor and records the floor in a ConfigMap the Deployment owns.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../generated/client.js';
import type { Deployment } from '../../../generated/apps/v1/index.js';
import { type TestServer, startTestServer } from '../../../reference/testing/index.js';
import { startReplicaFloor as withClientNode } from './client-node.js';
import { startReplicaFloor as withSvckit } from './svckit.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

function deployment(name: string, replicas: number, floor: string): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, annotations: { 'example.com/min-replicas': floor } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
    },
  };
}

/** Polls `read` until `done` holds of its result (or fails after 5 s with the last result). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 250; i++) {
    last = await read().catch(() => undefined as T);
    if (last !== undefined && done(last)) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`condition not met; last value ${JSON.stringify(last)}`);
}

describe.each([
  ['svckit', (signal: AbortSignal) => withSvckit(createClient(server.clientConfig), 'default', signal)],
  [
    '@kubernetes/client-node',
    (signal: AbortSignal) => {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(server.configFile);
      return withClientNode(kc, 'default', signal);
    },
  ],
])('the replica-floor controller written with %s', (_, start) => {
  it('scales an annotated Deployment up to its floor and records the floor in a ConfigMap it owns', async () => {
    const client = createClient(server.clientConfig);
    const created = await client.apps.v1.deployments('default').create(deployment('web', 1, '3'));
    await client.apps.v1.deployments('default').create(deployment('big', 5, '2'));
    const stop = new AbortController();
    const running = start(stop.signal);
    try {
      const scaled = await eventually(
        () => client.apps.v1.deployments('default').get('web'),
        (d) => d.spec?.replicas === 3,
      );
      expect(scaled.spec?.replicas).toBe(3);
      const record = await eventually(
        () => client.core.v1.configMaps('default').get('web-floor'),
        (c) => c.data?.minReplicas === '3',
      );
      expect(record.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.uid])).toEqual([['Deployment', 'web', created.metadata?.uid]]);
      // Above its floor: left as it is, and recorded.
      await eventually(
        () => client.core.v1.configMaps('default').get('big-floor'),
        (c) => c.data?.minReplicas === '2',
      );
      expect((await client.apps.v1.deployments('default').get('big')).spec?.replicas).toBe(5);
    } finally {
      stop.abort();
      await running;
    }
  });
});
