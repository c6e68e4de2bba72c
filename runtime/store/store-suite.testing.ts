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
import type { ListResult, Store, StoreOptions, Watch, WatchEvent } from './types.js';

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
          expect([...(outcomes.filter((o) => typeof o === 'number') as number[])].sort((a, b) => a - b)).toEqual([2, 3, 4].map(r));
          expect(outcomes[3]).toBeGreaterThan(outcomes[0] as number);
        }
        const a = await store.get('/k/a');
        expect(a).toMatchObject({ value: '1b', modRevision: outcomes[3], createRevision: outcomes[0] });
        expect(await store.currentRevision()).toBe(r(4));
      });

      it('reads without waiting (getNow, where the backend has it) what get reads, issued writes only once they commit', async () => {
        const store = await open();
        if (!store.getNow) return;
        const created = store.create('/k/now', 'v1');
        expect(store.getNow('/k/now')).toBeUndefined();
        await created;
        expect(store.getNow('/k/now')).toEqual(await store.get('/k/now'));
        await store.update('/k/now', 'v2');
        expect(store.getNow('/k/now')).toMatchObject({ value: 'v2', modRevision: r(2), createRevision: r(1) });
        await store.delete('/k/now');
        expect(store.getNow('/k/now')).toBeUndefined();
        await store.close();
        expect(() => store.getNow!('/k/now')).toThrow(StoreClosedError);
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

      it('says whether more keys follow a page, with or without counting them', async () => {
        const store = await open();
        for (const name of ['a', 'b', 'c']) await store.create(`/k/${name}`, `${name}1`);
        await store.delete('/k/c');
        const uncounted = { countRemaining: false } as const;
        expect(await store.list('/k/', { limit: 1 })).toMatchObject({ more: true, remaining: 1 });
        expect(await store.list('/k/', { limit: 1, ...uncounted })).toMatchObject({ more: true });
        // A deleted key does not count as more: the page that ends at b is the last.
        expect(await store.list('/k/', { limit: 2 })).toMatchObject({ more: false, remaining: 0 });
        expect(await store.list('/k/', { limit: 2, ...uncounted })).toMatchObject({ more: false });
        expect(await store.list('/k/', { revision: r(3), startAfter: '/k/a', limit: 1, ...uncounted })).toMatchObject({ more: true });
        expect((await store.list('/k/', uncounted)).more).toBe(false);
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
        // A networked store compacts over round trips: wait up to 2 s for the timer's work.
        for (let waited = 0; waited < 2000 && (await store.compactedRevision()) !== r(2); waited += 10) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
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

    describe("kube-apiserver's storage tables (store_tests.go RunTestList and RunTestGet, watcher_tests.go)", () => {
      /**
       * The history of upstream's seedMultiLevelData: six creates, an update of first/bar, the
       * delete of second/baz, a compaction to the first write, then one write outside /pods/
       * (upstream's compaction writes its compact_rev_key, which moves the revision the same way).
       */
      async function seed(): Promise<Store> {
        const store = await open();
        await store.create('/pods/first/bar', 'first/bar@1'); // 1
        time += MINUTE;
        for (const key of ['second/bar', 'second/foo', 'third/barfoo', 'third/foo', 'second/baz']) {
          await store.create(`/pods/${key}`, `${key}@1`); // 2..6
        }
        await store.update('/pods/first/bar', 'first/bar@2'); // 7
        await store.delete('/pods/second/baz'); // 8
        time = time - MINUTE + WINDOW + 30_000; // the window now ends after write 1 and before write 2
        await store.compact();
        expect(await store.compactedRevision()).toBe(r(1));
        await store.create('/unrelated', 'x'); // 9
        return store;
      }

      for (const c of LIST_CASES) {
        it(`list: ${c.name}`, async () => {
          const store = await seed();
          const outcome = await upstreamList(store, c, r);
          if ('error' in c.expect) {
            expect(outcome).toEqual({ error: c.expect.error });
            return;
          }
          if ('error' in outcome) throw new Error(`expected a list, got ${outcome.error}: ${outcome.detail}`);
          const e = c.expect;
          if (e.items) expect(outcome.items).toEqual(e.items);
          if (e.alternatives) expect(e.alternatives).toContainEqual(outcome.items);
          expect(outcome.remaining).toBe(e.remaining ?? 0);
          if (e.revision !== undefined) expect(outcome.revision).toBe(r(e.revision));
          if (e.revisionAtLeast !== undefined) expect(outcome.revision).toBeGreaterThanOrEqual(r(e.revisionAtLeast));
        });
      }

      for (const c of GET_CASES) {
        it(`get: ${c.name}`, async () => {
          const store = await seed();
          let outcome: string | undefined;
          try {
            if (c.rv !== undefined) await store.waitForRevision(revisionOf(c.rv, r), 50);
            outcome = (await store.get(c.key))?.value;
          } catch (error) {
            outcome = (error as Error).name;
          }
          expect(c.expect).toContainEqual(outcome);
        });
      }

      it('watch from the initial revision replays every write; after compaction only from the compacted revision on (RunTestWatchFromZero)', async () => {
        const store = await seed();
        await expectWatchError(() => store.watch('/pods/', r(0)), StoreExpiredError);
        const events = await new EventReader(store.watch('/pods/', r(1))).take(7);
        expect(events.map(brief)).toEqual([
          `${r(2)} create /pods/second/bar=second/bar@1`,
          `${r(3)} create /pods/second/foo=second/foo@1`,
          `${r(4)} create /pods/third/barfoo=third/barfoo@1`,
          `${r(5)} create /pods/third/foo=third/foo@1`,
          `${r(6)} create /pods/second/baz=second/baz@1`,
          `${r(7)} update /pods/first/bar=first/bar@2`,
          `${r(8)} delete /pods/second/baz=second/baz@1`,
        ]);
      });

      it('watch from a non-zero revision gives the later update with its previous value (RunTestWatchFromNonZero)', async () => {
        const store = await open();
        const created = await store.create('/pods/ns/foo', 'v1');
        const reader = new EventReader(store.watch('/pods/ns/foo', created.modRevision));
        const updated = await store.update('/pods/ns/foo', 'v2');
        expect(await reader.take(1)).toEqual([
          {
            type: 'update',
            key: '/pods/ns/foo',
            revision: updated.modRevision,
            value: 'v2',
            prevValue: 'v1',
            prevModRevision: created.modRevision,
            createRevision: created.modRevision,
          },
        ]);
        await reader.expectQuiet();
      });

      it('a delete event carries the revision of the delete, not of the last write (RunTestWatchDeleteEventObjectHaveLatestRV)', async () => {
        const store = await open();
        const created = await store.create('/pods/ns/foo', 'v1');
        const reader = new EventReader(store.watch('/pods/', created.modRevision));
        await store.create('/pods/ns/other', 'x');
        const deleted = await store.delete('/pods/ns/foo');
        const [, event] = await reader.take(2);
        expect(event).toMatchObject({ type: 'delete', key: '/pods/ns/foo', revision: deleted.modRevision, value: 'v1' });
        expect(event!.revision).toBeGreaterThan(event!.prevModRevision!);
        expect(deleted.modRevision).toBe(created.modRevision + 2);
      });

      it('a watch of one key sees neither its siblings nor keys that merely share its text as a prefix (RunTestWatch "key")', async () => {
        const store = await open();
        const from = await store.currentRevision();
        const reader = new EventReader(store.watch('/pods/ns/foo/', from));
        await store.create('/pods/ns/foo/a', '1');
        await store.create('/pods/ns/foobar/a', '1');
        await store.create('/pods/ns/bar/a', '1');
        await store.update('/pods/ns/foo/a', '2');
        expect((await reader.take(2)).map((e) => `${e.type} ${e.key}=${e.value}`)).toEqual([
          'create /pods/ns/foo/a=1',
          'update /pods/ns/foo/a=2',
        ]);
        await reader.expectQuiet();
      });

      it('a watch from a compacted revision fails with StoreExpiredError, and from the compacted revision works (RunTestWatchError, RunTestWatcherTimeout)', async () => {
        const store = await seed();
        await expectWatchError(() => store.watch('/pods/', r(0)), StoreExpiredError);
        const reader = new EventReader(store.watch('/pods/first/', r(1)));
        expect((await reader.take(1)).map(brief)).toEqual([`${r(7)} update /pods/first/bar=first/bar@2`]);
        await reader.expectQuiet();
      });
    });
  });
}

/** A revision of the seeded history: write n, or a symbolic one. */
type Rev = number | 'max';
const revisionOf = (rev: Rev, r: (n: number) => number): number => (rev === 'max' ? Number.MAX_SAFE_INTEGER : r(rev));

interface ListCase {
  name: string;
  prefix: string;
  /** Upstream's resourceVersion: a write of the seeded history, "0" (any), or absent (a consistent read). */
  rv?: Rev | 'any' | -1;
  match?: 'Exact' | 'NotOlderThan';
  limit?: number;
  /** A continue position: after this key, at this revision (-1: a consistent read). */
  continueAfter?: { key: string; rev: number | -1 };
  expect:
    | { error: 'TooLarge' | 'TooOld' | 'ContinueTooOld' | 'Invalid' }
    | { items?: string[]; alternatives?: string[][]; remaining?: number; revision?: number; revisionAtLeast?: number };
}

type ListOutcome = { items: string[]; revision: number; remaining: number } | { error: string; detail?: string };

/**
 * Upstream's list options mapped onto the store the way the server's read path does: Exact (and a
 * legacy resourceVersion with a limit) reads at that revision, NotOlderThan waits for it and reads
 * the current state, "0" and none read the current state, a continue position reads after its key
 * at its revision.
 */
async function upstreamList(store: Store, c: ListCase, r: (n: number) => number): Promise<ListOutcome> {
  const at = (rev: Rev): number => revisionOf(rev, r);
  try {
    let result: ListResult;
    if (c.continueAfter) {
      const { key, rev } = c.continueAfter;
      try {
        result = await store.list(c.prefix, {
          ...(rev === -1 ? {} : { revision: r(rev) }),
          startAfter: key,
          ...(c.limit ? { limit: c.limit } : {}),
        });
      } catch (error) {
        if (error instanceof StoreExpiredError) return { error: 'ContinueTooOld' };
        throw error;
      }
    } else if (c.rv === undefined || c.rv === 'any') {
      result = await store.list(c.prefix, c.limit ? { limit: c.limit } : {});
    } else if (c.rv === -1) {
      result = await store.list(c.prefix, { revision: -1 });
    } else if (c.match === 'Exact' || (c.match === undefined && c.limit)) {
      result = await store.list(c.prefix, { revision: at(c.rv), ...(c.limit ? { limit: c.limit } : {}) });
    } else {
      await store.waitForRevision(at(c.rv), 50);
      result = await store.list(c.prefix, c.limit ? { limit: c.limit } : {});
    }
    // Counted by default, and `more` says the same as the count.
    expect(result.more).toBe((result.remaining ?? Number.NaN) > 0);
    return { items: result.items.map((i) => i.value), revision: result.revision, remaining: result.remaining ?? Number.NaN };
  } catch (error) {
    if (error instanceof StoreExpiredError) return { error: 'TooOld' };
    if (error instanceof StoreFutureRevisionError) return { error: 'TooLarge' };
    if (error instanceof RangeError) return { error: 'Invalid' };
    return { error: 'unexpected', detail: String(error) };
  }
}

// The seeded objects, by value: first/bar@1 became first/bar@2 at write 7; second/baz was deleted at write 8.
const AT_8 = ['first/bar@2', 'second/bar@1', 'second/foo@1', 'third/barfoo@1', 'third/foo@1'];

/**
 * RunTestList's cases that concern the store (its field-selector cases filter in the server, and
 * its malformed-token and malformed-version cases are parsing, both tested there).
 */
const LIST_CASES: ListCase[] = [
  { name: 'rejects resource version set too high', prefix: '/pods/', rv: 'max', expect: { error: 'TooLarge' } },
  { name: 'test List with negative rv fails', prefix: '/pods/', rv: -1, expect: { error: 'Invalid' } },
  { name: 'test List on existing key', prefix: '/pods/first/', expect: { items: ['first/bar@2'] } },
  {
    name: 'test List on existing key with resource version set to 0',
    prefix: '/pods/first/',
    rv: 'any',
    expect: { alternatives: [[], ['first/bar@2']] },
  },
  {
    name: 'test List on existing key with resource version set before update, match=Exact',
    prefix: '/pods/first/',
    rv: 1,
    match: 'Exact',
    expect: { items: ['first/bar@1'], revision: 1 },
  },
  {
    name: 'test List on existing key with resource version set before creation, match=Exact',
    prefix: '/pods/second/',
    rv: 1,
    match: 'Exact',
    expect: { items: [], revision: 1 },
  },
  {
    name: 'test List on existing key with resource version set after creation, match=Exact',
    prefix: '/pods/second/',
    rv: 2,
    match: 'Exact',
    expect: { items: ['second/bar@1'], revision: 2 },
  },
  {
    name: 'test List on existing key with resource version set before first write, match=Exact',
    prefix: '/pods/first/',
    rv: 0,
    match: 'Exact',
    expect: { error: 'TooOld' },
  },
  {
    name: 'test List on existing key with resource version set to 0, match=NotOlderThan',
    prefix: '/pods/first/',
    rv: 'any',
    match: 'NotOlderThan',
    expect: { alternatives: [[], ['first/bar@2']] },
  },
  {
    name: 'test List on existing key with resource version set before first write, match=NotOlderThan',
    prefix: '/pods/first/',
    rv: 0,
    match: 'NotOlderThan',
    expect: { alternatives: [[], ['first/bar@2']] },
  },
  {
    name: 'test List on existing key with resource version set to current resource version',
    prefix: '/pods/first/',
    rv: 8,
    expect: { items: ['first/bar@2'] },
  },
  {
    name: 'test List on existing key with resource version set to current resource version, match=Exact',
    prefix: '/pods/first/',
    rv: 8,
    match: 'Exact',
    expect: { items: ['first/bar@2'], revision: 8 },
  },
  {
    name: 'test List on existing key with resource version set to current resource version, match=NotOlderThan',
    prefix: '/pods/first/',
    rv: 8,
    match: 'NotOlderThan',
    expect: { items: ['first/bar@2'], revisionAtLeast: 8 },
  },
  { name: 'test List on non-existing key', prefix: '/pods/non-existing/', expect: { items: [] } },
  { name: 'test List with limit', prefix: '/pods/second/', limit: 1, expect: { items: ['second/bar@1'], remaining: 1, revision: 9 } },
  {
    name: 'test List with limit at current resource version',
    prefix: '/pods/second/',
    rv: 8,
    limit: 1,
    expect: { items: ['second/bar@1'], remaining: 1, revision: 8 },
  },
  {
    name: 'test List with limit at current resource version and match=Exact',
    prefix: '/pods/second/',
    rv: 8,
    match: 'Exact',
    limit: 1,
    expect: { items: ['second/bar@1'], remaining: 1, revision: 8 },
  },
  {
    name: 'test List with limit at current resource version and match=NotOlderThan',
    prefix: '/pods/second/',
    rv: 8,
    match: 'NotOlderThan',
    limit: 1,
    expect: { items: ['second/bar@1'], remaining: 1, revisionAtLeast: 8 },
  },
  {
    name: 'test List with limit at resource version 0',
    prefix: '/pods/second/',
    rv: 'any',
    limit: 1,
    expect: { items: ['second/bar@1'], remaining: 1, revisionAtLeast: 8 },
  },
  {
    name: 'test List with limit at resource version 0 match=NotOlderThan',
    prefix: '/pods/second/',
    rv: 'any',
    match: 'NotOlderThan',
    limit: 1,
    expect: { items: ['second/bar@1'], remaining: 1, revisionAtLeast: 8 },
  },
  {
    name: 'test List with limit at resource version before created and match=Exact',
    prefix: '/pods/second/',
    rv: 1,
    match: 'Exact',
    limit: 1,
    expect: { items: [], revision: 1 },
  },
  {
    name: 'test List with limit at resource version after created and match=Exact',
    prefix: '/pods/second/',
    rv: 2,
    match: 'Exact',
    limit: 1,
    expect: { items: ['second/bar@1'], revision: 2 },
  },
  // Upstream's pregenerated token starts at second/foo; at write 8 that is "after second/bar".
  {
    name: 'test List with pregenerated continue token',
    prefix: '/pods/second/',
    limit: 1,
    continueAfter: { key: '/pods/second/bar', rev: 8 },
    expect: { items: ['second/foo@1'], revision: 8 },
  },
  {
    name: 'ignores resource version 0 for List with pregenerated continue token',
    prefix: '/pods/second/',
    rv: 'any',
    limit: 1,
    continueAfter: { key: '/pods/second/bar', rev: 8 },
    expect: { items: ['second/foo@1'], revision: 8 },
  },
  {
    name: 'test List with multiple levels of directories and expect flattened result',
    prefix: '/pods/second/',
    expect: { items: ['second/bar@1', 'second/foo@1'] },
  },
  {
    name: 'test List with multiple levels of directories and expect flattened result with current resource version and match=NotOlderThan',
    prefix: '/pods/second/',
    rv: 8,
    match: 'NotOlderThan',
    expect: { items: ['second/bar@1', 'second/foo@1'] },
  },
  { name: 'list all items', prefix: '/pods/', expect: { items: AT_8 } },
  {
    name: 'list all items with current resource version and match=NotOlderThan',
    prefix: '/pods/',
    rv: 8,
    match: 'NotOlderThan',
    expect: { items: AT_8 },
  },
  { name: 'test consistent List', prefix: '/pods/empty', expect: { items: [], revision: 9 } },
  { name: 'test non-consistent List', prefix: '/pods/empty', rv: 'any', expect: { items: [], revisionAtLeast: 0 } },
  {
    name: 'test List with resource version set before first write, match=Exact',
    prefix: '/pods/',
    rv: 0,
    match: 'Exact',
    expect: { error: 'TooOld' },
  },
  ...[
    ['first/bar@1'],
    ['first/bar@1', 'second/bar@1'],
    ['first/bar@1', 'second/bar@1', 'second/foo@1'],
    ['first/bar@1', 'second/bar@1', 'second/foo@1', 'third/barfoo@1'],
    ['first/bar@1', 'second/bar@1', 'second/foo@1', 'third/barfoo@1', 'third/foo@1'],
    ['first/bar@1', 'second/bar@1', 'second/baz@1', 'second/foo@1', 'third/barfoo@1', 'third/foo@1'],
    ['first/bar@2', 'second/bar@1', 'second/baz@1', 'second/foo@1', 'third/barfoo@1', 'third/foo@1'],
    AT_8,
    AT_8,
  ].map(
    (items, i): ListCase => ({
      name: `test List with resource version of write ${i + 1}${i === 8 ? ' (after writes)' : ''}, match=Exact`,
      prefix: '/pods/',
      rv: i + 1,
      match: 'Exact',
      expect: { items, revision: i + 1 },
    }),
  ),
  { name: 'test List with future resource version, match=Exact', prefix: '/pods/', rv: 10, match: 'Exact', expect: { error: 'TooLarge' } },
  {
    name: 'test List with limit, resource version of second write, match=Exact',
    prefix: '/pods/',
    rv: 2,
    match: 'Exact',
    limit: 1,
    expect: { items: ['first/bar@1'], remaining: 1, revision: 2 },
  },
  {
    name: 'test List with limit, resource version of third write, match=Exact',
    prefix: '/pods/',
    rv: 3,
    match: 'Exact',
    limit: 2,
    expect: { items: ['first/bar@1', 'second/bar@1'], remaining: 1, revision: 3 },
  },
  {
    name: 'test List with limit, resource version of fourth write, match=Exact',
    prefix: '/pods/',
    rv: 4,
    match: 'Exact',
    limit: 4,
    expect: { items: ['first/bar@1', 'second/bar@1', 'second/foo@1', 'third/barfoo@1'], revision: 4 },
  },
  {
    name: 'test List with limit, resource version of fifth write, match=Exact',
    prefix: '/pods/',
    rv: 5,
    match: 'Exact',
    limit: 1,
    expect: { items: ['first/bar@1'], remaining: 4, revision: 5 },
  },
  {
    name: 'test List with limit, resource version of six write, match=Exact',
    prefix: '/pods/',
    rv: 6,
    match: 'Exact',
    limit: 2,
    expect: { items: ['first/bar@1', 'second/bar@1'], remaining: 4, revision: 6 },
  },
  {
    name: 'test List with limit, resource version of seventh write, match=Exact',
    prefix: '/pods/',
    rv: 7,
    match: 'Exact',
    limit: 4,
    expect: { items: ['first/bar@2', 'second/bar@1', 'second/baz@1', 'second/foo@1'], remaining: 2, revision: 7 },
  },
  {
    name: 'test List with limit, resource version of eight write, match=Exact',
    prefix: '/pods/',
    rv: 8,
    match: 'Exact',
    limit: 8,
    expect: { items: AT_8, revision: 8 },
  },
  {
    name: 'test List with limit, resource version after writes, match=Exact',
    prefix: '/pods/',
    rv: 9,
    match: 'Exact',
    limit: 1,
    expect: { items: ['first/bar@2'], remaining: 4, revision: 9 },
  },
  {
    name: 'test List with continue, resource version before first write',
    prefix: '/pods/',
    limit: 1,
    continueAfter: { key: '/pods/first/bar', rev: 0 },
    expect: { error: 'ContinueTooOld' },
  },
  {
    name: 'test List with continue, resource version of first write',
    prefix: '/pods/',
    limit: 1,
    continueAfter: { key: '/pods/first/bar', rev: 1 },
    expect: { items: [], revision: 1 },
  },
  {
    name: 'test List with continue, resource version of second write',
    prefix: '/pods/',
    limit: 1,
    continueAfter: { key: '/pods/first/bar', rev: 2 },
    expect: { items: ['second/bar@1'], revision: 2 },
  },
  {
    name: 'test List with continue, resource version of third write',
    prefix: '/pods/',
    limit: 2,
    continueAfter: { key: '/pods/second/bar', rev: 3 },
    expect: { items: ['second/foo@1'], revision: 3 },
  },
  {
    name: 'test List with continue, resource version of fifth write',
    prefix: '/pods/',
    limit: 1,
    continueAfter: { key: '/pods/first/bar', rev: 5 },
    expect: { items: ['second/bar@1'], remaining: 3, revision: 5 },
  },
  {
    name: 'test List with continue, resource version of six write',
    prefix: '/pods/',
    limit: 2,
    continueAfter: { key: '/pods/second/bar', rev: 6 },
    expect: { items: ['second/baz@1', 'second/foo@1'], remaining: 2, revision: 6 },
  },
  {
    name: 'test List with continue, resource version of seventh write',
    prefix: '/pods/',
    limit: 4,
    continueAfter: { key: '/pods/second/foo', rev: 7 },
    expect: { items: ['third/barfoo@1', 'third/foo@1'], revision: 7 },
  },
  {
    name: 'test List with continue, resource version after writes',
    prefix: '/pods/',
    limit: 1,
    continueAfter: { key: '/pods/first/bar', rev: 9 },
    expect: { items: ['second/bar@1'], remaining: 3, revision: 9 },
  },
  {
    name: 'test List with continue from second pod, negative resource version gives consistent read',
    prefix: '/pods/',
    continueAfter: { key: '/pods/first/bar', rev: -1 },
    expect: { items: AT_8.slice(1), revision: 9 },
  },
  {
    name: 'test List with continue from second pod and limit, negative resource version gives consistent read',
    prefix: '/pods/',
    limit: 2,
    continueAfter: { key: '/pods/first/bar', rev: -1 },
    expect: { items: ['second/bar@1', 'second/foo@1'], remaining: 2, revision: 9 },
  },
  {
    name: 'test List with continue from third pod, negative resource version gives consistent read',
    prefix: '/pods/',
    continueAfter: { key: '/pods/second/foo', rev: -1 },
    expect: { items: ['third/barfoo@1', 'third/foo@1'], revision: 9 },
  },
];

/** RunTestGet's cases on the seeded first/bar (created at write 1, updated at write 7); a given version means "not older than". */
const GET_CASES: { name: string; key: string; rv?: Rev; expect: (string | undefined)[] }[] = [
  { name: 'get existing', key: '/pods/first/bar', expect: ['first/bar@2'] },
  { name: 'object created resource version', key: '/pods/first/bar', rv: 1, expect: ['first/bar@1', 'first/bar@2'] },
  { name: 'current object resource version, match=NotOlderThan', key: '/pods/first/bar', rv: 7, expect: ['first/bar@2'] },
  { name: 'latest resource version', key: '/pods/first/bar', rv: 9, expect: ['first/bar@2'] },
  { name: 'too high resource version', key: '/pods/first/bar', rv: 'max', expect: ['StoreFutureRevisionError'] },
  { name: 'get non-existing', key: '/pods/non-existing', expect: [undefined] },
  { name: '(not upstream) get a deleted key', key: '/pods/second/baz', expect: [undefined] },
];
