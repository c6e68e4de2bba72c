/**
 * The one case suite every Store backend must pass (hono's `runTest(newRouter)` style): each
 * backend's test file calls `runStoreSuite(name, makeStore)`. Time is an injected clock, so the
 * history window is crossed without waiting.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  StoreClosedError,
  StoreConflictError,
  StoreExpiredError,
  StoreFutureRevisionError,
  StoreKeyExistsError,
  StoreNotFoundError,
  isStoreConflictError,
  isStoreKeyExistsError,
  isStoreNotFoundError,
} from './errors.js';
import type { Store, StoreOptions, Watch, WatchEvent } from './types.js';

export type MakeStore = (options: StoreOptions) => Store | Promise<Store>;

/** What a backend guarantees beyond the Store contract; the suite checks the stronger form where it holds. */
export interface SuiteFeatures {
  /**
   * Writes issued together get revisions in issue order even across keys (the in-process group
   * commit does it; a networked store orders writes per key only). Default true.
   */
  ordersWritesAcrossKeys?: boolean;
}

/**
 * Asserts that a watch fails with `type`: at once (an in-process store knows), or by ending its
 * iterator with it (a remote store learns later). types.ts allows both, so a caller handles both.
 */
async function expectWatchError(open: () => Watch, type: new (...args: never[]) => Error): Promise<void> {
  let watch: Watch;
  try {
    watch = open();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return;
  }
  const outcome = await watch[Symbol.asyncIterator]()
    .next()
    .then(
      (result) => result,
      (error: unknown) => error,
    );
  watch.close();
  expect(outcome).toBeInstanceOf(type);
}

const MINUTE = 60_000;
const WINDOW = 5 * MINUTE;

/** Reads a watch with timeouts, keeping one pending `next()` so a timed-out read loses no event. */
class EventReader {
  readonly #iterator: AsyncIterator<WatchEvent>;
  #pending: Promise<IteratorResult<WatchEvent>> | undefined;

  constructor(watch: Watch) {
    this.#iterator = watch[Symbol.asyncIterator]();
  }

  /** The next result, or 'timeout' when none arrives within `ms`. */
  async next(ms = 1000): Promise<IteratorResult<WatchEvent> | 'timeout'> {
    this.#pending ??= this.#iterator.next();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ms);
    });
    const result = await Promise.race([this.#pending, timeout]);
    clearTimeout(timer);
    if (result !== 'timeout') this.#pending = undefined;
    return result;
  }

  async take(n: number): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    while (events.length < n) {
      const result = await this.next();
      if (result === 'timeout') throw new Error(`watch gave ${events.length} of ${n} events, then stalled`);
      if (result.done) throw new Error(`watch ended after ${events.length} of ${n} events`);
      events.push(result.value);
    }
    return events;
  }

  async expectQuiet(ms = 20): Promise<void> {
    const result = await this.next(ms);
    expect(result === 'timeout' ? 'timeout' : result.value).toBe('timeout');
  }

  async expectEnd(): Promise<void> {
    const result = await this.next();
    expect(result !== 'timeout' && result.done).toBe(true);
  }
}

const brief = (e: WatchEvent): string => `${e.revision} ${e.type} ${e.key}=${e.value}`;

