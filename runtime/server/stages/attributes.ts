import { type AuthorizationRequest, type RequestAttributes, type UserInfo, anonymousUser, requestAttributes } from '../../auth/index.js';
import type { RequestContext } from '../context.js';

/** The user of a request no authenticator recognised, as upstream's anonymous authentication. */
export const ANONYMOUS: UserInfo = anonymousUser();

/**
 * Who asks to do what, for the authorize and audit stages: the user the authenticate stage found,
 * and the attributes `runtime/auth` derives from the method, path and query as upstream's
 * RequestInfo does (before routing: an unknown resource still gets attributes).
 */
export function accessRequestOf(ctx: RequestContext): AuthorizationRequest {
  return { user: ctx.user ?? ANONYMOUS, attributes: attributesOf(ctx) };
}

/**
 * The request's attributes, derived once per request (metrics, audit and authorize all read them);
 * a stage that rewrites the path forgets them (`forgetAttributes`).
 */
export function attributesOf(ctx: RequestContext): RequestAttributes {
  ctx.attributes ??= requestAttributes(ctx.req.method, ctx.req);
  return ctx.attributes;
}

/** The path changed: the attributes are derived again when next read. */
export function forgetAttributes(ctx: RequestContext): void {
  ctx.attributes = undefined;
}
