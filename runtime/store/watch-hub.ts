/**
 * Watch fan-out shared by every in-process backend: the backend publishes each committed write
 * once, the hub copies it into the queue of every watch whose prefix matches. Queues are unbounded
 * arrays read through an async iterator, so a slow reader never blocks the writer or other watches;
 * only its own unread live events pile up, and past `queueLimit` its watch is ended.
 */
import { EventQueue } from './event-queue.js';
import type { Watch, WatchEvent } from './types.js';

export class WatchHub {
  readonly #watches = new Set<QueuedWatch>();

  constructor(private readonly queueLimit: number) {}

  /**
   * A watch on `prefix` that first yields `history`, then every published event under `prefix`.
   * Callers open it in the same synchronous step as they read `history`, so nothing is missed or
   * repeated between the two.
   */
  open(prefix: string, history: readonly WatchEvent[]): Watch {
    const watch = new QueuedWatch(prefix, history, this.queueLimit, () => this.#watches.delete(watch));
    this.#watches.add(watch);
    return watch;
  }

  /**
   * Copies `event` to every watch under its key. A `replayed` event is history the source had
   * before the watch was opened (a cache catching up): like `history`, it does not count against the limit.
   */
  publish(event: WatchEvent, replayed = false): void {
    for (const watch of this.#watches) {
      if (event.key.startsWith(watch.prefix)) watch.push(event, !replayed);
    }
  }

  /** Ends every open watch; with `error`, each iterator yields its queued events, then rejects with it. */
  closeAll(error?: Error): void {
    for (const watch of [...this.#watches]) {
      if (error) watch.fail(error);
      else watch.close();
    }
  }

  /** How many watches are open. */
  get size(): number {
    return this.#watches.size;
  }
}

/** One watch of the hub: its prefix and the reader's queue, replayed history first (not counted against the limit). */
class QueuedWatch extends EventQueue {
  constructor(
    readonly prefix: string,
    history: readonly WatchEvent[],
    queueLimit: number,
    onClose: () => void,
  ) {
    super(queueLimit, onClose);
    for (const event of history) this.push(event, false);
  }
}
