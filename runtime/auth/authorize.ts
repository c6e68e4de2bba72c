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
  /**
   * svckit's own account of a decision whose upstream reason is empty (RBAC's plain no-match):
   * shown by `svckit auth explain`, never in a 403 or a review's status.
   */
  readonly explanation?: string;
}

export interface AuthorizationRequest {
  readonly user: UserInfo;
  readonly attributes: RequestAttributes;
}

export interface Authorizer {
  /** Named in explanations (`rbac`, the `name` of an AuthorizerConfiguration). */
  readonly name: string;
  authorize(request: AuthorizationRequest): Promise<AuthorizerResult> | AuthorizerResult;
  /** What `user` may do in `namespace`, for SelfSubjectRulesReview; absent when the authorizer cannot tell (a webhook). */
  rulesFor?(user: UserInfo, namespace: string): Promise<RuleList> | RuleList;
}

/** The rules a user has, as SelfSubjectRulesReview reports them. */
export interface RuleList {
  readonly resourceRules: readonly { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }[];
  readonly nonResourceRules: readonly { verbs: string[]; nonResourceURLs?: string[] }[];
  /** True when some rules could not be listed (an authorizer that cannot enumerate, a missing role). */
  readonly incomplete: boolean;
  readonly evaluationError?: string;
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
    // Upstream's union authorizer: the non-empty reasons, one a line (RBAC gives none for a plain no-match).
    const reason = steps
      .map((s) => [s.reason, s.error ? `(${s.error})` : ''].filter((t) => t !== '').join(' '))
      .filter((t) => t !== '')
      .join('\n');
    return { allowed: false, decision: 'NoOpinion', reason: steps.length === 0 ? 'no authorizer configured' : reason, steps };
  }

  /** Every authorizer's rules together; incomplete when one cannot list its rules (upstream's rule resolvers). */
  async rulesFor(user: UserInfo, namespace: string): Promise<RuleList> {
    const out = {
      resourceRules: [] as RuleList['resourceRules'][number][],
      nonResourceRules: [] as RuleList['nonResourceRules'][number][],
    };
    const errors: string[] = [];
    let incomplete = false;
    for (const a of this.authorizers) {
      if (!a.rulesFor) {
        incomplete = true;
        errors.push(`${a.name}: cannot list rules`);
        continue;
      }
      const r = await a.rulesFor(user, namespace);
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
      if (r.incomplete) incomplete = true;
      if (r.evaluationError) errors.push(`${a.name}: ${r.evaluationError}`);
    }
    return { ...out, incomplete, ...(errors.length > 0 ? { evaluationError: errors.join('; ') } : {}) };
  }
}

const EVERYTHING: RuleList = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};
const NOTHING: RuleList = { resourceRules: [], nonResourceRules: [], incomplete: false };

/** Allows everything (for development servers and as the last resort of a chain). */
export class AlwaysAllowAuthorizer implements Authorizer {
  constructor(readonly name = 'always-allow') {}
  authorize(): AuthorizerResult {
    return { decision: 'Allow', reason: 'AlwaysAllow allows every request' };
  }
  rulesFor(): RuleList {
    return EVERYTHING;
  }
}

/**
 * Allows every request of a member of one of `groups` (upstream's privileged-groups authorizer for
 * `system:masters`, asked before RBAC): the superuser group works before any binding exists.
 */
export class PrivilegedGroupsAuthorizer implements Authorizer {
  readonly name = 'privileged-groups';
  constructor(private readonly groups: readonly string[]) {}
  authorize({ user }: AuthorizationRequest): AuthorizerResult {
    const group = user.groups.find((g) => this.groups.includes(g));
    return group
      ? { decision: 'Allow', reason: `member of the privileged group ${JSON.stringify(group)}` }
      : // Upstream's privileged-groups authorizer gives no reason for anyone else.
        { decision: 'NoOpinion', reason: '', explanation: 'not in a privileged group' };
  }
  rulesFor(user: UserInfo): RuleList {
    return user.groups.some((g) => this.groups.includes(g)) ? EVERYTHING : NOTHING;
  }
}

/** Denies everything (to lock a server, or to test that denials are reported). */
export class AlwaysDenyAuthorizer implements Authorizer {
  constructor(readonly name = 'always-deny') {}
  authorize(): AuthorizerResult {
    return { decision: 'Deny', reason: 'AlwaysDeny denies every request' };
  }
  rulesFor(): RuleList {
    return NOTHING;
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
