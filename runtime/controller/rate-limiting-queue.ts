import type { Clock } from './clock.js';
import { type QueueItem, WorkQueue } from './queue.js';
import { type RateLimiter, defaultControllerRateLimiter } from './rate-limiter.js';

export interface RateLimitingQueueOptions<T> {
  /** Default: client-go's controller rate limiter ({@link defaultControllerRateLimiter}). */
  rateLimiter?: RateLimiter<T>;
  clock?: Clock;
}

/** A work queue whose retries wait as a rate limiter says (client-go's rate_limiting_queue.go). */
export class RateLimitingQueue<T extends QueueItem> extends WorkQueue<T> {
  readonly #limiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super({ clock: options.clock });
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter(this.clock);
  }

  /** Adds `item` after the delay the rate limiter gives it (counting one more failure). */
  addRateLimited(item: T): void {
    if (this.shuttingDown()) return;
    this.addAfter(item, this.#limiter.when(item));
  }

  /** Stops counting `item`'s failures: its next retry starts from the shortest delay. */
  forget(item: T): void {
    this.#limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.#limiter.numRequeues(item);
  }
}
