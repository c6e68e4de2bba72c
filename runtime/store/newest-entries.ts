/**
 * The newest entry of recently used keys, the least recently used dropped first once their values
 * pass a size: what a store that is the sole writer of its log may answer a read of the current
 * revision from without reading a row. It holds what its owner tells it; the owner decides when an
 * entry is the key's newest (see SqliteLog).
 *
 * Recency is kept as CLOCK does (a second chance): a read only marks its entry, and eviction takes
 * entries from the front of a queue, sending marked ones to the back. The queue is an array with
 * a moving head, not the Map's own order: a Map iterated from its start after many deletions walks
 * their holes, which made every insertion into a full cache cost the whole cache.
 */
import type { LogEntry } from './log-store.js';

interface Slot {
  readonly entry: LogEntry;
  /** Read since the eviction sweep last passed it. */
  used: boolean;
  /** Still the key's slot (a replaced or deleted one stays in the queue until the sweep or a compaction drops it). */
  live: boolean;
}

export class NewestEntries {
  readonly #slots = new Map<string, Slot>();
  /** Oldest first from `#head`; holds dead slots too, compacted when they outnumber the live ones. */
  #queue: Slot[] = [];
  #head = 0;
  readonly #capacityChars: number;
  /** The live values' size (UTF-16 code units: near enough to bytes for a cap). */
  #chars = 0;

  constructor(capacityChars: number) {
    this.#capacityChars = capacityChars;
  }

  get(key: string): LogEntry | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    slot.used = true;
    return slot.entry;
  }

  set(entry: LogEntry): void {
    this.delete(entry.key);
    // A value larger than the whole cache would only push everything else out.
    if (entry.value.length > this.#capacityChars) return;
    const slot: Slot = { entry, used: false, live: true };
    this.#slots.set(entry.key, slot);
    this.#queue.push(slot);
    this.#chars += entry.value.length;
    while (this.#chars > this.#capacityChars) {
      const oldest = this.#queue[this.#head++]!;
      if (!oldest.live) continue;
      if (oldest.used) {
        oldest.used = false;
        this.#queue.push(oldest);
      } else this.#drop(oldest);
    }
    if (this.#queue.length - this.#head > 2 * this.#slots.size + 64 || this.#head > this.#queue.length >>> 1) this.#compact();
  }

  delete(key: string): void {
    const slot = this.#slots.get(key);
    if (slot !== undefined) this.#drop(slot);
  }

  get size(): number {
    return this.#slots.size;
  }

  #drop(slot: Slot): void {
    slot.live = false;
    this.#slots.delete(slot.entry.key);
    this.#chars -= slot.entry.value.length;
  }

  #compact(): void {
    const queue: Slot[] = [];
    for (let i = this.#head; i < this.#queue.length; i++) if (this.#queue[i]!.live) queue.push(this.#queue[i]!);
    this.#queue = queue;
    this.#head = 0;
  }
}
