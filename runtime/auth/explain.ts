/**
 * One explanation record per access decision, joining what authentication and authorization
 * found: who the user is and which authenticator said so, which authorizer decided and why, and
 * what every other authorizer answered. The server can attach it to an audit event, log it, or
 * return it to an administrator asking "why was this allowed?".
 */
import type { RequestAttributes } from './attributes.js';
import type { AuthenticationExplanation } from './authenticate.js';
import type { AuthorizationResult, AuthorizationStep } from './authorize.js';
import type { UserInfo } from './user.js';

export interface DecisionExplanation {
  readonly user: string;
  readonly groups: readonly string[];
  /** The authenticator that identified the user (`anonymous` for requests without credentials). */
  readonly authenticatedBy?: string;
  readonly authenticationDetail?: string;
  /** Credentials other authenticators rejected before one succeeded. */
  readonly authenticationRejections: readonly string[];
  /** `list pods in API group "" in namespace "ns"`, `get path "/healthz"`. */
  readonly request: string;
  readonly allowed: boolean;
  readonly decidedBy?: string;
  readonly reason: string;
  readonly steps: readonly AuthorizationStep[];
}

export function describeRequest(a: RequestAttributes): string {
  if (!a.isResourceRequest) return `${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const name = a.name ? ` ${JSON.stringify(a.name)}` : '';
  const scope = a.namespace ? ` in namespace ${JSON.stringify(a.namespace)}` : '';
  return `${a.verb} ${resource}${name} in API group ${JSON.stringify(a.apiGroup)}${scope}`;
}

export function explainDecision(
  user: UserInfo,
  authentication: AuthenticationExplanation,
  attributes: RequestAttributes,
  authorization: AuthorizationResult,
): DecisionExplanation {
  return {
    user: user.username,
    groups: user.groups,
    ...(authentication.authenticator ? { authenticatedBy: authentication.authenticator } : {}),
    ...(authentication.detail ? { authenticationDetail: authentication.detail } : {}),
    authenticationRejections: authentication.rejections,
    request: describeRequest(attributes),
    allowed: authorization.allowed,
    ...(authorization.authorizer ? { decidedBy: authorization.authorizer } : {}),
    reason: authorization.reason,
    steps: authorization.steps,
  };
}

/** The record as lines of text, for logs and error details. */
export function formatExplanation(e: DecisionExplanation): string {
  const lines = [
    `user ${JSON.stringify(e.user)} (groups ${e.groups.join(', ') || 'none'}) identified by ${e.authenticatedBy ?? 'nobody'}${e.authenticationDetail ? ` (${e.authenticationDetail})` : ''}`,
    ...e.authenticationRejections.map((r) => `  rejected credential: ${r}`),
    `${e.allowed ? 'allowed' : 'forbidden'}: ${e.request}${e.decidedBy ? ` by ${e.decidedBy}` : ' (no authorizer allowed it)'}${e.reason ? `: ${e.reason.replaceAll('\n', '; ')}` : ''}`,
    ...e.steps.map((s) => `  ${s.authorizer}: ${s.decision}: ${s.reason || s.explanation || ''}${s.error ? ` (${s.error})` : ''}`),
  ];
  return lines.join('\n');
}
