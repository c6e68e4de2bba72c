/**
 * The Store contract implemented once over a synchronous MVCC log. A backend (memory, SQLite)
 * only supplies the log: append an entry, read the newest entry per key at a revision, replay
 * entries after a revision, drop superseded ones. Everything else (conditions, revision checks,
 * events, watches, compaction schedule, closing) lives here, so the backends cannot drift apart.
 *
 * Writes run synchronously from the check to the fan-out, so in one process they are serialized
 * and every watch sees each commit exactly once, right after it is durable.
 */
import {
  StoreClosedError,
  StoreConflictError,
  StoreExpiredError,
  StoreFutureRevisionError,
  StoreKeyExistsError,
  StoreNotFoundError,
} from './errors.js';
import { assertValidKey } from './key-order.js';
import type { KeyValue, ListOptions, ListResult, Store, StoreOptions, Watch, WatchEvent, WriteOptions } from './types.js';
import { WatchHub } from './watch-hub.js';

/** One row of the log: a write of `key` at `revision`. */
export interface LogEntry {
  key: string;
  revision: number;
  createRevision: number;
  /** The revision of the key's previous entry; 0 when there is none. */
  prevRevision: number;
  /** The value written; for a tombstone, the last value before the delete. */
  value: string;
  deleted: boolean;
  /** When the entry was written (ms since the epoch; never decreases along the log). */
  createdAt: number;
}

/** What a write stores, decided from the key's current entry inside the transaction. */
type Decide = (current: LogEntry | undefined, revision: number) => Pick<LogEntry, 'value' | 'deleted' | 'createRevision'>;

/** A write waiting for the next group commit. */
interface PendingWrite {
  key: string;
  decide: Decide;
  resolve(kv: KeyValue): void;
  reject(error: unknown): void;
}

/** The synchronous primitives a backend supplies. */
export interface RevisionLog {
  /** The revision of the newest entry (0 when empty). */
  currentRevision(): number;
  compactedRevision(): number;
  /** The newest entry of `key` with revision <= `at`, tombstones included. */
  latest(key: string, at: number): LogEntry | undefined;
  /** The entry written at `revision`, when retained. */
  entryAt(revision: number): LogEntry | undefined;
  /**
   * The newest entry per key under `prefix` at revision `at` that is not a tombstone, for keys
   * greater than `startAfter`, in key order, at most `limit`.
   */
  range(prefix: string, at: number, startAfter: string | undefined, limit: number | undefined): LogEntry[];
  /** How many keys `range` would return without a limit. */
  count(prefix: string, at: number, startAfter: string | undefined): number;
  /** Entries under `prefix` with revision greater than `after`, in revision order. */
  history(prefix: string, after: number): LogEntry[];
  /** Runs `fn` atomically: all of its appends commit durably together, or none does. */
  transact<T>(fn: () => T): T;
  append(entry: LogEntry): void;
  /** The newest revision written at or before `time`; 0 when none. */
  revisionWrittenBy(time: number): number;
  /**
   * Drops every entry superseded by another entry of its key at or before `revision`, and
   * tombstones before it, then records `revision` as the compacted revision.
   */
  compactTo(revision: number): void;
  close(): void;
}

const DEFAULT_HISTORY_WINDOW_MS = 5 * 60_000;
const DEFAULT_COMPACTION_INTERVAL_MS = 60_000;
const DEFAULT_WATCH_QUEUE_LIMIT = 10_000;

