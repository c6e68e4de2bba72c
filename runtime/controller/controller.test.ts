/**
 * The controller loop against the reference server (reference/testing): objects created,
 * updated and deleted are reconciled; a 500 on the reconcile's write is retried until it
 * succeeds; a dropped watch and a compacted history (410, relist) lose no change; one key is
 * never reconciled by two workers at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client.js';
import type { ConfigMap } from '../../generated/core/v1/index.js';
import { type TestServer, startTestServer } from '../../reference/testing/index.js';
import { eventually } from '../client/client.testing.js';
import { type Informer, isStatusError } from '../client/index.js';
import { ManualClock } from './clock.js';
import { Controller, type ControllerOptions, splitKey } from './controller.js';

let server: TestServer;
let stop: AbortController;
let running: Promise<void> | undefined;
beforeAll(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  stop.abort();
  await running;
  running = undefined;
  await server.reset();
});
afterAll(() => server.close());

const configMaps = () => createClient(server.clientConfig).core.v1.configMaps('default');
const configMap = (name: string, data: Record<string, string> = {}): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

type Reconcile = (key: string, cache: Informer<ConfigMap>) => ReturnType<ControllerOptions['reconcile']>;

/**
 * Starts a controller over the default namespace's ConfigMaps; `seen` records what each reconcile
 * found in the cache, before the test's own `reconcile` runs.
 */
function start(options: Omit<Partial<ControllerOptions>, 'reconcile'> & { reconcile?: Reconcile } = {}) {
  // Synced by list then watch (not watch-list), so the first watch is the one a test's fault cuts.
  const informer = configMaps().informer({ initialEvents: 'list', backoff: { initialMs: 10, maxMs: 50 }, onError: () => undefined });
  const seen: { key: string; data: Record<string, string> | 'absent' }[] = [];
  const lastSeen = (key: string) => seen.findLast((s) => s.key === key)?.data;
  const { reconcile, ...rest } = options;
  const controller = new Controller({
    informers: [informer],
    ...rest,
    reconcile: async (key) => {
      const [namespace, name] = key.split('/');
      seen.push({ key, data: informer.get(name!, namespace)?.data ?? 'absent' });
      return reconcile?.(key, informer);
    },
  });
  stop = new AbortController();
  running = controller.run(stop.signal);
  return { controller, informer, seen, lastSeen };
}

const nameOf = (key: string) => key.split('/')[1]!;

