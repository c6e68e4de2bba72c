/**
 * The in-memory backend (tests and `--store memory`): the MVCC log as arrays. Nothing survives the
 * process; otherwise it behaves exactly like the SQLite backend (same LogStore, same suite).
 */
import { compareKeys } from './key-order.js';
import { type LogEntry, LogStore, type RevisionLog } from './log-store.js';
import type { StoreOptions } from './types.js';

export class MemoryStore extends LogStore {
  constructor(options: StoreOptions = {}) {
    super(new MemoryLog(), options);
  }
}

class MemoryLog implements RevisionLog {
  /** Every retained entry, in revision order. */
  #entries: LogEntry[] = [];
  /** Each key's retained entries, in revision order. */
  readonly #byKey = new Map<string, LogEntry[]>();
  /** Keys that have retained entries, in key order. */
  readonly #keys: string[] = [];
  /**
   * Whether a key with a character above U+FFFF was ever stored: until then JavaScript's native
   * comparison is code point order too, and inserting a key compares natively (most of a create's
   * key comparisons are along a long shared prefix).
   */
  #astralKeys = false;
  #current = 0;
  #compacted = 0;

  currentRevision(): number {
    return this.#current;
  }

  compactedRevision(): number {
    return this.#compacted;
  }

  latest(key: string, at: number): LogEntry | undefined {
    const versions = this.#byKey.get(key);
    if (!versions) return undefined;
    // Most reads are of the newest version: no search for it.
    const newest = versions[versions.length - 1]!;
    if (newest.revision <= at) return newest;
    return versions[firstIndex(versions, (e) => e.revision > at) - 1];
  }

  entryAt(revision: number): LogEntry | undefined {
    const entry = this.#entries[firstIndex(this.#entries, (e) => e.revision >= revision)];
    return entry?.revision === revision ? entry : undefined;
  }

  range(prefix: string, at: number, startAfter: string | undefined, limit: number | undefined): LogEntry[] {
    const found: LogEntry[] = [];
    this.#eachLive(prefix, at, startAfter, (entry) => {
      found.push(entry);
      return found.length !== limit;
    });
    return found;
  }

  count(prefix: string, at: number, startAfter: string | undefined): number {
    let n = 0;
    this.#eachLive(prefix, at, startAfter, () => {
      n++;
      return true;
    });
    return n;
  }

  history(prefix: string, after: number): LogEntry[] {
    const from = firstIndex(this.#entries, (e) => e.revision > after);
    return this.#entries.slice(from).filter((e) => e.key.startsWith(prefix));
  }

  transact<T>(fn: () => T): T {
    // Single-threaded and synchronous: nothing can interleave, and a throw appends nothing.
    return fn();
  }

  append(entry: LogEntry): void {
    this.#entries.push(entry);
    const versions = this.#byKey.get(entry.key);
    if (versions) {
      versions.push(entry);
    } else {
      this.#byKey.set(entry.key, [entry]);
      const key = entry.key;
      if (!this.#astralKeys && ASTRAL.test(key)) this.#astralKeys = true;
      const at = this.#astralKeys ? firstIndex(this.#keys, (k) => compareKeys(k, key) > 0) : firstIndex(this.#keys, (k) => k > key);
      this.#keys.splice(at, 0, key);
    }
    this.#current = entry.revision;
  }

  revisionWrittenBy(time: number): number {
    return this.#entries[firstIndex(this.#entries, (e) => e.createdAt > time) - 1]?.revision ?? 0;
  }

  compactTo(revision: number): void {
    const dropped = new Set<LogEntry>();
    for (const [key, versions] of this.#byKey) {
      const newestIndex = firstIndex(versions, (e) => e.revision > revision) - 1;
      const newest = versions[newestIndex];
      if (newest === undefined) continue;
      // Superseded entries go, and so does a tombstone before `revision`: the key is absent there either way.
      const dropCount = newest.deleted && newest.revision < revision ? newestIndex + 1 : newestIndex;
      if (dropCount === 0) continue;
      for (const entry of versions.splice(0, dropCount)) dropped.add(entry);
      if (versions.length === 0) {
        this.#byKey.delete(key);
        this.#keys.splice(
          firstIndex(this.#keys, (k) => compareKeys(k, key) >= 0),
          1,
        );
      }
    }
    this.#entries = this.#entries.filter((e) => !dropped.has(e));
    this.#compacted = revision;
  }

  close(): void {
    this.#entries = [];
    this.#byKey.clear();
    this.#keys.length = 0;
  }

  /**
   * Calls `visit` with the newest live entry of each key under `prefix` after `startAfter`, at
   * revision `at`, in key order, until it returns false (a loop, not a generator: a page of 500
   * made 500 generator steps).
   */
  #eachLive(prefix: string, at: number, startAfter: string | undefined, visit: (entry: LogEntry) => boolean): void {
    const after = startAfter !== undefined && compareKeys(startAfter, prefix) >= 0 ? startAfter : undefined;
    let i =
      after === undefined
        ? firstIndex(this.#keys, (k) => compareKeys(k, prefix) >= 0)
        : firstIndex(this.#keys, (k) => compareKeys(k, after) > 0);
    for (; i < this.#keys.length; i++) {
      const key = this.#keys[i] as string;
      if (!key.startsWith(prefix)) return;
      const entry = this.latest(key, at);
      if (entry && !entry.deleted && !visit(entry)) return;
    }
  }
}

/** A surrogate code unit: a character above U+FFFF (keys hold no lone ones: assertValidKey). */
const ASTRAL = /[\uD800-\uDFFF]/;

/** The first index whose item satisfies `isPast` (a predicate false then true along the array); length when none. */
function firstIndex<T>(items: readonly T[], isPast: (item: T) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isPast(items[mid] as T)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
