import type { Stage } from '../chain.js';
import { audit, type AuditSink } from './audit.js';
import { authenticate, type Authenticator } from './authenticate.js';
import { ALLOW_ALL, authorize, type Authorizer } from './authorize.js';
import { negotiate } from './negotiate.js';
import { rateLimit, type RateLimiter } from './rate-limit.js';

export { ANONYMOUS, type RequestAttributes } from './attributes.js';
export type { AuditSink } from './audit.js';
export type { Authenticator } from './authenticate.js';
export { ALLOW_ALL, type Authorizer, type Decision } from './authorize.js';
export type { RateLimiter } from './rate-limit.js';

/** The policies of the chain's stages; each defaults to the reference server's documented policy. */
export interface ChainPolicies {
  /** Default none: every request is anonymous. */
  authenticators?: readonly Authenticator[];
  /** Default {@link ALLOW_ALL}: no authorizer configured, every request is allowed. */
  authorizer?: Authorizer;
  /** Default none: no audit policy, nothing is recorded. */
  audit?: AuditSink;
  /** Default none: no limit. */
  rateLimiter?: RateLimiter;
}

/** The stages in the order every request passes them (see `chain.ts`). */
export function defaultStages(policies: ChainPolicies): Stage[] {
  return [
    negotiate,
    authenticate(policies.authenticators ?? []),
    audit(policies.audit),
    authorize(policies.authorizer ?? ALLOW_ALL),
    rateLimit(policies.rateLimiter),
  ];
}
