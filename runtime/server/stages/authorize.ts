import { forbidden, type StatusError } from '../../api/index.js';
import { ANNOTATIONS } from '../../audit/index.js';
import { type AuthorizationRequest, forbiddenMessage } from '../../auth/index.js';
import { type Next, type Outcome, type Stage, isPromise } from '../chain.js';
import type { AuthorizationVerdict, RequestAuthorizer, RequestContext } from '../context.js';
import { accessRequestOf } from './attributes.js';

export type { RequestAuthorizer, AuthorizationVerdict } from '../context.js';

/**
 * The policy when no authorizer is configured (the reference server's default): allow every
 * request, and say why. Access reviews answer with the same decision.
 */
export const ALLOW_ALL: RequestAuthorizer = {
  authorize: () => ({ allowed: true, reason: 'the svckit reference server has no authorization policy: every request is allowed' }),
};

/**
 * The 403 of a refused request in the real system's words: `pods "web" is forbidden: User "alice"
 * cannot get resource "pods" in API group "" in the namespace "ns": <reason>`, with the group,
 * resource and name in the details; `forbidden: User ... cannot get path "/x"` for other paths.
 */
export function forbiddenRequest({ user, attributes: a }: AuthorizationRequest, reason: string): StatusError {
  const resource = a.isResourceRequest ? { group: a.apiGroup, resource: a.resource } : { group: '', resource: '' };
  return forbidden(resource, a.isResourceRequest ? a.name : '', forbiddenMessage(user, a, reason));
}

/** Asks the server's authorizer; a refusal throws the 403. */
export async function authorizeRequest(ctx: RequestContext, request: AuthorizationRequest): Promise<void> {
  const decision = await ctx.authorizer.authorize(request);
  if (!decision.allowed) throw forbiddenRequest(request, decision.reason);
}

/**
 * A write that turns out to create the object (server-side apply of an absent object) needs
 * `create` as well, as upstream's update and patch handlers ask when they create: `patch` alone
 * must not let a user make new objects.
 */
export async function authorizeCreate(ctx: RequestContext): Promise<void> {
  const request = accessRequestOf(ctx);
  await authorizeRequest(ctx, { ...request, attributes: { ...request.attributes, verb: 'create' } });
}

/**
 * Authorize: the server's authorizer decides on the attributes of the request (a dry-run has the
 * same attributes as the real request, so it needs the same permission); a refusal is a 403.
 */
export const authorize: Stage = {
  name: 'authorize',
  handle(ctx, next) {
    const request = accessRequestOf(ctx);
    const decision = ctx.authorizer.authorize(request);
    if (isPromise(decision)) return decision.then((d) => decided(ctx, request, d, next));
    return decided(ctx, request, decision, next);
  },
};

/** The decision is recorded for the audit; a refusal is the 403, an allowed request goes on. */
function decided(ctx: RequestContext, request: AuthorizationRequest, decision: AuthorizationVerdict, next: Next): Outcome {
  // Upstream's authorization.k8s.io/decision and /reason, under the served group names.
  const key = (specKey: string) => ctx.registry.servedApiVersion(specKey);
  ctx.audit?.annotate(key(ANNOTATIONS.authorizationDecision), decision.allowed ? 'allow' : 'forbid');
  if (decision.reason !== '') ctx.audit?.annotate(key(ANNOTATIONS.authorizationReason), decision.reason);
  if (!decision.allowed) throw forbiddenRequest(request, decision.reason);
  return next();
}
