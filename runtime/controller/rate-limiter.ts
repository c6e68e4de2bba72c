/**
 * How long an item waits before it is retried (client-go's workqueue rate limiters,
 * default_rate_limiters.go): per item, an exponential backoff; overall, a token bucket; and the
 * larger of several.
 */
import { Backoff } from '../client/index.js';
import { type Clock, systemClock } from './clock.js';

export interface RateLimiter<T> {
  /** The delay before `item` is retried; counts a failure of it. */
  when(item: T): number;
  /** Stops tracking `item` (it succeeded, or is given up on). */
  forget(item: T): void;
  /** How many failures of `item` are counted. */
  numRequeues(item: T): number;
}

/** `baseMs * 2^failures`, at most `maxMs`, per item: the client's `Backoff` without jitter, one per item. */
export class ItemExponentialRateLimiter<T> implements RateLimiter<T> {
  readonly #failures = new Map<T, Backoff>();

  constructor(
    readonly baseMs: number,
    readonly maxMs: number,
  ) {}

  when(item: T): number {
    let backoff = this.#failures.get(item);
    if (!backoff) this.#failures.set(item, (backoff = new Backoff({ initialMs: this.baseMs, maxMs: this.maxMs, factor: 2, jitter: 0 })));
    return backoff.next();
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.#failures.get(item)?.attempts ?? 0;
  }
}

/**
 * A token bucket over all items (golang.org/x/time/rate's `Reserve().Delay()`): `burst` tokens,
 * refilled at `qps` per second; each retry takes one, and waits until the bucket would hold it.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  #tokens: number;
  #last: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.#tokens = burst;
    this.#last = clock.now();
  }

  when(_item: T): number {
    const now = this.clock.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) / 1000) * this.qps);
    this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.qps) * 1000;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The longest delay of several limiters; the most failures any of them counts. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  readonly #limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.#limiters = limiters;
  }

  when(item: T): number {
    return Math.max(0, ...this.#limiters.map((l) => l.when(item)));
  }

  forget(item: T): void {
    for (const l of this.#limiters) l.forget(item);
  }

  numRequeues(item: T): number {
    return Math.max(0, ...this.#limiters.map((l) => l.numRequeues(item)));
  }
}

/** client-go's `DefaultControllerRateLimiter`: per item 5 ms doubling to 1000 s, overall 10 qps with a burst of 100. */
export function defaultControllerRateLimiter<T>(clock: Clock = systemClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(new ItemExponentialRateLimiter(5, 1_000_000), new BucketRateLimiter(10, 100, clock));
}
