/**
 * The in-memory backend (tests and `--store memory`): the MVCC log as arrays. Nothing survives the
 * process; otherwise it behaves exactly like the SQLite backend (same LogStore, same suite).
 */
import { compareKeys } from './key-order.js';
import { type LogEntry, LogStore, type RevisionLog } from './log-store.js';
import { type KeyPosition, SortedKeys } from './sorted-keys.js';
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
  readonly #keys = new SortedKeys();
  /**
   * The keys of `#keys` whose newest entry is a tombstone, in key order (few: compaction drops
   * them): a count at the current revision is the keys in range less these, two searches each.
   */
  readonly #deadKeys = new SortedKeys();
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
    if (at === this.#current) return this.#keysIn(this.#keys, prefix, startAfter) - this.#keysIn(this.#deadKeys, prefix, startAfter);
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
    const { key } = entry;
    this.#entries.push(entry);
    const versions = this.#byKey.get(key);
    const wasDead = versions !== undefined && versions[versions.length - 1]!.deleted;
    if (versions) {
      versions.push(entry);
    } else {
      this.#byKey.set(key, [entry]);
      if (!this.#astralKeys && ASTRAL.test(key)) this.#astralKeys = true;
      this.#keys.insertAt(this.#firstAfter(this.#keys, key), key);
    }
    if (entry.deleted && !wasDead) this.#deadKeys.insertAt(this.#firstAfter(this.#deadKeys, key), key);
    else if (!entry.deleted && wasDead) this.#dropKey(this.#deadKeys, key);
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
        // Only a tombstone's key loses every entry.
        this.#byKey.delete(key);
        this.#dropKey(this.#keys, key);
        this.#dropKey(this.#deadKeys, key);
      }
    }
    this.#entries = this.#entries.filter((e) => !dropped.has(e));
    this.#compacted = revision;
  }

  close(): void {
    this.#entries = [];
    this.#byKey.clear();
    this.#keys.clear();
    this.#deadKeys.clear();
  }

  /** Where `key` goes in `keys`: after every key that sorts at or before it. */
  #firstAfter(keys: SortedKeys, key: string): KeyPosition {
    const order = this.#orderWith(key);
    return keys.find((k) => order(k, key) > 0);
  }

  /** The position of the first key that sorts at or after `key`. */
  #firstAt(keys: SortedKeys, key: string): KeyPosition {
    const order = this.#orderWith(key);
    return keys.find((k) => order(k, key) >= 0);
  }

  #dropKey(keys: SortedKeys, key: string): void {
    const at = this.#firstAt(keys, key);
    if (keys.at(at) === key) keys.removeAt(at);
  }

  /** Where the keys under `prefix` after `startAfter` begin. */
  #startOf(keys: SortedKeys, prefix: string, startAfter: string | undefined): KeyPosition {
    const after = startAfter !== undefined && compareKeys(startAfter, prefix) >= 0;
    return after ? this.#firstAfter(keys, startAfter) : this.#firstAt(keys, prefix);
  }

  /** How many of `keys` start with `prefix` and sort after `startAfter`. */
  #keysIn(keys: SortedKeys, prefix: string, startAfter: string | undefined): number {
    const from = keys.rank(this.#startOf(keys, prefix, startAfter));
    // The keys under a prefix are contiguous in any lexicographic order.
    const order = this.#orderWith(prefix);
    const to = keys.rank(keys.find((k) => !k.startsWith(prefix) && order(k, prefix) > 0));
    return Math.max(0, to - from);
  }

  /**
   * The order to compare stored keys with `probe` in: JavaScript's own while neither holds a
   * character above U+FFFF (it is code point order then), `compareKeys` otherwise.
   */
  #orderWith(probe: string): (a: string, b: string) => number {
    return this.#astralKeys || ASTRAL.test(probe) ? compareKeys : nativeOrder;
  }

  /**
   * Calls `visit` with the newest live entry of each key under `prefix` after `startAfter`, at
   * revision `at`, in key order, until it returns false (a loop, not a generator: a page of 500
   * made 500 generator steps).
   */
  #eachLive(prefix: string, at: number, startAfter: string | undefined, visit: (entry: LogEntry) => boolean): void {
    this.#keys.forEachFrom(this.#startOf(this.#keys, prefix, startAfter), (key) => {
      if (!key.startsWith(prefix)) return false;
      const entry = this.latest(key, at);
      return !entry || entry.deleted || visit(entry);
    });
  }
}

function nativeOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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
