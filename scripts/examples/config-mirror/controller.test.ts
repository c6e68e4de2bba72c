/**
 * The example of docs/testing-controllers.md: the config-mirror controller tested against
 * svckit's test server with Vitest. One server for the file, reset between tests; each test runs
 * its own controller and polls for the outcome it expects.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createClient } from '../../../generated/client.js';
import { isStatusError } from '../../../runtime/api/index.js';
import { type TestServer, startTestServer } from '../../../reference/testing/index.js';
import { type ConfigMirror, FIELD_MANAGER, startConfigMirror } from './controller.js';

let server: TestServer;
let controller: ConfigMirror | undefined;
beforeAll(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await controller?.stop();
  await server.reset();
});
afterAll(() => server.close());

const client = () => createClient(server.clientConfig);
const configMaps = () => client().core.v1.configMaps('default');

/** Polls `read` until `done` holds of its result (or fails the test after 5 s with the last result). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 250; i++) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`condition not met; last value ${JSON.stringify(last)}`);
}

const mirror = () =>
  configMaps()
    .get('settings-mirror')
    .catch((e: unknown) => {
      if (isStatusError(e) && e.code === 404) return undefined;
      throw e;
    });

it('mirrors a labelled ConfigMap, follows its changes, and the mirror goes with it', async () => {
  controller = startConfigMirror(client(), 'default');
  await controller.synced;
  const source = await configMaps().create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', labels: { mirror: 'true' } },
    data: { color: 'blue' },
  });

  const first = await eventually(mirror, (m) => m?.data?.color === 'blue');
  expect(first!.metadata?.ownerReferences?.[0]).toMatchObject({ name: 'settings', uid: source.metadata?.uid, controller: true });

  await configMaps().mergePatch('settings', { data: { color: 'green' } });
  await eventually(mirror, (m) => m?.data?.color === 'green');

  // The garbage collector, not the controller, removes the mirror with its owner.
  await configMaps().delete('settings');
  await eventually(mirror, (m) => m === undefined);
});

it('leaves ConfigMaps without the label alone', async () => {
  controller = startConfigMirror(client(), 'default');
  await controller.synced;
  await configMaps().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } });
  await configMaps().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', labels: { mirror: 'true' } } });
  await eventually(
    () =>
      configMaps()
        .get('other-mirror')
        .catch(() => undefined),
    (m) => m !== undefined,
  );
  expect(await mirror()).toBeUndefined();
});

it('retries when the server fails its apply, and applies as its own field manager', async () => {
  const errors: unknown[] = [];
  const outage = server.injectFault({ verb: 'patch', name: 'settings-mirror', status: 500, times: 2 });
  controller = startConfigMirror(client(), 'default', { onError: (e) => errors.push(e) });
  await controller.synced;
  await configMaps().create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', labels: { mirror: 'true' } },
    data: { a: '1' },
  });

  await eventually(mirror, (m) => m?.data?.a === '1');
  expect(outage.hits).toBe(2);
  expect(errors.filter((e) => isStatusError(e) && e.code === 500)).toHaveLength(2);
  const applies = server.requests({ verb: 'patch', name: 'settings-mirror' });
  expect(applies.map((r) => r.status)).toEqual([500, 500, 201]); // the third apply creates it
  expect(applies.every((r) => new URLSearchParams(r.query).get('fieldManager') === FIELD_MANAGER)).toBe(true);
});

it('catches up after its watch is cut', async () => {
  server.injectFault({ watch: true, resource: 'configmaps', dropAfterMs: 50, times: 1 });
  controller = startConfigMirror(client(), 'default', { onError: () => undefined });
  await controller.synced;
  // Created after the first watch was dropped: the controller sees it through its next watch.
  await eventually(
    async () => server.requests({ verb: 'watch', resource: 'configmaps' }).length,
    (n) => n >= 2,
  );
  await configMaps().create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', labels: { mirror: 'true' } },
    data: { a: '1' },
  });
  await eventually(mirror, (m) => m?.data?.a === '1');
});
