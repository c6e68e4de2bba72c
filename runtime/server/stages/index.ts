import type { Stage } from '../chain.js';
import type { Auditor } from '../../audit/index.js';
import { audit, auditFailedAuthentication } from './audit.js';
import { authenticate, type Authenticator } from './authenticate.js';
import { type Authorizer, authorize } from './authorize.js';
import { instrument } from './instrument.js';
import { negotiate } from './negotiate.js';
import { rateLimit, type RateLimiter } from './rate-limit.js';

export { ANONYMOUS } from './attributes.js';
export type { Authenticator } from './authenticate.js';
export { ALLOW_ALL, type Authorizer, type Decision } from './authorize.js';
import { ALLOW_ALL } from './authorize.js';
export type { RateLimiter } from './rate-limit.js';

/** The policies of the chain's stages; each defaults to the reference server's documented policy. */
export interface ChainPolicies {
  /** Default none: every request is anonymous. */
  authenticators?: readonly Authenticator[];
  /** Default {@link ALLOW_ALL}: no authorization policy, every request is allowed. Access reviews ask it too. */
  authorizer?: Authorizer;
  /** Default none: no audit policy, nothing is recorded (every response still carries an `Audit-ID`). */
  audit?: Auditor;
  /** Default none: no limit. */
  rateLimiter?: RateLimiter;
}

/** The authorization policy of a server: the configured one, or {@link ALLOW_ALL}. */
export function authorizerOf(policies: ChainPolicies): Authorizer {
  return policies.authorizer ?? ALLOW_ALL;
}

/** The stages in the order every request passes them (see `chain.ts`). */
export function defaultStages(policies: ChainPolicies): Stage[] {
  return [
    instrument,
    negotiate,
    auditFailedAuthentication(policies.audit),
    authenticate(policies.authenticators ?? []),
    audit(policies.audit),
    authorize,
    rateLimit(policies.rateLimiter),
  ];
}
