import type { Stage } from '../chain.js';
import type { UserInfo } from '../../auth/index.js';
import type { RequestContext } from '../context.js';
import { ANONYMOUS } from './attributes.js';

/** Decides who sent a request; undefined when it cannot tell (the next authenticator decides, or the user is anonymous). */
export interface Authenticator {
  authenticate(ctx: RequestContext): Promise<UserInfo | undefined>;
}

/**
 * Authenticate: the first authenticator that recognises the request names the user. With none
 * configured (the reference server's default) every request is anonymous.
 */
export function authenticate(authenticators: readonly Authenticator[]): Stage {
  return {
    name: 'authenticate',
    async handle(ctx, next) {
      let user: UserInfo | undefined;
      for (const a of authenticators) {
        user = await a.authenticate(ctx);
        if (user) break;
      }
      ctx.user = user ?? ANONYMOUS;
      return next();
    },
  };
}
