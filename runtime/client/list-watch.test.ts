import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, createClient } from '../../generated/client.js';
import type { ConfigMap } from '../../generated/core/v1/index.js';
import { type StatusError, isStatusError } from '../api/index.js';
import { type Informer, type WatchEvent, byLabel, byNamespace } from './index.js';
import { type Front, type RunningServer, eventually, front, referenceServer, replyStatus } from './client.testing.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(
  options: Parameters<typeof referenceServer>[0] = {},
): Promise<{ server: RunningServer; client: Client; gateway: Front; watcher: Client }> {
  const server = await referenceServer(options);
  const gateway = await front(server.url);
  cleanup.push(
    () => server.close(),
    () => gateway.close(),
  );
  const client = createClient({ server: server.url, namespace: 'ns' });
  // The watching side goes through a front the test can cut or pause.
  const watcher = createClient({ server: gateway.url, namespace: 'ns' });
  await client.core.v1.namespaces.create({ metadata: { name: 'ns' } });
  return { server, client, gateway, watcher };
}

async function createMany(client: Client, names: string[], labels: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < names.length; i += 50) {
    await Promise.all(
      names.slice(i, i + 50).map((name) => client.core.v1.configMaps().create({ metadata: { name, labels }, data: { v: '0' } })),
    );
  }
}

const names = (n: number, prefix = 'cm') => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

/** Runs a watch in the background, recording its events until the returned stop() is called. */
function record<E>(watch: (signal: AbortSignal) => AsyncIterable<E>): { events: E[]; stop: () => Promise<void>; error: () => unknown } {
  const events: E[] = [];
  const controller = new AbortController();
  let failure: unknown;
  const done = (async () => {
    try {
      for await (const e of watch(controller.signal)) events.push(e);
    } catch (e) {
      failure = e;
    }
  })();
  const stop = async () => {
    controller.abort();
    await done;
  };
  cleanup.push(stop);
  return { events, stop, error: () => failure };
}

/** The state a consumer of these events holds: name -> data.v. */
function replay(events: WatchEvent<ConfigMap>[]): Map<string, string | undefined> {
  const state = new Map<string, string | undefined>();
  for (const e of events) {
    if (e.type === 'BOOKMARK') continue;
    const name = e.object.metadata!.name!;
    if (e.type === 'DELETED') state.delete(name);
    else state.set(name, e.object.data?.v);
  }
  return state;
}

async function serverState(client: Client): Promise<Map<string, string | undefined>> {
  const list = await client.core.v1.configMaps().list();
  return new Map(list.items.map((i) => [i.metadata!.name!, i.data?.v]));
}

/** No event reported twice: each (type, name, resourceVersion) at most once. */
function duplicates(events: WatchEvent<ConfigMap>[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const e of events) {
    if (e.type === 'BOOKMARK') continue;
    const id = `${e.type} ${e.object.metadata?.name} ${e.object.metadata?.resourceVersion}`;
    if (seen.has(id)) out.push(id);
    seen.add(id);
  }
  return out;
}

