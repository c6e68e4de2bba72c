/**
 * The time the queue, the controller and leader election read, injected so that tests move it
 * rather than wait (client-go's `clock.Clock`). `systemClock` is the real one.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once `ms` of this clock have passed; returns a function that cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/** Resolves once `ms` of `clock` have passed; rejects with the signal's reason when it aborts first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      cancel();
      reject(signal!.reason);
    };
    const cancel = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A clock that stands still until `advance` moves it, firing the timers that come due in order
 * (client-go's `testing.FakeClock`): for tests of delays and rate limits without waiting.
 */
export class ManualClock implements Clock {
  #ms: number;
  #timers: { at: number; seq: number; fn: () => void }[] = [];
  #seq = 0;

  constructor(start = Date.UTC(2024, 0, 1)) {
    this.#ms = start;
  }

  now(): number {
    return this.#ms;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer = { at: this.#ms + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** Timers not yet fired. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves the clock forward by `ms`, firing every timer due by then, earliest first. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`the clock only moves forward; got ${ms} ms`);
    const until = this.#ms + ms;
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#ms = Math.max(this.#ms, due.at);
      due.fn();
    }
    this.#ms = until;
  }
}
