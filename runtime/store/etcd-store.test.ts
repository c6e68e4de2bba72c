import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStore, isStoreConfigError } from './create-store.js';
import { type EtcdProcess, startEtcd } from './etcd.testing.js';
import { EtcdStore, type EtcdStoreOptions } from './etcd-store.js';
import { StoreExpiredError, StoreKeyExistsError, StoreUnavailableError } from './errors.js';
import { runStoreSuite } from './store-suite.testing.js';
import type { KeyValue, Store, Watch, WatchEvent } from './types.js';

// One etcd for the shared suite (fsync off: speed only, no durability is checked there).
let shared: EtcdProcess | undefined;
let prefixes = 0;
const freshPrefix = (): string => `/svckit-test-${process.pid}-${++prefixes}`;

// A failed start (etcd not installed) is kept and thrown by every test, so each one fails with
// the reason instead of being reported as skipped.
let startError: unknown;

beforeAll(async () => {
  try {
    shared = await startEtcd({ unsafeNoFsync: true });
  } catch (error) {
    startError = error;
  }
}, 30_000);

afterAll(async () => {
  await shared?.dispose();
});

const sharedEndpoint = (): string => {
  if (!shared) throw startError ?? new Error('etcd did not start');
  return shared.endpoint;
};

runStoreSuite('etcd', (options) => EtcdStore.connect({ ...options, endpoints: [sharedEndpoint()], keyPrefix: freshPrefix() }), {
  ordersWritesAcrossKeys: false,
});

/** Reads a watch with a timeout per event. */
async function take(iterator: AsyncIterator<WatchEvent>, n: number, ms = 5_000): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  while (events.length < n) {
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`watch gave ${events.length} of ${n} events, then stalled`)), ms);
      }),
    ]).finally(() => clearTimeout(timer));
    if (result.done) throw new Error(`watch ended after ${events.length} of ${n} events`);
    events.push(result.value);
  }
  return events;
}