interface RevisionWaiter {
  revision: number;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class LogStore implements Store {
  readonly #log: RevisionLog;
  readonly #hub: WatchHub;
  readonly #now: () => number;
  readonly #historyWindowMs: number;
  readonly #compactionTimer: NodeJS.Timeout | undefined;
  #revisionWaiters: RevisionWaiter[] = [];
  #pending: PendingWrite[] = [];
  #lastWrittenAt: number;
  #closed = false;

  constructor(log: RevisionLog, options: StoreOptions = {}) {
    this.#log = log;
    this.#now = options.now ?? Date.now;
    this.#historyWindowMs = options.historyWindowMs ?? DEFAULT_HISTORY_WINDOW_MS;
    this.#hub = new WatchHub(options.watchQueueLimit ?? DEFAULT_WATCH_QUEUE_LIMIT);
    this.#lastWrittenAt = log.entryAt(log.currentRevision())?.createdAt ?? 0;
    const interval = options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
    if (interval > 0) {
      this.#compactionTimer = setInterval(() => this.#compactInBackground(), interval);
      // Housekeeping must not keep the process alive.
      this.#compactionTimer.unref();
    }
  }

  async currentRevision(): Promise<number> {
    this.#assertOpen();
    return this.#log.currentRevision();
  }

  async compactedRevision(): Promise<number> {
    this.#assertOpen();
    return this.#log.compactedRevision();
  }

  async get(key: string, options: { revision?: number } = {}): Promise<KeyValue | undefined> {
    const at = this.#readableRevision(options.revision);
    const entry = this.#log.latest(key, at);
    return entry && !entry.deleted ? keyValueOf(entry) : undefined;
  }

  readonly getNow = (key: string): KeyValue | undefined => {
    const entry = this.#log.latest(key, this.#readableRevision(undefined));
    return entry && !entry.deleted ? keyValueOf(entry) : undefined;
  };

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const at = this.#readableRevision(options.revision);
    const { limit } = options;
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
      throw new RangeError(`list limit must be a positive integer, got ${limit}`);
    }
    // One entry past the limit says whether more follow without counting them.
    const entries = this.#log.range(prefix, at, options.startAfter, limit === undefined ? undefined : limit + 1);
    const more = limit !== undefined && entries.length > limit;
    if (more) entries.length = limit;
    const items = entries.map(keyValueOf);
    if (options.countRemaining === false) return { items, revision: at, more };
    const remaining = more ? this.#log.count(prefix, at, entries[limit - 1]!.key) : 0;
    return { items, revision: at, more, remaining };
  }

  async count(prefix: string): Promise<number> {
    const at = this.#readableRevision(undefined);
    return this.#log.count(prefix, at, undefined);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    assertValidKey(key);
    return this.#write(key, (current, revision) => {
      if (current && !current.deleted) throw new StoreKeyExistsError(key);
      return { value, deleted: false, createRevision: revision };
    });
  }

  async update(key: string, value: string, options: WriteOptions = {}): Promise<KeyValue> {
    return this.#write(key, (current) => {
      const existing = requireCurrent(key, current, options);
      return { value, deleted: false, createRevision: existing.createRevision };
    });
  }

  async delete(key: string, options: WriteOptions = {}): Promise<KeyValue> {
    return this.#write(key, (current) => {
      const existing = requireCurrent(key, current, options);
      return { value: existing.value, deleted: true, createRevision: existing.createRevision };
    });
  }

  watch(prefix: string, fromRevision: number): Watch {
    this.#assertOpen();
    this.#checkRevision(fromRevision);
    // History read and registration happen in one synchronous step: no write can fall between.
    const history = this.#log.history(prefix, fromRevision).map((entry) => this.#eventOf(entry));
    return this.#hub.open(prefix, history);
  }

  async waitForRevision(revision: number, timeoutMs: number): Promise<void> {
    this.#assertOpen();
    assertRevision(revision);
    if (revision <= this.#log.currentRevision()) return;
    return new Promise<void>((resolve, reject) => {
      const waiter: RevisionWaiter = {
        revision,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#revisionWaiters = this.#revisionWaiters.filter((w) => w !== waiter);
          reject(new StoreFutureRevisionError(revision, this.#log.currentRevision()));
        }, timeoutMs),
      };
      this.#revisionWaiters.push(waiter);
    });
  }

  async compact(): Promise<void> {
    this.#assertOpen();
    this.#compactNow();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    // Writes already issued commit before the store closes.
    if (this.#pending.length > 0) this.#commitPending();
    this.#closed = true;
    clearInterval(this.#compactionTimer);
    this.#hub.closeAll();
    for (const waiter of this.#revisionWaiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new StoreClosedError());
    }
    this.#log.close();
  }

  /**
   * The write path of create, update and delete. Writes that arrive in the same turn of the event
   * loop commit together (group commit): one durable transaction, one sync, for all of them; each
   * still checks its own condition and gets its own revision, in arrival order, and its promise
   * resolves only after the commit.
   */
  #write(key: string, decide: Decide): Promise<KeyValue> {
    this.#assertOpen();
    return new Promise<KeyValue>((resolve, reject) => {
      this.#pending.push({ key, decide, resolve, reject });
      if (this.#pending.length === 1) setImmediate(() => this.#commitPending());
    });
  }

  #commitPending(): void {
    const batch = this.#pending;
    this.#pending = [];
    if (this.#closed) {
      for (const w of batch) w.reject(new StoreClosedError());
      return;
    }
    const outcomes: ({ entry: LogEntry; previous: LogEntry | undefined } | { error: unknown })[] = [];
    try {
      this.#log.transact(() => {
        outcomes.length = 0;
        for (const w of batch) {
          const revision = this.#log.currentRevision() + 1;
          const previous = this.#log.latest(w.key, revision - 1);
          let decided: ReturnType<Decide>;
          try {
            decided = w.decide(previous, revision);
          } catch (error) {
            // A failed condition fails that write alone; the others of the batch commit.
            outcomes.push({ error });
            continue;
          }
          const entry: LogEntry = {
            key: w.key,
            revision,
            prevRevision: previous?.revision ?? 0,
            // A clock that steps back must not reorder the log's times (compaction relies on it).
            createdAt: Math.max(this.#now(), this.#lastWrittenAt),
            ...decided,
          };
          this.#log.append(entry);
          outcomes.push({ entry, previous });
        }
      });
    } catch (error) {
      for (const w of batch) w.reject(error);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) return w.reject(outcome.error);
      this.#lastWrittenAt = outcome.entry.createdAt;
      this.#hub.publish(this.#eventOf(outcome.entry, outcome.previous));
      this.#wakeRevisionWaiters(outcome.entry.revision);
      // For a delete this is the last value (a tombstone keeps it) at the delete's revision.
      w.resolve(keyValueOf(outcome.entry));
    });
  }

  /** The event of `entry`; `previous` is the key's entry before it when the caller has it at hand. */
  #eventOf(entry: LogEntry, previous?: LogEntry): WatchEvent {
    const type = entry.deleted ? 'delete' : entry.revision === entry.createRevision ? 'create' : 'update';
    const event: WatchEvent = {
      type,
      key: entry.key,
      revision: entry.revision,
      value: entry.value,
      createRevision: entry.createRevision,
    };
    if (type === 'delete') {
      // A tombstone holds the last value itself.
      event.prevValue = entry.value;
      event.prevModRevision = entry.prevRevision;
    } else if (type === 'update') {
      // Compaction keeps an update's predecessor for as long as the update itself is replayable.
      const before = previous ?? this.#log.entryAt(entry.prevRevision);
      if (before) {
        event.prevValue = before.value;
        event.prevModRevision = before.revision;
      }
    }
    return event;
  }

  #readableRevision(revision: number | undefined): number {
    this.#assertOpen();
    if (revision === undefined) return this.#log.currentRevision();
    this.#checkRevision(revision);
    return revision;
  }

  #checkRevision(revision: number): void {
    assertRevision(revision);
    const current = this.#log.currentRevision();
    if (revision > current) throw new StoreFutureRevisionError(revision, current);
    const compacted = this.#log.compactedRevision();
    if (revision < compacted) throw new StoreExpiredError(revision, compacted);
  }

  #compactNow(): void {
    const target = this.#log.revisionWrittenBy(this.#now() - this.#historyWindowMs);
    if (target > this.#log.compactedRevision()) this.#log.compactTo(target);
  }

  #compactInBackground(): void {
    if (this.#closed) return;
    try {
      this.#compactNow();
    } catch (error) {
      process.emitWarning(`store compaction failed: ${String(error)}`, 'StoreCompactionWarning');
    }
  }

  #wakeRevisionWaiters(revision: number): void {
    if (this.#revisionWaiters.length === 0) return;
    const ready = this.#revisionWaiters.filter((w) => w.revision <= revision);
    this.#revisionWaiters = this.#revisionWaiters.filter((w) => w.revision > revision);
    for (const waiter of ready) {
      clearTimeout(waiter.timer);
      waiter.resolve();
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreClosedError();
  }
}

function keyValueOf(entry: LogEntry): KeyValue {
  return {
    key: entry.key,
    value: entry.value,
    modRevision: entry.revision,
    createRevision: entry.createRevision,
  };
}

function requireCurrent(key: string, current: LogEntry | undefined, options: WriteOptions): LogEntry {
  if (!current || current.deleted) throw new StoreNotFoundError(key);
  const expected = options.expectedModRevision;
  if (expected !== undefined && expected !== current.revision) {
    throw new StoreConflictError(key, expected, current.revision);
  }
  return current;
}

function assertRevision(revision: number): void {
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw new RangeError(`revision must be a non-negative integer, got ${revision}`);
  }
}
