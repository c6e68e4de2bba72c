import type { Stage } from '../chain.js';
import type { Auditor } from '../../audit/index.js';
import type { ServiceAccountIssuer } from '../../auth/index.js';
import { audit, auditFailedAuthentication } from './audit.js';
import { authenticate } from './authenticate.js';
import type { RequestAuthenticator } from '../context.js';
import { ALLOW_ALL, type RequestAuthorizer, authorize } from './authorize.js';
import { explain } from './explain.js';
import { impersonate } from './impersonate.js';
import { instrument } from './instrument.js';
import { issuerDiscovery } from './issuer-discovery.js';
import { kubectlNames } from './kubectl-names.js';
import { negotiate } from './negotiate.js';
import { rateLimit, type RateLimiter } from './rate-limit.js';

export { ANONYMOUS } from './attributes.js';
export type { RequestAuthenticator } from '../context.js';
export { ALLOW_ALL, type RequestAuthorizer, authorizeCreate, type AuthorizationVerdict, forbiddenRequest } from './authorize.js';
export { EXPLAIN_PATH } from './explain.js';
export { IMPERSONATION_GROUP } from './impersonate.js';
export { servedApiVersion } from './kubectl-names.js';
export type { RateLimiter } from './rate-limit.js';

/** The policies of the chain's stages; each defaults to the reference server's documented policy. */
export interface ChainPolicies {
  /**
   * Default none: every request is anonymous, whatever it presents. `runtime/auth`'s `AuthPolicy`
   * is one (client certificates, tokens, JWT; 401 for a rejected credential).
   */
  authentication?: RequestAuthenticator;
  /** Default {@link ALLOW_ALL}: no authorization policy, every request is allowed. Access reviews ask it too. */
  authorizer?: RequestAuthorizer;
  /** Default none: no audit policy, nothing is recorded (every response still carries an `Audit-ID`). */
  audit?: Auditor;
  /** Default none: no limit. */
  rateLimiter?: RateLimiter;
  /**
   * Stages of a test server only (`svckit/testing`: fault injection, the request record), run once
   * the request's user is final and before authorization, so they see and can fail every request.
   */
  testing?: readonly Stage[];
  /**
   * Default none: no service-account issuer discovery (`/.well-known/openid-configuration` and
   * `/openid/v1/jwks` are 404). The reference server's issuer, which also signs the `token`
   * subresource's tokens.
   */
  serviceAccountIssuer?: ServiceAccountIssuer;
}

/** The authorization policy of a server: the configured one, or {@link ALLOW_ALL}. */
export function authorizerOf(policies: ChainPolicies): RequestAuthorizer {
  return policies.authorizer ?? ALLOW_ALL;
}

/** The stages in the order every request passes them (see `chain.ts`). */
export function defaultStages(policies: ChainPolicies): Stage[] {
  return [
    instrument,
    kubectlNames,
    // Authentication first, as upstream's filter chain: every request has its user before anything
    // can refuse it (a 406 of negotiation included), so audit and admission always find ctx.user;
    // a refused credential is audited by the stage before it.
    auditFailedAuthentication(policies.audit),
    authenticate(policies.authentication),
    negotiate,
    audit(policies.audit),
    impersonate,
    ...(policies.testing ?? []),
    authorize,
    explain,
    ...(policies.serviceAccountIssuer ? [issuerDiscovery(policies.serviceAccountIssuer)] : []),
    rateLimit(policies.rateLimiter),
  ];
}
