/** Exponential backoff with full jitter, as controllers use to keep retries of many clients apart. */
export interface BackoffOptions {
  /** First delay; default 800 ms (client-go's reflector). */
  initialMs?: number;
  /** Largest delay; default 30 s. */
  maxMs?: number;
  factor?: number;
  /** 0: no jitter; 1: a delay anywhere in [d/2, d*1.5). Default 0.5. */
  jitter?: number;
}

export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 0.5;
  }

  /** The next delay in milliseconds, growing each call until reset. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempt);
    this.attempt++;
    return Math.max(0, base * (1 + this.jitter * (Math.random() * 2 - 1)));
  }

  reset(): void {
    this.attempt = 0;
  }

  /** How many delays `next` has given since the last reset. */
  get attempts(): number {
    return this.attempt;
  }

  /** Waits for the next delay; rejects with the signal's reason when aborted. */
  wait(signal?: AbortSignal): Promise<void> {
    return sleep(this.next(), signal);
  }
}

/** Resolves after `ms`, or rejects when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
