import type { Stage } from '../chain.js';
import type { RequestContext } from '../context.js';

/** Admits or delays a request (upstream's max-in-flight, priority and fairness); throws a 429 to refuse. */
export interface RateLimiter {
  admit(ctx: RequestContext): Promise<void>;
}

/** Rate-limit: the limiter may delay or refuse. With none configured (the default) every request passes. */
export function rateLimit(limiter: RateLimiter | undefined): Stage {
  return {
    name: 'rate-limit',
    handle(ctx, next) {
      if (!limiter) return next();
      return limiter.admit(ctx).then(next);
    },
  };
}