describe('Controller', () => {
  it('reconciles objects created, updated and deleted, by namespace/name', async () => {
    await configMaps().create(configMap('before', { a: '1' }));
    const { lastSeen } = start();
    await eventually(() => lastSeen('default/before') !== undefined, 5000, 'the object listed at start');

    await configMaps().create(configMap('later', { b: '1' }));
    await eventually(() => JSON.stringify(lastSeen('default/later')) === '{"b":"1"}', 5000, 'created');
    await configMaps().mergePatch('later', { data: { b: '2' } });
    await eventually(() => JSON.stringify(lastSeen('default/later')) === '{"b":"2"}', 5000, 'updated');
    await configMaps().delete('later');
    await eventually(() => lastSeen('default/later') === 'absent', 5000, 'deleted');
  });

  it('retries a reconcile whose update the server fails (500) until it succeeds, then forgets its failures', async () => {
    await configMaps().create(configMap('target'));
    const outage = server.injectFault({ verb: 'update', resource: 'configmaps', name: 'target', status: 500, times: 2 });
    const errors: unknown[] = [];
    const { controller } = start({
      onError: (e) => errors.push(e),
      reconcile: async (key, cache) => {
        const current = cache.get(nameOf(key), 'default');
        if (!current || current.metadata?.annotations?.reconciled) return;
        await configMaps().update({ ...current, metadata: { ...current.metadata, annotations: { reconciled: 'yes' } } });
      },
    });
    await eventually(async () => (await configMaps().get('target')).metadata?.annotations?.reconciled === 'yes', 5000, 'reconciled');
    expect(outage.hits).toBe(2);
    expect(errors.map((e) => isStatusError(e) && e.code)).toEqual([500, 500]);
    expect(server.requests({ verb: 'update', name: 'target' }).map((r) => r.status)).toEqual([500, 500, 200]);
    expect(controller.queue.numRequeues('default/target')).toBe(0);
  });

  it('reconciles one key in one worker at a time; changes meanwhile are reconciled once, after', async () => {
    await configMaps().create(configMap('busy', { v: '0' }));
    await configMaps().create(configMap('other'));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let active = 0;
    let mostActive = 0;
    let otherDone = false;
    const { seen, lastSeen, informer } = start({
      workers: 4,
      reconcile: async (key) => {
        if (key === 'default/other') return void (otherDone = true);
        active++;
        mostActive = Math.max(mostActive, active);
        if (seen.filter((s) => s.key === key).length === 1) await gate; // the first reconcile of busy blocks
        active--;
      },
    });
    await eventually(() => active === 1 && otherDone, 5000, 'busy blocked while another worker finished other');
    for (const v of ['1', '2', '3']) await configMaps().mergePatch('busy', { data: { v } });
    await eventually(() => informer.get('busy', 'default')?.data?.v === '3', 5000, 'the cache has the last update');
    expect(seen.filter((s) => s.key === 'default/busy')).toHaveLength(1); // no second reconcile while the first runs
    release();
    await eventually(() => JSON.stringify(lastSeen('default/busy')) === '{"v":"3"}', 5000, 'the latest state reconciled');
    expect(mostActive).toBe(1);
    // Three updates while busy were reconciled by one more run, not three.
    expect(seen.filter((s) => s.key === 'default/busy')).toHaveLength(2);
  });

  /**
   * Cuts the watch after the first sync and fails every watch after it until `heal()`, so the
   * changes the test makes meanwhile reach the controller only through the next watch's resume or
   * relist.
   */
  async function watchDown() {
    server.injectFault({ watch: true, resource: 'configmaps', dropAfterMs: 100, times: 1 });
    const refused = server.injectFault({ watch: true, resource: 'configmaps', status: 500 });
    const started = start();
    await eventually(() => refused.hits >= 1, 5000, 'the watch dropped and its restart refused');
    return { ...started, heal: () => refused.remove() };
  }

  async function changesWhileDown() {
    await configMaps().create(configMap('added', { a: '1' }));
    await configMaps().mergePatch('kept', { data: { k: '2' } });
    await configMaps().delete('removed');
  }

  const afterChanges = (lastSeen: (key: string) => unknown) =>
    JSON.stringify(lastSeen('default/added')) === '{"a":"1"}' &&
    JSON.stringify(lastSeen('default/kept')) === '{"k":"2"}' &&
    lastSeen('default/removed') === 'absent';

  it('loses no change made while its watch was dropped (the watch resumes)', async () => {
    await configMaps().create(configMap('kept', { k: '1' }));
    await configMaps().create(configMap('removed'));
    const { lastSeen, heal } = await watchDown();
    await changesWhileDown();
    heal();
    await eventually(() => afterChanges(lastSeen), 5000, 'every change reconciled');
    expect(server.requests({ verb: 'list', resource: 'configmaps' })).toHaveLength(1); // resumed, not relisted
  });

  it('loses no change made while its watch was dropped and the history compacted (410, relist)', async () => {
    await configMaps().create(configMap('kept', { k: '1' }));
    await configMaps().create(configMap('removed'));
    const { lastSeen, heal } = await watchDown();
    await changesWhileDown();
    await server.compactHistory();
    heal();
    await eventually(() => afterChanges(lastSeen), 5000, 'every change reconciled');
    // The resumed watch was told 410 (in its stream), so the informer listed again.
    expect(server.requests({ verb: 'list', resource: 'configmaps' })).toHaveLength(2);
  });

  it('reconciles again after requeueAfterMs of its clock, and not before', async () => {
    const clock = new ManualClock();
    await configMaps().create(configMap('periodic'));
    const { seen } = start({ clock, reconcile: async () => ({ requeueAfterMs: 30_000 }) });
    const runs = () => seen.filter((s) => s.key === 'default/periodic').length;
    await eventually(() => runs() === 1 && clock.pendingTimers === 1, 5000, 'the first reconcile');
    clock.advance(29_999);
    expect(runs()).toBe(1);
    clock.advance(1);
    await eventually(() => runs() === 2, 5000, 'the requeued reconcile');
  });

  it('drains queued keys when stopped, and reconciles nothing after', async () => {
    for (const name of ['a', 'b', 'c']) await configMaps().create(configMap(name));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { seen } = start({ reconcile: () => gate.then(() => undefined) });
    await eventually(() => seen.length === 1, 5000, 'the first key taken');
    stop.abort();
    await configMaps().create(configMap('late'));
    release();
    await running;
    expect(seen.map((s) => s.key).sort()).toEqual(['default/a', 'default/b', 'default/c']);
  });

  it("enqueues the key keyOf gives (an owner's for an owned object) and ignores an event it maps to undefined", async () => {
    const ownerKey = (object: { metadata?: { name?: string; namespace?: string } }) => {
      const name = object.metadata?.name ?? '';
      if (name.startsWith('ignored')) return undefined;
      return `${object.metadata?.namespace}/${name.replace(/-mirror$/, '')}`;
    };
    const { seen } = start({ keyOf: ownerKey });
    await configMaps().create(configMap('ignored'));
    await configMaps().create(configMap('web-mirror'));
    await eventually(() => seen.some((s) => s.key === 'default/web'), 5000, 'the owner reconciled');
    expect(seen.map((s) => s.key)).not.toContain('default/ignored');
    expect(seen.map((s) => s.key)).not.toContain('default/web-mirror');
  });

  it('splits keys as client-go does', () => {
    expect(splitKey('default/web')).toEqual({ namespace: 'default', name: 'web' });
    expect(splitKey('cluster-wide')).toEqual({ namespace: undefined, name: 'cluster-wide' });
  });

  it('runs once: a second run is an error, not a silent no-op', async () => {
    const { controller } = start();
    await expect(controller.run(new AbortController().signal)).rejects.toThrow(/has run already/);
  });
});
