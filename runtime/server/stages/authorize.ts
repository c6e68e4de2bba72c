import { forbidden } from '../../api/index.js';
import type { Stage } from '../chain.js';
import { type RequestAttributes, attributesOf } from './attributes.js';

export interface Decision {
  allowed: boolean;
  reason: string;
}

/** Decides whether a request may proceed; a refusal becomes a 403 with the reason. */
export interface Authorizer {
  authorize(attributes: RequestAttributes): Promise<Decision>;
}

/** The reference server's policy when no authorizer is configured: allow every request, and say why. */
export const ALLOW_ALL: Authorizer = {
  authorize: async () => ({ allowed: true, reason: 'no authorizer configured: every request is allowed' }),
};

/** Authorize: a refusal is 403 naming the resource and the authorizer's reason. */
export function authorize(authorizer: Authorizer): Stage {
  return {
    name: 'authorize',
    async handle(ctx, next) {
      const decision = await authorizer.authorize(attributesOf(ctx));
      if (!decision.allowed) {
        const t = ctx.target;
        throw forbidden(t ? t.resource : { group: '', resource: '' }, t?.name ?? '', decision.reason);
      }
      return next();
    },
  };
}
