/**
 * Watch fan-out shared by every in-process backend: the backend publishes each committed write
 * once, the hub copies it into the queue of every watch whose prefix matches. Queues are unbounded
 * arrays read through an async iterator, so a slow reader never blocks the writer or other watches;
 * only its own unread live events pile up, and past `queueLimit` its watch is ended.
 */
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
      if (event.key.startsWith(watch.prefix)) watch.push(event, replayed);
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

type Waiter = { resolve(result: IteratorResult<WatchEvent, undefined>): void; reject(error: Error): void };

const DONE: IteratorResult<WatchEvent, undefined> = { done: true, value: undefined };

/** One watch: a FIFO of events plus the readers waiting for the next one. */
class QueuedWatch implements Watch {
  #buffer: WatchEvent[];
  #head = 0;
  #waiters: Waiter[] = [];
  #closed = false;
  #error: Error | undefined;
  // Replayed history does not count against the limit: only live events the reader has not caught up with.
  #historyLeft: number;

  constructor(
    readonly prefix: string,
    history: readonly WatchEvent[],
    private readonly queueLimit: number,
    private readonly onClose: () => void,
  ) {
    this.#buffer = [...history];
    this.#historyLeft = history.length;
  }

  push(event: WatchEvent, replayed: boolean): void {
    if (this.#closed) return;
    const waiter = this.#waiters.shift();
    if (waiter) {
      waiter.resolve({ done: false, value: event });
      return;
    }
    if (replayed) {
      // Replayed events come before live ones, so they extend the history at the queue's front.
      this.#buffer.push(event);
      this.#historyLeft++;
      return;
    }
    const unreadLive = this.#buffer.length - this.#head - this.#historyLeft;
    if (unreadLive >= this.queueLimit) {
      this.close();
      return;
    }
    this.#buffer.push(event);
  }

  next(): Promise<IteratorResult<WatchEvent, undefined>> {
    if (this.#head < this.#buffer.length) {
      const value = this.#buffer[this.#head] as WatchEvent;
      this.#head++;
      if (this.#historyLeft > 0) this.#historyLeft--;
      this.#dropConsumed();
      return Promise.resolve({ done: false, value });
    }
    if (this.#error) {
      const error = this.#error;
      this.#error = undefined;
      return Promise.reject(error);
    }
    if (this.#closed) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  close(): void {
    if (this.#closed) return;
    this.#buffer = [];
    this.#head = 0;
    this.#historyLeft = 0;
    this.#error = undefined;
    this.#stop();
  }

  /** Ends the watch with `error` after the events already queued (the source of events failed). */
  fail(error: Error): void {
    if (this.#closed) return;
    const waiter = this.#waiters.shift();
    if (waiter) waiter.reject(error);
    else this.#error = error;
    this.#stop();
  }

  #stop(): void {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(DONE);
    this.onClose();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent, undefined> {
    return {
      next: () => this.next(),
      // Leaving a for-await loop ends the watch.
      return: () => {
        this.close();
        return Promise.resolve(DONE);
      },
    };
  }

  // Shift the array only now and then, so reading stays O(1) per event.
  #dropConsumed(): void {
    if (this.#head >= 1024 && this.#head * 2 >= this.#buffer.length) {
      this.#buffer = this.#buffer.slice(this.#head);
      this.#head = 0;
    }
  }
}
