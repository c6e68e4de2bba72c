/**
 * The newest entry of recently used keys, the least recently used dropped first once their values
 * pass a size: what a store that is the sole writer of its log may answer a read of the current
 * revision from without reading a row. It holds what its owner tells it; the owner decides when an
 * entry is the key's newest (see SqliteLog).
 *
 * Recency is kept as CLOCK does (a second chance): a read only marks its entry, and eviction
 * moves marked entries to the back instead of dropping them, so a hit changes no map.
 */
import type { LogEntry } from './log-store.js';

interface Slot {
  entry: LogEntry;
  /** Read since the eviction sweep last passed it. */
  used: boolean;
}

export class NewestEntries {
  /** Oldest first (a Map iterates in insertion order). */
  readonly #slots = new Map<string, Slot>();
  readonly #capacityChars: number;
  /** The values' size (UTF-16 code units: near enough to bytes for a cap). */
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
    this.#slots.set(entry.key, { entry, used: false });
    this.#chars += entry.value.length;
    for (const [key, slot] of this.#slots) {
      if (this.#chars <= this.#capacityChars) break;
      this.#slots.delete(key);
      if (slot.used) {
        slot.used = false;
        this.#slots.set(key, slot);
      } else this.#chars -= slot.entry.value.length;
    }
  }

  delete(key: string): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    this.#slots.delete(key);
    this.#chars -= slot.entry.value.length;
  }

  get size(): number {
    return this.#slots.size;
  }
}
