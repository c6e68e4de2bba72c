import { badRequest } from '../../api/index.js';
import {
  ANONYMOUS_USER,
  AUTHENTICATED_GROUP,
  type AuthorizationRequest,
  type RequestAttributes,
  UNAUTHENTICATED_GROUP,
  type UserInfo,
} from '../../auth/index.js';
import type { Next, Stage } from '../chain.js';
import type { Reply } from '../http.js';
import type { RequestContext } from '../context.js';
import { ANONYMOUS } from './attributes.js';
import { authorizeRequest } from './authorize.js';

/** The prefix of every impersonation header (Node lowercases header names). */
const IMPERSONATE = 'impersonate-';
const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA = 'impersonate-extra-';
const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;
/** The group of the users, groups, uids and userextras resources the `impersonate` verb is granted on (upstream's authentication.k8s.io). */
export const IMPERSONATION_GROUP = 'authentication.svc.io';

function values(ctx: RequestContext, name: string): string[] {
  const v = ctx.req.raw.headersDistinct[name] ?? [];
  // Impersonate-Group may repeat; a comma is part of a group name, never a separator.
  return v.map((s) => s.trim());
}

function impersonateAttributes(resource: string, name: string, extra: Partial<RequestAttributes> = {}): RequestAttributes {
  return {
    isResourceRequest: true,
    path: '',
    verb: 'impersonate',
    apiPrefix: resource === 'serviceaccounts' ? 'api' : 'apis',
    apiGroup: resource === 'serviceaccounts' ? '' : IMPERSONATION_GROUP,
    apiVersion: '',
    namespace: '',
    resource,
    subresource: '',
    name,
    ...extra,
  };
}

/**
 * Impersonate: `Impersonate-User`, `-Group`, `-Uid` and `-Extra-<key>` make the request act as
 * another user, as upstream's impersonation filter does. The authenticated user needs the verb
 * `impersonate` on each thing asked for (users or a service account, groups, uids, userextras
 * with the key as subresource); a refusal is 403, groups or extras without a user 400. The
 * impersonated user replaces `ctx.user`, so authorization and everything after see only it.
 */
export const impersonate: Stage = {
  name: 'impersonate',
  handle(ctx, next) {
    const headers = ctx.req.headers;
    if (!Object.keys(headers).some((h) => h.startsWith(IMPERSONATE))) return next();
    return impersonated(ctx, next);
  },
};

/** The request acts as the user its `Impersonate-*` headers name, once the actor may impersonate each. */
async function impersonated(ctx: RequestContext, next: Next): Promise<Reply | undefined> {
  const headers = ctx.req.raw.headersDistinct;
  const extraKeys = Object.keys(headers).filter((h) => h.startsWith(EXTRA));
  const users = values(ctx, USER);
  const groups = values(ctx, GROUP);
  const uids = values(ctx, UID);
  if (users.length === 0 && groups.length === 0 && uids.length === 0 && extraKeys.length === 0) return next();
  const username = users[0];
  if (username === undefined || username === '') {
    throw badRequest('requested impersonation of groups, a uid or extras without impersonating a user (Impersonate-User)');
  }
  if (users.length > 1 || uids.length > 1) throw badRequest('Impersonate-User and Impersonate-Uid may be given once');
  const actor = ctx.user ?? ANONYMOUS;
  // The impersonation resources' group is served under the server's group suffix.
  const check = (attributes: RequestAttributes) =>
    authorizeRequest(ctx, {
      user: actor,
      attributes: { ...attributes, apiGroup: attributes.apiGroup && ctx.registry.servedGroup(attributes.apiGroup) },
    } satisfies AuthorizationRequest);

  const sa = SERVICE_ACCOUNT.exec(username);
  await check(sa ? impersonateAttributes('serviceaccounts', sa[2]!, { namespace: sa[1]! }) : impersonateAttributes('users', username));
  for (const g of groups) await check(impersonateAttributes('groups', g));
  for (const u of uids) await check(impersonateAttributes('uids', u));
  const extra: Record<string, string[]> = {};
  for (const header of extraKeys) {
    const key = extraKey(header.slice(EXTRA.length));
    const vals = values(ctx, header);
    for (const v of vals) await check(impersonateAttributes('userextras', v, { subresource: key }));
    extra[key] = vals;
  }

  // Upstream adds the groups the impersonated user would have had: service accounts' own groups,
  // and system:authenticated (or system:unauthenticated for the anonymous user).
  const implied = sa ? ['system:serviceaccounts', `system:serviceaccounts:${sa[1]}`] : [];
  const everyone = username === ANONYMOUS_USER ? UNAUTHENTICATED_GROUP : AUTHENTICATED_GROUP;
  const all = [...groups, ...implied.filter((g) => !groups.includes(g))];
  if (!all.includes(everyone)) all.push(everyone);
  const user: UserInfo = { username, groups: all, extra, ...(uids[0] ? { uid: uids[0] } : {}) };
  ctx.user = user;
  ctx.audit?.impersonated(user);
  ctx.authentication = {
    ...(ctx.authentication ?? { rejections: [] }),
    detail: `${ctx.authentication?.detail ? `${ctx.authentication.detail}; ` : ''}impersonated by ${JSON.stringify(actor.username)}`,
  };
  return next();
}

/**
 * An extra's key: percent-encoded in the header name and case-insensitive, lowercased and then
 * decoded as upstream's unescapeExtraKey; a malformed escape keeps the key as sent (upstream
 * always records it) rather than failing the request.
 */
function extraKey(encoded: string): string {
  const lower = encoded.toLowerCase();
  try {
    return decodeURIComponent(lower);
  } catch {
    return lower;
  }
}
