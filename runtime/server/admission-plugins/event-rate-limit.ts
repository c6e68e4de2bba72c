import { StatusError } from '../../api/index.js';
import type { AdmissionPlugin, AdmissionRequest } from '../admission.js';

export type EventLimitType = 'Server' | 'Namespace' | 'User' | 'SourceAndObject';

/** One limit of an EventRateLimit Configuration (`eventratelimit.admission.svc.io/v1alpha1`). */
export interface EventLimit {
  type: EventLimitType;
  qps: number;
  burst: number;
  /** Buckets kept (LRU); default 4096; ignored for Server. */
  cacheSize?: number;
}

export interface EventRateLimitOptions {
  /** Milliseconds since the epoch; tests inject a clock. */
  now?: () => number;
}

const DEFAULT_CACHE_SIZE = 4096;

/** A token bucket: starts full at `burst`, refills `qps` tokens a second up to `burst`. */
class TokenBucket {
  #tokens: number;
  #at: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    now: number,
  ) {
    this.#tokens = burst;
    this.#at = now;
  }

  tryAccept(now: number): boolean {
    this.#tokens = Math.min(this.burst, this.#tokens + (Math.max(0, now - this.#at) / 1000) * this.qps);
    this.#at = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

/** The buckets of one limit: one for Server, else one per key in an LRU of `cacheSize` (an evicted key starts full again). */
class LimitEnforcer {
  readonly #buckets = new Map<string, TokenBucket>();
  readonly #size: number;

  constructor(readonly limit: EventLimit) {
    this.#size = limit.type === 'Server' ? 1 : limit.cacheSize && limit.cacheSize > 0 ? limit.cacheSize : DEFAULT_CACHE_SIZE;
  }

  accept(key: string, now: number): boolean {
    let bucket = this.#buckets.get(key);
    if (bucket) this.#buckets.delete(key);
    else bucket = new TokenBucket(this.limit.qps, this.limit.burst, now);
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > this.#size) this.#buckets.delete(this.#buckets.keys().next().value!);
    return bucket.tryAccept(now);
  }
}

/** The bucket key of a request for a limit type (upstream's key functions). */
function keyOf(type: EventLimitType, request: AdmissionRequest): string {
  switch (type) {
    case 'Server':
      return '';
    case 'Namespace':
      return request.namespace ?? '';
    case 'User':
      return request.user.username;
    case 'SourceAndObject': {
      const e = (request.object ?? {}) as { source?: Record<string, string>; involvedObject?: Record<string, string> };
      const o = e.involvedObject ?? {};
      return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].map((x) => x ?? '').join('');
    }
  }
}

/**
 * EventRateLimit: limits creates and updates of core Events. Every configured limit is charged
 * (a request spends a token in each bucket that has one), and a request any limit refuses is
 * 429 naming each limit reached. Dry runs are not counted: they reach no storage.
 */
export function eventRateLimit(limits: readonly EventLimit[], options: EventRateLimitOptions = {}): AdmissionPlugin {
  if (limits.length === 0) throw new Error('EventRateLimit: at least one limit is required');
  const now = options.now ?? Date.now;
  const enforcers = limits.map((l) => new LimitEnforcer(l));
  return {
    name: 'EventRateLimit',
    async validate(request) {
      if (request.resource.group !== '' || request.resource.kind !== 'Event') return;
      if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return;
      if (request.dryRun) return;
      const at = now();
      const refused: string[] = [];
      for (const e of enforcers) {
        const key = keyOf(e.limit.type, request);
        if (!e.accept(key, at)) refused.push(`limit reached on type ${e.limit.type} for key ${key}`);
      }
      if (refused.length === 0) return;
      // Upstream's NewTooManyRequestsError: no Retry-After, the client backs off by itself.
      const detail = refused.length === 1 ? refused[0] : `[${refused.join(', ')}]`;
      throw new StatusError({ code: 429, reason: 'TooManyRequests', message: `Too many requests: ${detail}` });
    },
  };
}