export function runStoreSuite(name: string, makeStore: MakeStore, features: SuiteFeatures = {}): void {
  features = { ordersWritesAcrossKeys: true, ...features };
  describe(`store suite: ${name}`, () => {
    let time = 0;
    const opened: Store[] = [];
    // Revisions are counted from the store's revision when the test opened it: 0 for a new
    // in-process store, while an etcd revision is cluster-wide (other prefixes, earlier tests).
    let base = 0;
    let compactedAtOpen = 0;
    const r = (n: number): number => base + n;

    async function open(options: StoreOptions = {}): Promise<Store> {
      const store = await makeStore({ now: () => time, compactionIntervalMs: 0, ...options });
      if (opened.length === 0) {
        base = await store.currentRevision();
        compactedAtOpen = await store.compactedRevision();
      }
      opened.push(store);
      return store;
    }

    beforeEach(() => {
      time = Date.UTC(2024, 0, 1);
    });

    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    describe('writes and reads', () => {
      it('writes issued together commit together in order, each with its own outcome', async () => {
        const store = await open();
        await store.create('/k/taken', 'x');
        const results = await Promise.allSettled([
          store.create('/k/a', '1'),
          store.create('/k/taken', 'again'),
          store.create('/k/b', '2'),
          store.update('/k/a', '1b'),
          store.update('/k/b', '2b', { expectedModRevision: r(99) }),
        ]);
        const outcomes = results.map((o) => (o.status === 'fulfilled' ? o.value.modRevision : (o.reason as Error).name));
        if (features.ordersWritesAcrossKeys) {
          expect(outcomes).toEqual([r(2), 'StoreKeyExistsError', r(3), r(4), 'StoreConflictError']);
        } else {
          // A networked store orders writes per key only: each still has its own outcome and revision.
          expect(outcomes.map((o) => (typeof o === 'number' ? 'ok' : o))).toEqual([
            'ok',
            'StoreKeyExistsError',
            'ok',
            'ok',
            'StoreConflictError',
          ]);
          expect([...(outcomes.filter((o) => typeof o === 'number') as number[])].sort((a, b) => a - b)).toEqual(
            [2, 3, 4].map(r),
          );
          expect(outcomes[3]).toBeGreaterThan(outcomes[0] as number);
        }
        const a = await store.get('/k/a');
        expect(a).toMatchObject({ value: '1b', modRevision: outcomes[3], createRevision: outcomes[0] });
        expect(await store.currentRevision()).toBe(r(4));
      });

      it('commits writes already issued when it is closed', async () => {
        const store = await open();
        const write = store.create('/k/late', 'v');
        await store.close();
        expect(await write).toMatchObject({ key: '/k/late', modRevision: r(1) });
      });

      it('creates, gets, updates and deletes a key', async () => {
        const store = await open();
        expect(await store.currentRevision()).toBe(r(0));
        expect(await store.create('/k/a', 'v1')).toEqual({
          key: '/k/a',
          value: 'v1',
          modRevision: r(1),
          createRevision: r(1),
        });
        expect(await store.get('/k/a')).toEqual({ key: '/k/a', value: 'v1', modRevision: r(1), createRevision: r(1) });
        expect(await store.update('/k/a', 'v2')).toEqual({
          key: '/k/a',
          value: 'v2',
          modRevision: r(2),
          createRevision: r(1),
        });
        expect(await store.delete('/k/a')).toEqual({ key: '/k/a', value: 'v2', modRevision: r(3), createRevision: r(1) });
        expect(await store.get('/k/a')).toBeUndefined();
        expect(await store.create('/k/a', 'v3')).toEqual({
          key: '/k/a',
          value: 'v3',
          modRevision: r(4),
          createRevision: r(4),
        });
      });

      it('rejects a create of an existing key, and writes to a missing key', async () => {
        const store = await open();
        await store.create('/k/a', 'v1');
        const exists = await store.create('/k/a', 'v2').catch((e: unknown) => e);
        expect(exists).toBeInstanceOf(StoreKeyExistsError);
        expect(isStoreKeyExistsError(exists) && exists.key).toBe('/k/a');
        await expect(store.update('/k/missing', 'v')).rejects.toBeInstanceOf(StoreNotFoundError);
        await store.delete('/k/a');
        const gone = await store.delete('/k/a').catch((e: unknown) => e);
        expect(isStoreNotFoundError(gone)).toBe(true);
        await expect(store.update('/k/a', 'v')).rejects.toBeInstanceOf(StoreNotFoundError);
      });

      it('checks the expected modRevision of updates and deletes', async () => {
        const store = await open();
        await store.create('/k/a', 'v1');
        await store.update('/k/a', 'v2', { expectedModRevision: r(1) });
        const conflict = await store.update('/k/a', 'v3', { expectedModRevision: r(1) }).catch((e: unknown) => e);
        expect(conflict).toBeInstanceOf(StoreConflictError);
        expect(isStoreConflictError(conflict) && conflict.actualModRevision).toBe(r(2));
        await expect(store.delete('/k/a', { expectedModRevision: r(1) })).rejects.toBeInstanceOf(StoreConflictError);
        expect((await store.get('/k/a'))?.value).toBe('v2');
        await store.delete('/k/a', { expectedModRevision: r(2) });
        expect(await store.get('/k/a')).toBeUndefined();
      });

      it('advances the revision by exactly one per write, across keys, and not on a failed write', async () => {
        const store = await open();
        const revisions: number[] = [];
        revisions.push((await store.create('/k/a', '1')).modRevision);
        revisions.push((await store.create('/k/b', '1')).modRevision);
        await store.create('/k/a', 'dup').catch(() => undefined);
        await store.update('/k/a', '2', { expectedModRevision: r(99) }).catch(() => undefined);
        revisions.push((await store.update('/k/a', '2')).modRevision);
        revisions.push((await store.create('/other/c', '1')).modRevision);
        revisions.push((await store.delete('/k/b')).modRevision);
        expect(revisions).toEqual([1, 2, 3, 4, 5].map(r));
        expect(await store.currentRevision()).toBe(r(5));
      });

      it('reads a key as of a past revision', async () => {
        const store = await open();
        await store.create('/k/a', 'v1'); // 1
        await store.create('/k/b', 'x'); // 2
        await store.update('/k/a', 'v2'); // 3
        await store.delete('/k/a'); // 4
        await store.create('/k/a', 'v3'); // 5
        const at = async (revision: number) => (await store.get('/k/a', { revision }))?.value;
        expect([await at(r(0)), await at(r(1)), await at(r(2)), await at(r(3)), await at(r(4)), await at(r(5))]).toEqual([
          undefined,
          'v1',
          'v1',
          'v2',
          undefined,
          'v3',
        ]);
        expect(await store.get('/k/a', { revision: r(3) })).toEqual({
          key: '/k/a',
          value: 'v2',
          modRevision: r(3),
          createRevision: r(1),
        });
      });

      it('rejects empty keys and bad revisions and limits', async () => {
        const store = await open();
        await expect(store.create('', 'v')).rejects.toBeInstanceOf(RangeError);
        await expect(store.get('/k/a', { revision: -1 })).rejects.toBeInstanceOf(RangeError);
        await expect(store.get('/k/a', { revision: 1.5 })).rejects.toBeInstanceOf(RangeError);
        await expect(store.list('/k/', { limit: 0 })).rejects.toBeInstanceOf(RangeError);
      });
    });

    describe('lists', () => {
      it('lists the keys under a prefix in code point order', async () => {
        const store = await open();
        // '\u{1F600}' sorts after '\uFFFD' by code point, though before it by UTF-16 code unit.
        for (const key of ['/k/b', '/k/a', '/k/\u{1F600}', '/k/\uFFFD', '/k/a/x', '/k-sibling', '/kk/a', '/j/a']) {
          await store.create(key, key);
        }
        const list = await store.list('/k/');
        expect(list.items.map((i) => i.key)).toEqual(['/k/a', '/k/a/x', '/k/b', '/k/\uFFFD', '/k/\u{1F600}']);
        expect(list).toMatchObject({ revision: r(8), remaining: 0 });
        expect((await store.list('')).items).toHaveLength(8);
      });

      it('lists as of a past revision', async () => {
        const store = await open();
        await store.create('/k/a', 'a1'); // 1
        await store.create('/k/b', 'b1'); // 2
        await store.update('/k/a', 'a2'); // 3
        await store.delete('/k/b'); // 4
        await store.create('/k/c', 'c1'); // 5
        const values = async (revision?: number) =>
          (await store.list('/k/', revision === undefined ? {} : { revision })).items.map((i) => i.value);
        expect(await values(r(2))).toEqual(['a1', 'b1']);
        expect(await values(r(3))).toEqual(['a2', 'b1']);
        expect(await values(r(4))).toEqual(['a2']);
        expect(await values()).toEqual(['a2', 'c1']);
        expect((await store.list('/k/', { revision: r(2) })).revision).toBe(r(2));
      });

      it('pages with startAfter and limit at one revision while writes go on', async () => {
        const store = await open();
        for (const name of ['a', 'b', 'c', 'd', 'e']) await store.create(`/k/${name}`, `${name}1`);
        const first = await store.list('/k/', { limit: 2 });
        expect(first.items.map((i) => i.key)).toEqual(['/k/a', '/k/b']);
        expect(first).toMatchObject({ revision: r(5), remaining: 3 });

        // Writes between pages: none of them may show in later pages of the same snapshot.
        await store.update('/k/c', 'c2');
        await store.delete('/k/d');
        await store.create('/k/bb', 'bb1');
        await store.create('/k/f', 'f1');

        const second = await store.list('/k/', { revision: first.revision, startAfter: '/k/b', limit: 2 });
        expect(second.items.map((i) => i.value)).toEqual(['c1', 'd1']);
        expect(second).toMatchObject({ revision: r(5), remaining: 1 });
        const third = await store.list('/k/', { revision: first.revision, startAfter: '/k/d', limit: 2 });
        expect(third.items.map((i) => i.value)).toEqual(['e1']);
        expect(third.remaining).toBe(0);

        const now = await store.list('/k/', { startAfter: '/k/b', limit: 2 });
        expect(now.items.map((i) => i.value)).toEqual(['bb1', 'c2']);
        expect(now).toMatchObject({ revision: r(9), remaining: 2 });
      });

      it('counts the keys under a prefix', async () => {
        const store = await open();
        await store.create('/k/a', '1');
        await store.create('/k/b', '1');
        await store.create('/kk/c', '1');
        await store.delete('/k/a');
        expect(await store.count('/k/')).toBe(1);
        expect(await store.count('/k')).toBe(2);
        expect(await store.count('/none/')).toBe(0);
      });
    });

    describe('watches', () => {
      it('from revision 0 replays the whole history, then streams live writes', async () => {
        const store = await open();
        await store.create('/k/a', 'a1'); // 1
        await store.update('/k/a', 'a2'); // 2
        await store.create('/other/x', 'x'); // 3
        const reader = new EventReader(store.watch('/k/', r(0)));
        await store.delete('/k/a'); // 4
        await store.create('/k/b', 'b1'); // 5
        const events = await reader.take(4);
        expect(events).toEqual([
          { type: 'create', key: '/k/a', revision: r(1), value: 'a1', createRevision: r(1) },
          {
            type: 'update',
            key: '/k/a',
            revision: r(2),
            value: 'a2',
            prevValue: 'a1',
            prevModRevision: r(1),
            createRevision: r(1),
          },
          {
            type: 'delete',
            key: '/k/a',
            revision: r(4),
            value: 'a2',
            prevValue: 'a2',
            prevModRevision: r(2),
            createRevision: r(1),
          },
          { type: 'create', key: '/k/b', revision: r(5), value: 'b1', createRevision: r(5) },
        ]);
        await reader.expectQuiet();
      });

      it('from a middle revision gives exactly the later events, in order, under interleaved writes', async () => {
        const store = await open();
        for (let i = 0; i < 6; i++) await store.create(`/k/${i}`, 'v0');
        const from = r(3);
        const watch = store.watch('/k/', from);
        const reader = new EventReader(watch);
        const writes = (async () => {
          for (let round = 1; round <= 4; round++) {
            for (let i = 0; i < 6; i += 2) {
              await store.update(`/k/${i}`, `v${round}`);
              await store.create(`/noise/${round}-${i}`, 'n');
            }
            await new Promise((resolve) => setImmediate(resolve));
          }
        })();
        const expected = 3 + 4 * 3; // three more history creates, then three updates per round
        const [events] = await Promise.all([reader.take(expected), writes]);
        const revisions = events.map((e) => e.revision);
        expect(revisions[0]).toBe(from + 1);
        expect(new Set(revisions).size).toBe(revisions.length);
        expect([...revisions].sort((a, b) => a - b)).toEqual(revisions);
        expect(events.every((e) => e.key.startsWith('/k/'))).toBe(true);
        // Every /k/ write after `from` is there: compare with the log as a fresh watch sees it.
        const replay = await new EventReader(store.watch('/k/', from)).take(expected);
        expect(events.map(brief)).toEqual(replay.map(brief));
        await reader.expectQuiet();
        watch.close();
      });

      it('gives delete events the last value', async () => {
        const store = await open();
        await store.create('/k/a', 'a1');
        await store.update('/k/a', 'a2');
        const reader = new EventReader(store.watch('/k/', r(2)));
        await store.delete('/k/a');
        expect(await reader.take(1)).toEqual([
          {
            type: 'delete',
            key: '/k/a',
            revision: r(3),
            value: 'a2',
            prevValue: 'a2',
            prevModRevision: r(2),
            createRevision: r(1),
          },
        ]);
      });

      it('keeps two watches independent: an unread one blocks neither writes nor the other', async () => {
        const store = await open();
        const idle = store.watch('/k/', r(0));
        const busy = new EventReader(store.watch('/k/', r(0)));
        for (let i = 1; i <= 20; i++) await store.create(`/k/${i}`, 'v');
        expect((await busy.take(20)).map((e) => e.revision)).toEqual(Array.from({ length: 20 }, (_, i) => r(i + 1)));
        const late = await new EventReader(idle).take(20);
        expect(late.map((e) => e.revision)).toEqual(Array.from({ length: 20 }, (_, i) => r(i + 1)));
      });

      it('ends the iterator when the watch is closed', async () => {
        const store = await open();
        const watch = store.watch('/k/', r(0));
        const reader = new EventReader(watch);
        const pending = reader.next();
        watch.close();
        const result = await pending;
        expect(result !== 'timeout' && result.done).toBe(true);
        await store.create('/k/a', 'v');
        await reader.expectEnd();
      });

      it('ends the watch when a for-await loop leaves it', async () => {
        const store = await open();
        await store.create('/k/a', '1');
        await store.create('/k/b', '1');
        const watch = store.watch('/k/', r(0));
        for await (const event of watch) {
          expect(event.revision).toBe(r(1));
          break;
        }
        await new EventReader(watch).expectEnd();
      });

      it('ends a watch whose reader falls more than watchQueueLimit live events behind', async () => {
        const store = await open({ watchQueueLimit: 3 });
        for (let i = 1; i <= 5; i++) await store.create(`/k/h${i}`, 'v');
        const watch = store.watch('/k/', r(0)); // five replayed events do not count against the limit
        for (let i = 1; i <= 3; i++) await store.create(`/k/l${i}`, 'v');
        const reader = new EventReader(watch);
        expect((await reader.take(8)).map((e) => e.revision)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map(r));
        for (let i = 4; i <= 7; i++) await store.create(`/k/l${i}`, 'v');
        // A networked store receives the events after the writes are acknowledged: let them pile up.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await reader.expectEnd();
      });

      it('ends every watch and refuses every call after close', async () => {
        const store = await open();
        const reader = new EventReader(store.watch('/k/', r(0)));
        await store.close();
        await reader.expectEnd();
        await expect(store.get('/k/a')).rejects.toBeInstanceOf(StoreClosedError);
        await expect(store.create('/k/a', 'v')).rejects.toBeInstanceOf(StoreClosedError);
        await expect(store.currentRevision()).rejects.toBeInstanceOf(StoreClosedError);
        expect(() => store.watch('/k/', 0)).toThrow(StoreClosedError);
        await store.close(); // a second close is harmless
      });
    });

    describe('history window and compaction', () => {
      it('keeps revisions inside the window', async () => {
        const store = await open();
        await store.create('/k/a', 'a1');
        await store.update('/k/a', 'a2');
        time += WINDOW - 1;
        await store.compact();
        expect(await store.compactedRevision()).toBe(compactedAtOpen);
        expect((await store.get('/k/a', { revision: r(1) }))?.value).toBe('a1');
      });

      it('makes revisions older than the window expire for get, list and watch, keeping current data', async () => {
        const store = await open();
        await store.create('/k/a', 'a1'); // 1
        await store.update('/k/a', 'a2'); // 2
        await store.create('/k/b', 'b1'); // 3
        await store.create('/k/gone', 'g'); // 4
        await store.delete('/k/gone'); // 5
        time += 10 * MINUTE;
        await store.update('/k/b', 'b2'); // 6, inside the window
        await store.compact();
        expect(await store.compactedRevision()).toBe(r(5));

        const expired = await store.get('/k/a', { revision: r(4) }).catch((e: unknown) => e);
        expect(expired).toBeInstanceOf(StoreExpiredError);
        expect(expired).toMatchObject({ requestedRevision: r(4), compactedRevision: r(5) });
        await expect(store.list('/k/', { revision: r(1) })).rejects.toBeInstanceOf(StoreExpiredError);
        await expectWatchError(() => store.watch('/k/', r(4)), StoreExpiredError);

        // The compacted revision itself and everything after it stay readable.
        expect((await store.get('/k/a', { revision: r(5) }))?.value).toBe('a2');
        expect((await store.list('/k/', { revision: r(5) })).items.map((i) => i.value)).toEqual(['a2', 'b1']);
        expect((await store.list('/k/')).items.map((i) => i.value)).toEqual(['a2', 'b2']);
        expect(await store.get('/k/gone')).toBeUndefined();
        const events = await new EventReader(store.watch('/k/', r(5))).take(1);
        expect(events).toEqual([
          {
            type: 'update',
            key: '/k/b',
            revision: r(6),
            value: 'b2',
            prevValue: 'b1',
            prevModRevision: r(3),
            createRevision: r(3),
          },
        ]);
      });

      it('keeps the newest entry of every live key however old, and never reuses a revision', async () => {
        const store = await open();
        await store.create('/k/old', 'o'); // 1
        await store.create('/k/x', 'x'); // 2
        await store.delete('/k/x'); // 3: the last write is a tombstone
        time += 20 * MINUTE;
        await store.compact();
        expect(await store.compactedRevision()).toBe(r(3));
        expect(await store.get('/k/old')).toMatchObject({ value: 'o', modRevision: r(1) });
        expect(await store.count('/k/')).toBe(1);
        expect((await store.create('/k/x', 'x2')).modRevision).toBe(r(4));
        time += 20 * MINUTE;
        await store.compact();
        expect(await store.compactedRevision()).toBe(r(4));
        expect((await store.list('/k/')).items.map((i) => i.key)).toEqual(['/k/old', '/k/x']);
      });

      it('compacts on its own timer', async () => {
        const store = await open({ compactionIntervalMs: 5, historyWindowMs: 1000 });
        await store.create('/k/a', '1');
        await store.update('/k/a', '2');
        time += 2000;
        await new Promise((resolve) => setTimeout(resolve, 30));
        expect(await store.compactedRevision()).toBe(r(2));
      });
    });

    describe('future revisions', () => {
      it('rejects reads and watches above the current revision', async () => {
        const store = await open();
        await store.create('/k/a', '1');
        const future = await store.get('/k/a', { revision: r(2) }).catch((e: unknown) => e);
        expect(future).toBeInstanceOf(StoreFutureRevisionError);
        expect(future).toMatchObject({ requestedRevision: r(2), currentRevision: r(1) });
        await expect(store.list('/k/', { revision: r(2) })).rejects.toBeInstanceOf(StoreFutureRevisionError);
        await expectWatchError(() => store.watch('/k/', r(2)), StoreFutureRevisionError);
        expect((await store.list('/k/', { revision: r(1) })).items).toHaveLength(1);
      });

      it('waits for a revision to be written, or gives up after the timeout', async () => {
        const store = await open();
        await store.waitForRevision(r(0), 10);
        const waiting = store.waitForRevision(r(2), 1000);
        await store.create('/k/a', '1');
        await store.create('/k/b', '1');
        await expect(waiting).resolves.toBeUndefined();
        await expect(store.waitForRevision(r(3), 10)).rejects.toBeInstanceOf(StoreFutureRevisionError);
      });
    });
  });
}
