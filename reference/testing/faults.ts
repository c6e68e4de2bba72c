/**
 * Fault injection for the test server: a handler-chain stage that, for requests matching a rule,
 * waits, answers an error instead of serving (409, 410, 429 with Retry-After, 500, 503), or serves
 * and then drops the connection (a watch cut without its clean end). Only `startTestServer` adds
 * this stage; `svckit serve` never has it.
 */
import { StatusError, conflict, internalError, resourceExpired, tooManyRequests } from '../../runtime/api/index.js';
import type { RequestContext, Stage } from '../../runtime/server/index.js';
import { type RequestPattern, matches, requestFacts } from './request-pattern.js';

/** The statuses a fault can answer, as the server itself would send them. */
export type FaultStatus = 409 | 410 | 429 | 500 | 503;

export interface FaultRule extends RequestPattern {
  /** Only watch requests (true) or only other requests (false); default both. */
  watch?: boolean;
  /** How many matching requests the fault applies to; default every one until removed. */
  times?: number;
  /** Wait this long before the request goes on (or fails). */
  delayMs?: number;
  /** Answer this error instead of serving the request. */
  status?: FaultStatus;
  /** The Retry-After of a 429 or 503; default 1. */
  retryAfterSeconds?: number;
  /** The error's message; a default names the fault as injected. */
  message?: string;
  /** Serve the request, then destroy its connection after this many milliseconds (a dropped watch). */
  dropAfterMs?: number;
}

/** An installed fault. */
export interface Fault {
  readonly rule: FaultRule;
  /** How many requests it has applied to so far. */
  readonly hits: number;
  remove(): void;
}

class InstalledFault implements Fault {
  hits = 0;
  constructor(
    readonly rule: FaultRule,
    readonly remove: () => void,
  ) {}
  get exhausted(): boolean {
    return this.rule.times !== undefined && this.hits >= this.rule.times;
  }
}

export class FaultInjector {
  #faults: InstalledFault[] = [];

  /** Adds a fault; the first matching fault that is not used up applies to a request. */
  inject(rule: FaultRule): Fault {
    if (rule.status === undefined && rule.delayMs === undefined && rule.dropAfterMs === undefined)
      throw new TypeError('a fault needs status, delayMs or dropAfterMs');
    const fault = new InstalledFault(rule, () => {
      this.#faults = this.#faults.filter((f) => f !== fault);
    });
    this.#faults.push(fault);
    return fault;
  }

  clear(): void {
    this.#faults = [];
  }

  readonly stage: Stage = {
    name: 'fault-injection',
    handle: async (ctx, next) => {
      const fault = this.#faults.length > 0 ? this.#match(ctx) : undefined;
      if (!fault) return next();
      fault.hits++;
      const { rule } = fault;
      if (rule.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, rule.delayMs));
      if (rule.status !== undefined) throw faultError(ctx, rule);
      if (rule.dropAfterMs !== undefined) {
        const socket = ctx.req.raw.socket;
        const timer = setTimeout(() => socket.destroy(), rule.dropAfterMs);
        ctx.res.once('close', () => clearTimeout(timer));
      }
      return next();
    },
  };

  #match(ctx: RequestContext): InstalledFault | undefined {
    const facts = requestFacts(ctx);
    const watch = facts.attributes.verb === 'watch';
    return this.#faults.find((f) => !f.exhausted && (f.rule.watch === undefined || f.rule.watch === watch) && matches(f.rule, facts));
  }
}

function faultError(ctx: RequestContext, rule: FaultRule): StatusError {
  const why = rule.message ?? `injected fault (${rule.status})`;
  switch (rule.status!) {
    case 409: {
      const a = requestFacts(ctx).attributes;
      return conflict(
        { group: a.apiGroup, resource: a.resource || 'unknown' },
        a.name,
        rule.message ?? 'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    case 410:
      return resourceExpired(rule.message ?? 'too old resource version: injected by the test server');
    case 429:
      return tooManyRequests(rule.message ?? 'Too many requests, please try again later.', rule.retryAfterSeconds ?? 1);
    case 500:
      return internalError(why);
    case 503:
      return new StatusError({
        code: 503,
        reason: 'ServiceUnavailable',
        message: why,
        details: { retryAfterSeconds: rule.retryAfterSeconds ?? 1 },
      });
  }
}
