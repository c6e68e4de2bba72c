/**
 * The authorizer chain. Each authorizer answers Allow, Deny or NoOpinion with a reason; the first
 * Allow or Deny ends the walk, so an earlier authorizer can veto or grant before a later one is
 * asked (the real system's union authorizer). When every authorizer has no opinion the request is
 * forbidden. The explanation records every step, so "why was I denied?" has an answer naming each
 * authorizer and what it said.
 */
import type { RequestAttributes } from './attributes.js';
import type { UserInfo } from './user.js';

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizerResult {
  readonly decision: Decision;
  /** Why: the binding and role that allowed, the webhook's reason, or why there was no opinion. */
  readonly reason: string;
  /** A failure behind the decision (a webhook that could not be reached, a missing role). */
  readonly error?: string;
}

export interface AuthorizationRequest {
  readonly user: UserInfo;
  readonly attributes: RequestAttributes;
}

export interface Authorizer {
  /** Named in explanations (`rbac`, the `name` of an AuthorizerConfiguration). */
  readonly name: string;
  authorize(request: AuthorizationRequest): Promise<AuthorizerResult> | AuthorizerResult;
}

export interface AuthorizationStep extends AuthorizerResult {
  readonly authorizer: string;
}

export interface AuthorizationResult {
  readonly allowed: boolean;
  /** The deciding answer; NoOpinion when no authorizer had one (the request is then forbidden). */
  readonly decision: Decision;
  /** The deciding authorizer, when one decided. */
  readonly authorizer?: string;
  readonly reason: string;
  /** Every authorizer asked, in order, with its answer. */
  readonly steps: readonly AuthorizationStep[];
}

export class AuthorizerChain {
  constructor(private readonly authorizers: readonly Authorizer[]) {}

  async authorize(request: AuthorizationRequest): Promise<AuthorizationResult> {
    const steps: AuthorizationStep[] = [];
    for (const a of this.authorizers) {
      let result: AuthorizerResult;
      try {
        result = await a.authorize(request);
      } catch (e) {
        // An authorizer that throws has no opinion; the next one may still decide.
        result = { decision: 'NoOpinion', reason: 'authorizer failed', error: e instanceof Error ? e.message : String(e) };
      }
      steps.push({ authorizer: a.name, ...result });
      if (result.decision !== 'NoOpinion') {
        return { allowed: result.decision === 'Allow', decision: result.decision, authorizer: a.name, reason: result.reason, steps };
      }
    }
    const reason = steps.map((s) => `${s.authorizer}: ${s.reason}${s.error ? ` (${s.error})` : ''}`).join('; ');
    return { allowed: false, decision: 'NoOpinion', reason: reason || 'no authorizer configured', steps };
  }
}

/** Allows everything (for development servers and as the last resort of a chain). */
export class AlwaysAllowAuthorizer implements Authorizer {
  constructor(readonly name = 'always-allow') {}
  authorize(): AuthorizerResult {
    return { decision: 'Allow', reason: 'AlwaysAllow allows every request' };
  }
}

/** Denies everything (to lock a server, or to test that denials are reported). */
export class AlwaysDenyAuthorizer implements Authorizer {
  constructor(readonly name = 'always-deny') {}
  authorize(): AuthorizerResult {
    return { decision: 'Deny', reason: 'AlwaysDeny denies every request' };
  }
}

/**
 * The message of a 403 response, in the real system's words:
 * `User "alice" cannot list resource "pods" in API group "" in the namespace "ns": <reason>`.
 */
export function forbiddenMessage(user: UserInfo, a: RequestAttributes, reason: string): string {
  let what: string;
  if (!a.isResourceRequest) {
    what = `User ${JSON.stringify(user.username)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  } else {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    what = `User ${JSON.stringify(user.username)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)}`;
    what += a.namespace ? ` in the namespace ${JSON.stringify(a.namespace)}` : ' at the cluster scope';
  }
  return reason ? `${what}: ${reason}` : what;
}