describe('listAll', () => {
  it('pages through 1,000 objects at one snapshot', async () => {
    const { client, gateway } = await setup();
    await createMany(client, names(1000));
    const pages = [];
    for await (const page of createClient({ server: gateway.url, namespace: 'ns' }).core.v1.configMaps().listAll({ limit: 100 }))
      pages.push(page);
    expect(pages).toHaveLength(10);
    expect(new Set(pages.map((p) => p.metadata?.resourceVersion)).size).toBe(1);
    const all = pages.flatMap((p) => p.items.map((i) => i.metadata?.name));
    expect(new Set(all).size).toBe(1000);
    expect(gateway.seen.filter((r) => r.url.includes('continue=')).length).toBe(9);
  });

  it('restarts from the first page when a continue token expires (410)', async () => {
    const { client } = await setup({ continueTtlMs: 300 });
    await createMany(client, names(30));
    const restarts: StatusError[] = [];
    const items: string[] = [];
    let pages = 0;
    for await (const page of client.core.v1.configMaps().listAll({
      limit: 10,
      onRestart: (e) => {
        restarts.push(e);
        items.length = 0;
      },
    })) {
      pages++;
      items.push(...page.items.map((i) => i.metadata!.name!));
      if (pages === 1) await new Promise((r) => setTimeout(r, 450));
    }
    expect(restarts).toHaveLength(1);
    expect(restarts[0]!.code).toBe(410);
    expect(items).toEqual(names(30));
  });

  it('falls back to the most recent state when NotOlderThan with limit meets a compacted version', async () => {
    const { server, client } = await setup({ historyWindowMs: 100 });
    await createMany(client, names(5));
    const old = (await client.core.v1.configMaps().list()).metadata!.resourceVersion!;
    await createMany(client, names(5, 'later'));
    await new Promise((r) => setTimeout(r, 250));
    await server.server.context.store.compact();
    const direct = await client.core.v1
      .configMaps()
      .list({ resourceVersion: old, resourceVersionMatch: 'NotOlderThan', limit: 3 })
      .catch((e: unknown) => e);
    expect(isStatusError(direct) && direct.code).toBe(410);
    const items: string[] = [];
    for await (const page of client.core.v1.configMaps().listAll({ resourceVersion: old, resourceVersionMatch: 'NotOlderThan', limit: 3 }))
      items.push(...page.items.map((i) => i.metadata!.name!));
    expect(items).toHaveLength(10);
  });
});

