import { type RequestTarget, badRequest, goQuote, methodNotAllowed, parseRequestTarget } from '../../api/index.js';
import { explainDecision, formatExplanation, requestAttributes, withAuthenticatedGroup } from '../../auth/index.js';
import type { Stage } from '../chain.js';
import type { RequestContext } from '../context.js';
import type { Reply } from '../http.js';
import { ANONYMOUS } from './attributes.js';

/** The path of the explain endpoint; a non-resource URL, so RBAC grants it with `nonResourceURLs`. */
export const EXPLAIN_PATH = '/debug/svckit/explain';

/**
 * `GET /debug/svckit/explain?method=DELETE&path=/api/v1/namespaces/ns/pods/web`: what the server
 * would decide if the caller sent that request, and why: the authenticator that identified the
 * caller (and the credentials it rejected first), the authorizer that decided, the rule or binding
 * that allowed or each authorizer's reason for not allowing. Upstream logs this at high verbosity
 * only; here it is one call. The endpoint itself is authorized like any path (cluster-admin has
 * it); `user=alice&group=devs` explains for another user, as a SubjectAccessReview would decide.
 */
export const explain: Stage = {
  name: 'explain',
  handle(ctx, next) {
    if (ctx.req.path !== EXPLAIN_PATH) return next();
    return explainRequest(ctx);
  },
};

async function explainRequest(ctx: RequestContext): Promise<Reply> {
  if (ctx.req.method !== 'GET') throw methodNotAllowed(ctx.req.method, `${EXPLAIN_PATH} is read with GET`);
  const target = ctx.req.query.get('path');
  if (!target?.startsWith('/')) throw badRequest(`${EXPLAIN_PATH} needs path=<an absolute request path, with its query>`);
  let parsed: RequestTarget;
  try {
    parsed = parseRequestTarget(target);
  } catch {
    throw badRequest(`path ${goQuote(target)} is not a valid request path`);
  }
  const method = (ctx.req.query.get('method') ?? 'GET').toUpperCase();
  // `user` (and `group`s) explain for someone else, as a SubjectAccessReview names its user.
  const named = ctx.req.query.get('user');
  const user = named
    ? withAuthenticatedGroup({ username: named, groups: ctx.req.query.getAll('group'), extra: {} })
    : (ctx.user ?? ANONYMOUS);
  const authentication = named
    ? { authenticator: 'the user parameter of the explain request', rejections: [] }
    : (ctx.authentication ?? { rejections: [] });
  const attributes = requestAttributes(method, parsed);
  const d = await ctx.authorizer.authorize({ user, attributes });
  const explanation = explainDecision(user, authentication, attributes, {
    allowed: d.allowed,
    decision: d.decision ?? (d.allowed ? 'Allow' : 'NoOpinion'),
    ...(d.authorizer ? { authorizer: d.authorizer } : {}),
    reason: d.reason,
    steps: d.steps ?? [],
  });
  return { status: 200, body: { kind: 'AccessExplanation', ...explanation, text: formatExplanation(explanation) } };
}