describe('etcd store', () => {
  const opened: Store[] = [];
  const open = async (options: Partial<EtcdStoreOptions> & { endpoints: string[] }): Promise<EtcdStore> => {
    const store = await EtcdStore.connect({ compactionIntervalMs: 0, keyPrefix: freshPrefix(), ...options });
    opened.push(store);
    return store;
  };

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  it('shares one etcd between two stores: a write through one is read and watched through the other', async () => {
    const keyPrefix = freshPrefix();
    const one = await open({ endpoints: [sharedEndpoint()], keyPrefix });
    const two = await open({ endpoints: [sharedEndpoint()], keyPrefix });
    const from = await two.currentRevision();
    const watch = two.watch('/k/', from);
    const created = await one.create('/k/a', 'a1');
    const updated = await two.update('/k/a', 'a2', { expectedModRevision: created.modRevision });
    expect(await one.get('/k/a')).toEqual({
      key: '/k/a',
      value: 'a2',
      modRevision: updated.modRevision,
      createRevision: created.modRevision,
    });
    expect(await two.currentRevision()).toBe(await one.currentRevision());
    const events = await take(watch[Symbol.asyncIterator](), 2);
    expect(events.map((e) => [e.type, e.key, e.revision])).toEqual([
      ['create', '/k/a', created.modRevision],
      ['update', '/k/a', updated.modRevision],
    ]);
    watch.close();
    // Another prefix sees none of it.
    const other = await open({ endpoints: [sharedEndpoint()] });
    expect(await other.count('/k/')).toBe(0);
  });

  it('gives StoreExpiredError for a compacted revision, through another store on the same etcd too', async () => {
    let time = 1_000_000;
    const keyPrefix = freshPrefix();
    const store = await open({ endpoints: [sharedEndpoint()], keyPrefix, now: () => time, historyWindowMs: 1_000 });
    const first = await store.create('/k/a', '1');
    const second = await store.update('/k/a', '2');
    time += 5_000;
    await store.compact();
    expect(await store.compactedRevision()).toBe(second.modRevision);
    const other = await open({ endpoints: [sharedEndpoint()], keyPrefix });
    expect(await other.compactedRevision()).toBe(second.modRevision);
    await expect(other.get('/k/a', { revision: first.modRevision })).rejects.toMatchObject({
      name: 'StoreExpiredError',
      requestedRevision: first.modRevision,
      compactedRevision: second.modRevision,
    });
    // The second store never compacted: it learns of it from etcd (the watch ends with the error).
    let error: unknown;
    try {
      const watch = other.watch('/k/', first.modRevision - 1);
      await watch[Symbol.asyncIterator]().next();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StoreExpiredError);
  });

  it('names the accepted forms and opens etcd:// specs with a key prefix', async () => {
    const prefix = freshPrefix();
    const store = await createStore(`etcd://${sharedEndpoint()}?prefix=${prefix}`, { compactionIntervalMs: 0 });
    opened.push(store);
    expect(store).toBeInstanceOf(EtcdStore);
    const kv = await store.create('/k/a', 'v');
    const raw = await open({ endpoints: [sharedEndpoint()], keyPrefix: '' });
    expect((await raw.get(`${prefix}/k/a`))?.modRevision).toBe(kv.modRevision);
    for (const bad of ['etcd://', 'etcd://host', 'etcd://127.0.0.1:1?bogus=1', 'etcd://127.0.0.1:x']) {
      const error = await createStore(bad).catch((e: unknown) => e);
      expect(isStoreConfigError(error), bad).toBe(true);
    }
  });

  it('works without a key prefix (the whole keyspace)', async () => {
    const prefix = freshPrefix();
    const raw = await open({ endpoints: [sharedEndpoint()], keyPrefix: '' });
    const from = await raw.currentRevision();
    expect(await raw.compactedRevision()).toBeLessThanOrEqual(from);
    const watch = raw.watch('', from);
    const kv = await raw.create(`${prefix}/a`, 'v');
    expect((await raw.list('')).items).toContainEqual(kv);
    expect(await raw.count('')).toBeGreaterThanOrEqual(1);
    expect((await take(watch[Symbol.asyncIterator](), 1))[0]).toMatchObject({ type: 'create', key: `${prefix}/a` });
    watch.close();
    await raw.waitForRevision(kv.modRevision, 100);
  });

  it('answers StoreUnavailableError, not a hang, when etcd is unreachable', async () => {
    const { freePort } = await import('./etcd.testing.js');
    const port = await freePort();
    const error = await EtcdStore.connect({ endpoints: [`127.0.0.1:${port}`], callTimeoutMs: 2_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
  });
});

describe('etcd store across etcd restarts (fsync on)', () => {
  let etcd: EtcdProcess | undefined;
  const opened: Store[] = [];

  let ownStartError: unknown;

  beforeAll(async () => {
    try {
      etcd = await startEtcd();
    } catch (error) {
      ownStartError = error;
    }
  }, 30_000);

  beforeEach(() => {
    if (!etcd) throw ownStartError ?? new Error('etcd did not start');
  });

  afterAll(async () => {
    for (const store of opened.splice(0)) await store.close();
    await etcd?.dispose();
  });

  const restart = async (): Promise<void> => {
    const old = etcd!;
    await old.stop();
    etcd = await startEtcd({ dataDir: old.dataDir, clientPort: old.clientPort, peerPort: old.peerPort });
    // dispose() of the new handle must still delete the directory: hand the old one its cleanup.
    const next = etcd;
    etcd = {
      ...next,
      dispose: async () => {
        await next.stop();
        await old.dispose();
      },
    };
  };

  it('keeps every acknowledged write, resumes an open watch without a gap, and still knows the compacted revision', async () => {
    let time = 1_000_000;
    const keyPrefix = freshPrefix();
    const store = await EtcdStore.connect({
      endpoints: [etcd!.endpoint],
      keyPrefix,
      compactionIntervalMs: 0,
      historyWindowMs: 1_000,
      now: () => time,
    });
    opened.push(store);
    const a1 = await store.create('/k/a', 'a1');
    const a2 = await store.update('/k/a', 'a2');
    time += 5_000;
    await store.compact();
    expect(await store.compactedRevision()).toBe(a2.modRevision);

    const watch: Watch = store.watch('/k/', a2.modRevision);
    const iterator = watch[Symbol.asyncIterator]();
    const b1 = await store.create('/k/b', 'b1');
    expect((await take(iterator, 1)).map((e) => e.revision)).toEqual([b1.modRevision]);

    await restart();

    // Writes after the restart (the channel reconnects by itself; retry while it does).
    const retry = async <T>(fn: () => Promise<T>): Promise<T> => {
      for (let i = 0; ; i++) {
        try {
          return await fn();
        } catch (error) {
          if (i > 100) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    const b2 = await retry(() => store.update('/k/b', 'b2'));
    const c1 = await store.create('/k/c', 'c1');
    const events = await take(iterator, 2, 15_000);
    expect(events.map((e) => [e.type, e.key, e.revision])).toEqual([
      ['update', '/k/b', b2.modRevision],
      ['create', '/k/c', c1.modRevision],
    ]);
    watch.close();

    expect(await store.get('/k/a')).toMatchObject({ value: 'a2', modRevision: a2.modRevision });
    // A new store (a restarted server) learns the compacted revision from etcd itself.
    const fresh = await EtcdStore.connect({ endpoints: [etcd!.endpoint], keyPrefix, compactionIntervalMs: 0 });
    opened.push(fresh);
    expect(await fresh.compactedRevision()).toBe(a2.modRevision);
    await expect(fresh.get('/k/a', { revision: a1.modRevision })).rejects.toBeInstanceOf(StoreExpiredError);
  }, 60_000);

  it('keeps every acknowledged write when etcd is killed (SIGKILL) right after the acknowledgements', async () => {
    const keyPrefix = freshPrefix();
    const store = await EtcdStore.connect({ endpoints: [etcd!.endpoint], keyPrefix, compactionIntervalMs: 0 });
    opened.push(store);
    const written = await Promise.all(Array.from({ length: 50 }, (_, i) => store.create(`/k/${String(i).padStart(2, '0')}`, `v${i}`)));
    const old = etcd!;
    await old.kill();
    etcd = await startEtcd({ dataDir: old.dataDir, clientPort: old.clientPort, peerPort: old.peerPort });
    const next = etcd;
    etcd = {
      ...next,
      dispose: async () => {
        await next.stop();
        await old.dispose();
      },
    };
    const after = await EtcdStore.connect({ endpoints: [etcd.endpoint], keyPrefix, compactionIntervalMs: 0 });
    opened.push(after);
    const list = await after.list('/k/');
    expect(list.items).toEqual(written.sort((a, b) => (a.key < b.key ? -1 : 1)));
  }, 60_000);

  it('answers StoreUnavailableError after callTimeoutMs when etcd hangs, and recovers when it resumes', async () => {
    const store = await EtcdStore.connect({
      endpoints: [etcd!.endpoint],
      keyPrefix: freshPrefix(),
      compactionIntervalMs: 0,
      callTimeoutMs: 500,
    });
    opened.push(store);
    await store.create('/k/a', '1');
    await etcd!.freeze(true);
    // (A call may also fail at once if the channel notices the hang first; both are answers, not hangs.)
    // Answered, not hung: the test's own timeout bounds the wait (no wall-clock figure, so a loaded machine passes too).
    try {
      const error = await store.get('/k/a').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      const write = await store.update('/k/a', '2').catch((e: unknown) => e);
      expect(write).toBeInstanceOf(StoreUnavailableError);
      expect((write as Error).message).toMatch(/may or may not have committed/);
    } finally {
      await etcd!.freeze(false);
    }
    // Recovery may take a reconnect (grpc-js backs off up to 2 s); then the update above may have
    // committed after all: either value is an honest outcome.
    let value: string | undefined;
    for (let i = 0; ; i++) {
      try {
        value = (await store.get('/k/a'))?.value;
        break;
      } catch (error) {
        if (i >= 300) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(['1', '2']).toContain(value);
  }, 60_000);

  it('ends a watch with StoreUnavailableError when etcd stays away longer than watchRetryMs', async () => {
    const store = await EtcdStore.connect({
      endpoints: [etcd!.endpoint],
      keyPrefix: freshPrefix(),
      compactionIntervalMs: 0,
      watchRetryMs: 1_000,
      callTimeoutMs: 1_000,
    });
    opened.push(store);
    const watch = store.watch('/k/', await store.currentRevision());
    const next = watch[Symbol.asyncIterator]().next();
    const old = etcd!;
    await old.stop();
    try {
      await expect(next).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.get('/k/a')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.create('/k/a', 'v')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      etcd = await startEtcd({ dataDir: old.dataDir, clientPort: old.clientPort, peerPort: old.peerPort });
      const next2 = etcd;
      etcd = {
        ...next2,
        dispose: async () => {
          await next2.stop();
          await old.dispose();
        },
      };
    }
  }, 60_000);
});

describe('etcd store over mutual TLS', () => {
  it('connects with ca, cert and key from an etcd:// spec, and fails without a client certificate', async () => {
    const { makeTestCertificates } = await import('./etcd.testing.js');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { assertEtcdInstalled } = await import('./etcd.testing.js');
    assertEtcdInstalled();
    const dir = mkdtempSync(join(tmpdir(), 'svckit-etcd-tls-'));
    const tls = makeTestCertificates(dir);
    const etcd = await startEtcd({ unsafeNoFsync: true, tls });
    try {
      const store = await createStore(`etcd://${etcd.endpoint}?prefix=/tls&ca=${tls.ca}&cert=${tls.cert}&key=${tls.key}`, {
        compactionIntervalMs: 0,
      });
      const kv = await store.create('/k/a', 'v');
      expect(await store.get('/k/a')).toEqual(kv);
      await store.close();
      const error = await createStore(`etcd://${etcd.endpoint}?ca=${tls.ca}`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
    } finally {
      await etcd.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('etcd store on a three-member cluster', () => {
  it('keeps serving reads, writes and an open watch without a gap when the member it talks to is killed', async () => {
    const { startEtcdCluster } = await import('./etcd.testing.js');
    const members = await startEtcdCluster(3);
    const stores: Store[] = [];
    try {
      const keyPrefix = freshPrefix();
      const store = await EtcdStore.connect({
        endpoints: members.map((m) => m.endpoint),
        keyPrefix,
        compactionIntervalMs: 0,
        callTimeoutMs: 2_000,
      });
      stores.push(store);
      const a = await store.create('/k/a', '1');
      const watch = store.watch('/k/', a.modRevision);
      const events = watch[Symbol.asyncIterator]();
      const b = await store.create('/k/b', '1');
      expect((await take(events, 1)).map((e) => e.revision)).toEqual([b.modRevision]);

      // The channel talks to the first member (pick_first); kill it without a clean shutdown.
      await members[0]!.kill();
      let c: KeyValue | undefined;
      for (let i = 0; !c; i++) {
        try {
          c = await store.create('/k/c', '1');
        } catch (error) {
          // An attempt cut off by the failover may have committed: then the key exists.
          if (error instanceof StoreKeyExistsError) c = await store.get('/k/c');
          else if (i > 100) throw error;
          else await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      expect((await take(events, 1, 15_000)).map((e) => [e.key, e.revision])).toEqual([['/k/c', c.modRevision]]);
      watch.close();
      expect((await store.list('/k/')).items.map((i) => i.key)).toEqual(['/k/a', '/k/b', '/k/c']);

      // Another server on the surviving members sees the same data and revisions.
      const other = await EtcdStore.connect({ endpoints: members.slice(1).map((m) => m.endpoint), keyPrefix, compactionIntervalMs: 0 });
      stores.push(other);
      expect(await other.get('/k/c')).toEqual(c);
    } finally {
      for (const store of stores) await store.close();
      await Promise.all(members.map((m) => m.dispose()));
    }
  }, 90_000);
});

describe('etcd store watch cache', () => {
  const opened: Store[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  const open = async (options: Partial<EtcdStoreOptions> = {}): Promise<EtcdStore> => {
    const store = await EtcdStore.connect({ compactionIntervalMs: 0, keyPrefix: freshPrefix(), endpoints: [sharedEndpoint()], ...options });
    opened.push(store);
    return store;
  };

  it('serves every watch under one shared prefix from one etcd watch, each its own namespace', async () => {
    const store = await open();
    const from = await store.currentRevision();
    const watches = Array.from({ length: 30 }, (_, i) => store.watch(`/r/ns${i % 3}/`, from, { sharedPrefix: '/r/' }));
    const all = store.watch('/r/', from, { sharedPrefix: '/r/' });
    expect(store.etcdWatchCount).toBe(1);
    const written: KeyValue[] = [];
    for (let i = 0; i < 6; i++) written.push(await store.create(`/r/ns${i % 3}/o${i}`, String(i)));
    for (const [i, watch] of watches.entries()) {
      const mine = written.filter((kv) => kv.key.startsWith(`/r/ns${i % 3}/`));
      const events = await take(watch[Symbol.asyncIterator](), mine.length);
      expect(events.map((e) => [e.key, e.revision])).toEqual(mine.map((kv) => [kv.key, kv.modRevision]));
    }
    expect((await take(all[Symbol.asyncIterator](), 6)).map((e) => e.revision)).toEqual(written.map((kv) => kv.modRevision));
    // A later watch starting in the past is replayed from the ring, still on the one etcd watch.
    const late = store.watch('/r/ns1/', from, { sharedPrefix: '/r/' });
    expect((await take(late[Symbol.asyncIterator](), 2)).map((e) => e.key)).toEqual(['/r/ns1/o1', '/r/ns1/o4']);
    expect(store.etcdWatchCount).toBe(1);
    for (const watch of [...watches, all, late]) watch.close();
  });

  it('gives a watch starting before the ring an etcd watch of its own, without a gap', async () => {
    const store = await open({ watchCacheCapacity: 3 });
    const from = await store.currentRevision();
    const first = store.watch('/r/', from, { sharedPrefix: '/r/' });
    const written: KeyValue[] = [];
    for (let i = 0; i < 8; i++) written.push(await store.create(`/r/a/o${i}`, String(i)));
    await take(first[Symbol.asyncIterator](), 8); // the ring now holds the last three only
    const old = store.watch('/r/a/', written[1]!.modRevision, { sharedPrefix: '/r/' });
    expect(store.etcdWatchCount).toBe(2);
    expect((await take(old[Symbol.asyncIterator](), 6)).map((e) => e.revision)).toEqual(written.slice(2).map((kv) => kv.modRevision));
    // One inside the ring shares the cache.
    const recent = store.watch('/r/a/', written[6]!.modRevision, { sharedPrefix: '/r/' });
    expect((await take(recent[Symbol.asyncIterator](), 1)).map((e) => e.revision)).toEqual([written[7]!.modRevision]);
    expect(store.etcdWatchCount).toBe(2);
    for (const watch of [first, old, recent]) watch.close();
  });

  it('keeps the ring under its byte cap: older events are then served by a watch of their own', async () => {
    const store = await open({ watchCacheBytes: 2_500 });
    const from = await store.currentRevision();
    const first = store.watch('/r/', from, { sharedPrefix: '/r/' });
    const written: KeyValue[] = [];
    for (let i = 0; i < 5; i++) written.push(await store.create(`/r/o${i}`, 'x'.repeat(1_000)));
    await take(first[Symbol.asyncIterator](), 5); // about 1,000 bytes each: the ring keeps two
    const fromRing = store.watch('/r/', written[2]!.modRevision, { sharedPrefix: '/r/' });
    expect(store.etcdWatchCount).toBe(1);
    const older = store.watch('/r/', written[1]!.modRevision, { sharedPrefix: '/r/' });
    expect(store.etcdWatchCount).toBe(2);
    expect((await take(older[Symbol.asyncIterator](), 3)).map((e) => e.revision)).toEqual(written.slice(2).map((kv) => kv.modRevision));
    expect((await take(fromRing[Symbol.asyncIterator](), 2)).map((e) => e.revision)).toEqual(written.slice(3).map((kv) => kv.modRevision));
    for (const watch of [first, fromRing, older]) watch.close();
  });

  it('reports a future start revision to that watch alone; the shared watch goes on', async () => {
    const store = await open();
    const from = await store.currentRevision();
    const good = store.watch('/r/', from, { sharedPrefix: '/r/' });
    const future = store.watch('/r/x/', from + 1000, { sharedPrefix: '/r/' });
    await expect(future[Symbol.asyncIterator]().next()).rejects.toMatchObject({ name: 'StoreFutureRevisionError' });
    const created = await store.create('/r/y', 'v');
    expect((await take(good[Symbol.asyncIterator](), 1)).map((e) => e.revision)).toEqual([created.modRevision]);
    good.close();
  });
});
