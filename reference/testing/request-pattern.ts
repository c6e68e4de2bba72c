/** Which requests a fault or a query of the request record concerns: every field given must match. */
import { type RequestAttributes, requestAttributes } from '../../runtime/auth/index.js';
import type { RequestContext } from '../../runtime/server/index.js';

export interface RequestPattern {
  /** HTTP method(s), upper case (`PATCH`). */
  method?: string | readonly string[];
  /** The verb as authorization sees it: get, list, watch, create, update, patch, delete, deletecollection. */
  verb?: string | readonly string[];
  /** The resource (plural), with `/<subresource>` to name a subresource (`deployments/status`). */
  resource?: string;
  /** The API group (empty for the core group). */
  group?: string;
  namespace?: string;
  name?: string;
  /** The URL path: a RegExp, or text where `*` matches within a segment and `**` across segments. */
  path?: string | RegExp;
  /** The user name the request was made as (after impersonation). */
  user?: string;
}

/** What a pattern is matched against: the request's attributes and its user. */
export interface RequestFacts {
  method: string;
  path: string;
  user: string | undefined;
  attributes: RequestAttributes;
}

export function requestFacts(ctx: RequestContext): RequestFacts {
  return {
    method: ctx.req.method,
    path: ctx.req.path,
    user: ctx.user?.username,
    attributes: requestAttributes(ctx.req.method, ctx.req),
  };
}

export function matches(p: RequestPattern, f: RequestFacts): boolean {
  const a = f.attributes;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return (
    oneOf(p.method, f.method) &&
    oneOf(p.verb, a.verb) &&
    (p.resource === undefined || p.resource === resource) &&
    (p.group === undefined || (a.isResourceRequest && p.group === a.apiGroup)) &&
    (p.namespace === undefined || p.namespace === a.namespace) &&
    (p.name === undefined || p.name === a.name) &&
    (p.user === undefined || p.user === f.user) &&
    (p.path === undefined || pathRegExp(p.path).test(f.path))
  );
}

function oneOf(wanted: string | readonly string[] | undefined, actual: string): boolean {
  if (wanted === undefined) return true;
  return typeof wanted === 'string' ? wanted === actual : wanted.includes(actual);
}

function pathRegExp(path: string | RegExp): RegExp {
  if (path instanceof RegExp) return path;
  const body = path
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}