describe('watch', () => {
  it('reports the state, then every change, and resumes after forced disconnects without losing or repeating one', async () => {
    const { client, gateway, watcher } = await setup();
    await createMany(client, names(20, 'before'));
    const w = record((signal) => watcher.core.v1.configMaps().watch({ signal, backoff: { initialMs: 20, maxMs: 100 } }));
    await eventually(() => w.events.length >= 20, 10_000, 'the initial state');
    for (let round = 0; round < 5; round++) {
      // Changes, then the connection is cut while their events may still be on the wire.
      await createMany(client, names(10, `round${round}`));
      await client.core.v1.configMaps().mergePatch('before-0000', { data: { v: String(round + 1) } });
      if (round === 2) await client.core.v1.configMaps().delete('before-0001');
      gateway.drop();
      await eventually(() => replay(w.events).get('before-0000') === String(round + 1), 10_000, `round ${round}`);
    }
    const expected = await serverState(client);
    await eventually(() => replay(w.events).size === expected.size && replay(w.events).get('before-0000') === '5', 10_000, 'every change');
    expect(replay(w.events)).toEqual(expected);
    expect(duplicates(w.events)).toEqual([]);
    expect(w.events.filter((e) => e.type === 'ADDED')).toHaveLength(70);
    expect(w.events.filter((e) => e.type === 'MODIFIED')).toHaveLength(5);
    expect(w.events.filter((e) => e.type === 'DELETED')).toHaveLength(1);
    // Each resume asked for the changes after the last version it had seen, with bookmarks.
    const resumes = gateway.seen.filter((r) => r.url.includes('watch=true') && /resourceVersion=\d+/.test(r.url));
    expect(resumes.length).toBeGreaterThanOrEqual(1);
    expect(resumes.every((r) => r.url.includes('allowWatchBookmarks=true'))).toBe(true);
    expect(w.error()).toBeUndefined();
  });

  it('resyncs after 410 and reports exactly the difference', async () => {
    const { server, client, gateway, watcher } = await setup({ historyWindowMs: 300 });
    await createMany(client, names(10));
    const w = record((signal) => watcher.core.v1.configMaps().watch({ signal, backoff: { initialMs: 20, maxMs: 100 } }));
    await eventually(() => w.events.length >= 10, 10_000, 'the initial state');
    // An outage long enough for the history to be compacted past the watch's version.
    gateway.paused = true;
    gateway.drop();
    await client.core.v1.configMaps().delete('cm-0003');
    await client.core.v1.configMaps().mergePatch('cm-0004', { data: { v: 'changed' } });
    await createMany(client, ['fresh']);
    await new Promise((r) => setTimeout(r, 500));
    await server.server.context.store.compact();
    const before = w.events.length;
    gateway.paused = false;
    const expected = await serverState(client);
    await eventually(() => w.events.length >= before + 3, 10_000, 'the resync');
    await new Promise((r) => setTimeout(r, 100));
    const after = w.events.slice(before).map((e) => `${e.type} ${e.object.metadata?.name}`);
    expect(after.sort()).toEqual(['ADDED fresh', 'DELETED cm-0003', 'MODIFIED cm-0004']);
    expect(replay(w.events)).toEqual(expected);
    // It relisted: a watch at the old version was refused with 410 first.
    expect(gateway.seen.some((r) => r.url.includes('sendInitialEvents=true') || !r.url.includes('watch='))).toBe(true);
  });

  it('a watch from a version the history no longer has relists, reporting what the caller did not know', async () => {
    const { server, client } = await setup({ historyWindowMs: 100 });
    await createMany(client, names(3));
    const list = await client.core.v1.configMaps().list();
    await client.core.v1.configMaps().delete('cm-0000');
    await createMany(client, ['new-one']);
    await new Promise((r) => setTimeout(r, 250));
    await server.server.context.store.compact();
    const w = record((signal) =>
      client.core.v1.configMaps().watch({ signal, resourceVersion: list.metadata!.resourceVersion!, known: list.items }),
    );
    await eventually(() => w.events.length >= 2, 10_000, 'the resync');
    await new Promise((r) => setTimeout(r, 100));
    expect(w.events.map((e) => `${e.type} ${e.object.metadata?.name}`).sort()).toEqual(['ADDED new-one', 'DELETED cm-0000']);
  });

  it('stops when the caller breaks out of the loop', async () => {
    const { client } = await setup();
    await createMany(client, names(3));
    const seen: string[] = [];
    for await (const e of client.core.v1.configMaps().watch()) {
      seen.push(e.object.metadata!.name!);
      if (seen.length === 2) break;
    }
    expect(seen).toHaveLength(2);
  });

  it('throws a non-retryable error instead of stopping silently', async () => {
    const { client } = await setup();
    const events = client.core.v1.configMaps().watch({ labelSelector: 'a in (' });
    await expect(
      (async () => {
        for await (const _ of events) break;
      })(),
    ).rejects.toMatchObject({ name: 'StatusError', code: 400 });
  });

  it('yields bookmarks when asked', async () => {
    const server = await referenceServer({ bookmarkIntervalMs: 50 });
    cleanup.push(() => server.close());
    const client = createClient({ server: server.url });
    await client.core.v1.namespaces.create({ metadata: { name: 'b' } });
    const w = record((signal) => client.core.v1.configMaps('b').watch({ signal, bookmarks: true }));
    await eventually(() => w.events.some((e) => e.type === 'BOOKMARK'), 5000, 'a bookmark');
    const bookmark = w.events.find((e) => e.type === 'BOOKMARK')!;
    expect(bookmark.object.metadata.resourceVersion).toMatch(/^\d+$/);
  });
});

