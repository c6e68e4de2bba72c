/**
 * Keys in order, held as a list of sorted chunks of at most a few hundred: inserting or removing
 * one moves a chunk's worth of keys, not the whole collection's (a sorted array made every create
 * in a namespace of 100,000 objects move 50,000 of them). Positions are found with a predicate
 * that is false and then true along the keys, so the caller decides the order (the memory store's
 * is code point order, compared natively until a key needs otherwise).
 */

/** Where a key is or would go: a chunk and an index in it (`index` may be the chunk's length only in the last chunk). */
export interface KeyPosition {
  chunk: number;
  index: number;
}

export class SortedKeys {
  readonly #chunks: string[][] = [];
  readonly #chunkSize: number;
  #size = 0;

  constructor(chunkSize = 512) {
    this.#chunkSize = chunkSize;
  }

  get size(): number {
    return this.#size;
  }

  /** The position of the first key `isPast` holds for (false then true along the keys); after the last key when none. */
  find(isPast: (key: string) => boolean): KeyPosition {
    const chunks = this.#chunks;
    // The first chunk whose last key is past holds the first key past.
    let lo = 0;
    let hi = chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const keys = chunks[mid]!;
      if (isPast(keys[keys.length - 1]!)) hi = mid;
      else lo = mid + 1;
    }
    if (lo === chunks.length) return lo === 0 ? { chunk: 0, index: 0 } : { chunk: lo - 1, index: chunks[lo - 1]!.length };
    const keys = chunks[lo]!;
    let a = 0;
    let b = keys.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (isPast(keys[mid]!)) b = mid;
      else a = mid + 1;
    }
    return { chunk: lo, index: a };
  }

  /** The key at `at`; undefined past the last. */
  at(at: KeyPosition): string | undefined {
    return this.#chunks[at.chunk]?.[at.index];
  }

  /** How many keys come before `at`. */
  rank(at: KeyPosition): number {
    let n = at.index;
    for (let c = 0; c < at.chunk; c++) n += this.#chunks[c]!.length;
    return n;
  }

  /** Inserts `key` at `at` (found with a predicate that keeps the order). */
  insertAt(at: KeyPosition, key: string): void {
    this.#size++;
    const keys = this.#chunks[at.chunk];
    if (keys === undefined) {
      this.#chunks.push([key]);
      return;
    }
    keys.splice(at.index, 0, key);
    if (keys.length > this.#chunkSize) this.#chunks.splice(at.chunk + 1, 0, keys.splice(keys.length >>> 1));
  }

  removeAt(at: KeyPosition): void {
    const keys = this.#chunks[at.chunk];
    if (keys === undefined || at.index >= keys.length) return;
    this.#size--;
    keys.splice(at.index, 1);
    if (keys.length === 0) this.#chunks.splice(at.chunk, 1);
  }

  /** Calls `visit` with each key from `from` on, in order, until it returns false. */
  forEachFrom(from: KeyPosition, visit: (key: string) => boolean): void {
    const chunks = this.#chunks;
    for (let c = from.chunk, i = from.index; c < chunks.length; c++, i = 0) {
      const keys = chunks[c]!;
      for (; i < keys.length; i++) if (!visit(keys[i]!)) return;
    }
  }

  clear(): void {
    this.#chunks.length = 0;
    this.#size = 0;
  }
}
