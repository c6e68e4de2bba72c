import type { Watch, WatchEvent } from './types.js';

type Waiter = { resolve(result: IteratorResult<WatchEvent, undefined>): void; reject(error: Error): void };

const DONE: IteratorResult<WatchEvent, undefined> = { done: true, value: undefined };

/**
 * The reader's side of a store watch: a FIFO of events plus the readers waiting for the next one.
 * Only events pushed as `counted` (live ones, not replayed history) count against `queueLimit`;
 * a reader that falls that far behind has its watch closed, as upstream drops slow watchers.
 * Failing ends the stream after the events already queued, with the error.
 */
export class EventQueue implements Watch {
  #buffer: { event: WatchEvent; counted: boolean }[] = [];
  #head = 0;
  #unreadCounted = 0;
  #waiters: Waiter[] = [];
  #closed = false;
  #error: Error | undefined;

  /** `onStop` runs once, when the stream ends (closed by the reader, overflowed or failed). */
  constructor(
    private readonly queueLimit: number,
    private readonly onStop: () => void,
  ) {}

  get closed(): boolean {
    return this.#closed;
  }

  push(event: WatchEvent, counted: boolean): void {
    if (this.#closed) return;
    const waiter = this.#waiters.shift();
    if (waiter) return waiter.resolve({ done: false, value: event });
    if (counted && this.#unreadCounted >= this.queueLimit) return this.close();
    this.#buffer.push({ event, counted });
    if (counted) this.#unreadCounted++;
  }

  next(): Promise<IteratorResult<WatchEvent, undefined>> {
    if (this.#head < this.#buffer.length) {
      const item = this.#buffer[this.#head]!;
      this.#head++;
      if (item.counted) this.#unreadCounted--;
      // Shift the array only now and then, so reading stays O(1) per event.
      if (this.#head >= 1024 && this.#head * 2 >= this.#buffer.length) {
        this.#buffer = this.#buffer.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ done: false, value: item.event });
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
    this.#unreadCounted = 0;
    this.#error = undefined;
    this.#stop();
  }

  /** Ends the stream with `error` after the events already queued (the source of events failed). */
  fail(error: Error): void {
    if (this.#closed) return;
    const waiter = this.#waiters.shift();
    if (waiter) waiter.reject(error);
    else this.#error = error;
    this.#stop();
  }

  #stop(): void {
    this.#closed = true;
    // Readers wait only on an empty queue, so whoever still waits has reached the end.
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(DONE);
    this.onStop();
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
}
