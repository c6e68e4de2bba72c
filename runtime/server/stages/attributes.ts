import type { RequestContext, Target, UserInfo } from '../context.js';

/** The user of a request no authenticator recognised, as upstream's anonymous authentication. */
export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** What a request asks to do, as upstream's authorizer and audit attributes. */
export interface RequestAttributes {
  user: UserInfo;
  method: string;
  target: Target | undefined;
  path: string;
}

export function attributesOf(ctx: RequestContext): RequestAttributes {
  return { user: ctx.user ?? ANONYMOUS, method: ctx.req.method, target: ctx.target, path: ctx.req.path };
}
