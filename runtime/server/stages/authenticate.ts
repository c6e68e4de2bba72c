import { unauthorized } from '../../api/index.js';
import type { AuthenticationExplanation, UserInfo } from '../../auth/index.js';
import type { Next, Stage } from '../chain.js';
import type { RequestAuthenticator, RequestContext } from '../context.js';
import type { Reply } from '../http.js';
import { ANONYMOUS } from './attributes.js';

/** The user of a request whose credential was refused (a 401). */
const NOBODY: UserInfo = { username: '', groups: [], extra: {} };

/** How a request without an authentication policy is identified (the reference server's default). */
const UNCONFIGURED: AuthenticationExplanation = { authenticator: 'anonymous (no authentication configured)', rejections: [] };

/**
 * Authenticate: sets `ctx.user` for every request it sees (audit and admission read it; empty for a 401) and
 * `ctx.authentication`, the record of which authenticator identified the user. With no
 * authenticator configured every request is `system:anonymous`, credentials or not.
 */
export function authenticate(authenticator: RequestAuthenticator | undefined): Stage {
  return {
    name: 'authenticate',
    handle(ctx, next) {
      if (!authenticator) {
        ctx.user = ANONYMOUS;
        ctx.authentication = UNCONFIGURED;
        return next();
      }
      return authenticated(ctx, authenticator, next);
    },
  };
}

/** The configured authenticator decides who sent the request; a refused credential is a 401. */
async function authenticated(ctx: RequestContext, authenticator: RequestAuthenticator, next: Next): Promise<Reply | undefined> {
  const result = await authenticator.authenticate(ctx.req.raw);
  if (!result.authenticated) {
    // Who failed is unknown: an empty user, as upstream's failed-authentication audit records.
    ctx.user = NOBODY;
    ctx.authentication = result.explanation;
    throw unauthorized(result.message);
  }
  ctx.user = result.user;
  ctx.authentication = result.explanation;
  return next();
}
