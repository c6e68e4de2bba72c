import { forbidden } from '../../api/index.js';
import { ANNOTATIONS } from '../../audit/index.js';
import type { Stage } from '../chain.js';
import type { Authorizer } from '../context.js';
import { accessRequestOf } from './attributes.js';

export type { Authorizer, Decision } from '../context.js';

/**
 * The policy when no authorizer is configured (the reference server's default): allow every
 * request, and say why. Access reviews answer with the same decision.
 */
export const ALLOW_ALL: Authorizer = {
  authorize: async () => ({ allowed: true, reason: 'the svckit reference server has no authorization policy: every request is allowed' }),
};

/** Authorize: the server's authorizer decides; a refusal is 403 naming the resource and the authorizer's reason. */
export const authorize: Stage = {
  name: 'authorize',
  async handle(ctx, next) {
    const decision = await ctx.authorizer.authorize(accessRequestOf(ctx));
    // Upstream's authorization.k8s.io/decision and /reason, in svc.io names.
    ctx.audit?.annotate(ANNOTATIONS.authorizationDecision, decision.allowed ? 'allow' : 'forbid');
    if (decision.reason !== '') ctx.audit?.annotate(ANNOTATIONS.authorizationReason, decision.reason);
    if (!decision.allowed) {
      const t = ctx.target;
      throw forbidden(t ? t.resource : { group: '', resource: '' }, t?.name ?? '', decision.reason);
    }
    return next();
  },
};
