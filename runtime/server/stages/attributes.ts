import { type AuthorizationRequest, type UserInfo, anonymousUser, requestAttributes } from '../../auth/index.js';
import type { RequestContext } from '../context.js';

/** The user of a request no authenticator recognised, as upstream's anonymous authentication. */
export const ANONYMOUS: UserInfo = anonymousUser();

/**
 * Who asks to do what, for the authorize and audit stages: the user the authenticate stage found,
 * and the attributes `runtime/auth` derives from the method, path and query as upstream's
 * RequestInfo does (before routing: an unknown resource still gets attributes).
 */
export function accessRequestOf(ctx: RequestContext): AuthorizationRequest {
  return { user: ctx.user ?? ANONYMOUS, attributes: requestAttributes(ctx.req.method, ctx.req) };
}
