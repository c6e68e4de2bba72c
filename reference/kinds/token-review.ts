import type { Socket } from 'node:net';
import { badRequest, goQuoteList } from '../../runtime/api/index.js';
import { AUTHENTICATED_GROUP, userInfoObject } from '../../runtime/auth/index.js';
import { admit, type VirtualCreateHandler, writeOptions } from '../../runtime/server/index.js';

/**
 * TokenReview (upstream's `authentication.k8s.io` TokenReview): the server's own authenticators
 * judge `spec.token` as if it came in a request's Authorization header, with nothing else of the
 * request (no client certificate, no anonymous fallback). A virtual kind: created, never stored.
 *
 * Audiences: the token must be for one of `spec.audiences`, or of the server's (`--api-audiences`)
 * when none are given. Service-account tokens are checked against those audiences; a credential
 * that names no audience (a static token, an OIDC token, the test server's) counts for the
 * server's own audiences only, as upstream wraps such authenticators.
 */
export const reviewToken: VirtualCreateHandler = async (ctx, t, body) => {
  const object = await admit(ctx, {
    resource: t.resource,
    object: body.object,
    fieldValidation: writeOptions(ctx.req.query, ctx.req.method).fieldValidation,
    duplicates: body.duplicates,
  });
  object.metadata = { ...object.metadata, creationTimestamp: undefined };
  const spec = (object.spec ?? {}) as { token?: string; audiences?: string[] };
  if (!spec.token) throw badRequest('token is required for TokenReview in authentication');
  const { authenticator, apiAudiences } = ctx.authenticationPolicy;
  // No authentication configured: nothing can vouch for a token (upstream answers with an empty status).
  if (!authenticator) return { status: 201, body: { ...object, status: {} } };
  const wanted = spec.audiences && spec.audiences.length > 0 ? spec.audiences : apiAudiences;
  const result = await authenticator.authenticate({ headers: { authorization: `Bearer ${spec.token}` }, socket: {} as Socket }, wanted);
  if (!result.authenticated || !result.user.groups.includes(AUTHENTICATED_GROUP)) {
    object.status = { authenticated: false, ...(result.authenticated ? {} : { error: result.message }) };
    return { status: 201, body: object };
  }
  const audiences = result.audiences ?? (apiAudiences.length === 0 ? wanted : wanted.filter((a) => apiAudiences.includes(a)));
  if (wanted.length > 0 && audiences.length === 0) {
    object.status = {
      authenticated: false,
      error: `token audiences ${goQuoteList(apiAudiences)} is invalid for the target audiences ${goQuoteList(wanted)}`,
    };
    return { status: 201, body: object };
  }
  object.status = {
    authenticated: true,
    user: userInfoObject(result.user),
    ...(audiences.length > 0 ? { audiences } : {}),
  };
  return { status: 201, body: object };
};
