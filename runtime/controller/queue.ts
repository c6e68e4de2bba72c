/**
 * client-go's work queue (util/workqueue queue.go and delaying_queue.go): an item is queued at
 * most once however often it is added (the dirty set), is handed to one worker at a time (the
 * processing set), and an item added while it is processed is queued again when `done` is
 * called, once. `addAfter` adds an item once a delay of the injected clock has passed.
 */
import { type Clock, systemClock } from './clock.js';

/** An item of a queue: compared as Map keys are (strings, numbers, object identity). */
export type QueueItem = NonNullable<unknown>;

export interface WorkQueueOptions {
  clock?: Clock;
}

export class WorkQueue<T extends QueueItem> {
  protected readonly clock: Clock;
  /** The order in which items are handed out (from `#head` on); each is dirty and not being processed. */
  #queue: T[] = [];
  #head = 0;
  /** Items that need processing (queued, or added again while processed). */
  readonly #dirty = new Set<T>();
  readonly #processing = new Set<T>();
  /** Items waiting for `addAfter`'s delay: when they are due, and the timer's cancel. */
  readonly #waiting = new Map<T, { readyAt: number; cancel: () => void }>();
  readonly #getters: ((item: T | undefined) => void)[] = [];
  readonly #drained: (() => void)[] = [];
  #shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.clock = options.clock ?? systemClock;
  }

  /** Marks `item` as needing processing; ignored once shutting down. */
  add(item: T): void {
    if (this.#shuttingDown || this.#dirty.has(item)) return;
    this.#dirty.add(item);
    if (this.#processing.has(item)) return;
    this.#queue.push(item);
    this.#handOut();
  }

  /**
   * Adds `item` once `ms` have passed. An item already waiting keeps the earlier of its two due
   * times (client-go's delaying queue); ignored once shutting down.
   */
  addAfter(item: T, ms: number): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) return this.add(item);
    const readyAt = this.clock.now() + ms;
    const waiting = this.#waiting.get(item);
    if (waiting && waiting.readyAt <= readyAt) return;
    waiting?.cancel();
    const cancel = this.clock.setTimer(ms, () => {
      this.#waiting.delete(item);
      this.add(item);
    });
    this.#waiting.set(item, { readyAt, cancel });
  }

  /**
   * The next item to process, waiting for one; `undefined` once the queue is shut down and empty
   * (queued items are still handed out after `shutDown`). Call `done(item)` when finished with it.
   */
  get(): Promise<T | undefined> {
    return new Promise((resolve) => {
      this.#getters.push(resolve);
      this.#handOut();
    });
  }

  /** Marks `item` processed; if it was added meanwhile, it is queued again. */
  done(item: T): void {
    this.#processing.delete(item);
    if (this.#dirty.has(item)) {
      this.#queue.push(item);
      this.#handOut();
    }
    this.#checkDrained();
  }

  /** How many items are queued (not those being processed or waiting for a delay). */
  len(): number {
    return this.#queue.length - this.#head;
  }

  /** Whether `item` is being processed now. */
  isProcessing(item: T): boolean {
    return this.#processing.has(item);
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Ignores new items from now on and drops those waiting for a delay; workers still get what is
   * queued, then `undefined`.
   */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const { cancel } of this.#waiting.values()) cancel();
    this.#waiting.clear();
    this.#handOut();
  }

  /** `shutDown`, then resolves once every queued item has been processed and marked done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    return new Promise((resolve) => {
      this.#drained.push(resolve);
      this.#checkDrained();
    });
  }

  #handOut(): void {
    while (this.#getters.length > 0 && this.len() > 0) {
      const item = this.#take();
      this.#processing.add(item);
      this.#dirty.delete(item);
      this.#getters.shift()!(item);
    }
    if (this.#shuttingDown && this.len() === 0) for (const resolve of this.#getters.splice(0)) resolve(undefined);
  }

  /** The first queued item; `Array.shift` would copy the rest each time, quadratic in a long queue. */
  #take(): T {
    const item = this.#queue[this.#head++]!;
    if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  #checkDrained(): void {
    if (!this.#shuttingDown || this.len() > 0 || this.#processing.size > 0) return;
    for (const resolve of this.#drained.splice(0)) resolve();
  }
}