describe('Informer', () => {
  it('lists with watch-list, indexes, and calls handlers', async () => {
    const { client, gateway, watcher } = await setup();
    await createMany(client, names(3), { app: 'web' });
    const informer = watcher.core.v1.configMaps.all().informer({ indexers: { namespace: byNamespace, app: byLabel('app') } });
    const log: string[] = [];
    informer.addEventHandler({
      onAdd: (o, initial) => log.push(`add ${o.metadata?.name}${initial ? ' (initial)' : ''}`),
      onUpdate: (_, o) => log.push(`update ${o.metadata?.name}`),
      onDelete: (o) => log.push(`delete ${o.metadata?.name}`),
    });
    cleanup.push(() => informer.stop());
    expect(informer.hasSynced()).toBe(false);
    await informer.start().waitForSync();
    expect(informer.hasSynced()).toBe(true);
    expect(gateway.seen.some((r) => r.url.includes('sendInitialEvents=true'))).toBe(true);
    expect(informer.byIndex('namespace', 'ns')).toHaveLength(3);
    expect(informer.byIndex('app', 'web')).toHaveLength(3);

    await client.core.v1.configMaps().mergePatch('cm-0001', { metadata: { labels: { app: 'db' } } });
    await client.core.v1.configMaps().delete('cm-0002');
    await eventually(() => log.length >= 5, 5000, 'the changes');
    expect(log).toEqual(['add cm-0000 (initial)', 'add cm-0001 (initial)', 'add cm-0002 (initial)', 'update cm-0001', 'delete cm-0002']);
    expect(informer.byIndex('app', 'web').map((o) => o.metadata?.name)).toEqual(['cm-0000']);
    expect(informer.byIndex('app', 'db').map((o) => o.metadata?.name)).toEqual(['cm-0001']);
    expect(informer.get('cm-0001', 'ns')?.metadata?.labels?.app).toBe('db');
  });

  it('falls back to list and watch when the server refuses sendInitialEvents', async () => {
    const server = await referenceServer();
    const refusing = await front(server.url, (req, res) =>
      req.url?.includes('sendInitialEvents') ? replyStatus(res, 400, 'BadRequest', 'sendInitialEvents is not supported') : false,
    );
    cleanup.push(
      () => server.close(),
      () => refusing.close(),
    );
    const client = createClient({ server: refusing.url });
    await client.core.v1.namespaces.create({ metadata: { name: 'ns' } });
    await client.core.v1.configMaps('ns').create({ metadata: { name: 'one' } });
    const informer = client.core.v1.configMaps('ns').informer();
    cleanup.push(() => informer.stop());
    await informer.start().waitForSync();
    expect(informer.keys()).toEqual(['ns/one']);
    expect(refusing.seen.some((r) => r.url.startsWith('/api/v1/namespaces/ns/configmaps?limit='))).toBe(true);
  });

  it('delivers periodic resyncs as updates', async () => {
    const { client } = await setup();
    await createMany(client, ['r']);
    const informer = client.core.v1.configMaps().informer({ resyncPeriodMs: 50 });
    let resyncs = 0;
    informer.addEventHandler({ onUpdate: (a, b) => void (a === b && resyncs++) });
    cleanup.push(() => informer.stop());
    await informer.start().waitForSync();
    await eventually(() => resyncs >= 2, 5000, 'resyncs');
  });

  it('stays in sync through a server restart on the same store and port', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svckit-client-')), 'data.db');
    let server = await referenceServer({ store: `sqlite:${file}` });
    const port = Number(new URL(server.url).port);
    cleanup.push(() => server.close());
    const client = createClient({ server: server.url, namespace: 'ns' });
    await client.core.v1.namespaces.create({ metadata: { name: 'ns' } });
    await createMany(client, names(5));

    const errors: unknown[] = [];
    const informer: Informer<ConfigMap> = client.core.v1
      .configMaps()
      .informer({ backoff: { initialMs: 50, maxMs: 200 }, onError: (e) => errors.push(e) });
    const adds = new Map<string, number>();
    informer.addEventHandler({ onAdd: (o) => adds.set(o.metadata!.name!, (adds.get(o.metadata!.name!) ?? 0) + 1) });
    cleanup.push(() => informer.stop());
    await informer.start().waitForSync();
    await createMany(client, ['while-up']);
    await eventually(() => informer.keys().length === 6, 5000, 'the live change');

    await server.close();
    await new Promise((r) => setTimeout(r, 300));
    server = await referenceServer({ store: `sqlite:${file}`, port });
    await createMany(client, ['after-restart']);
    await client.core.v1.configMaps().delete('cm-0000');
    await client.core.v1.configMaps().mergePatch('cm-0001', { data: { v: 'after' } });

    const expected = await serverState(client);
    await eventually(
      () =>
        informer.keys().length === expected.size && informer.get('cm-0001', 'ns')?.data?.v === 'after' && !informer.get('cm-0000', 'ns'),
      15_000,
      'the informer to catch up',
    );
    expect(new Map(informer.list().map((o) => [o.metadata!.name!, o.data?.v]))).toEqual(expected);
    expect([...adds.values()].every((n) => n === 1)).toBe(true);
    expect(errors.length).toBeGreaterThan(0); // the outage was seen and retried, not swallowed
  });
});
