import { type RequestTarget, parseQuery, parseRequestTarget, queryBool } from '../api/index.js';

/**
 * Request attributes: what an authorizer needs to know about a request, derived from its method,
 * path and query alone (before the body is read), the way the real system's RequestInfo resolver
 * does. Authorization runs before routing, so this must not depend on the server's resource
 * catalogue: an unknown resource still gets attributes, and the authorizer decides.
 */

/** The attributes of one request, as authorizers and the SubjectAccessReview see them. */
export interface RequestAttributes {
  /** True for `/api/<version>/...` and `/apis/<group>/<version>/...` paths with a resource segment. */
  readonly isResourceRequest: boolean;
  /** The URL path (always set; the thing non-resource rules match). */
  readonly path: string;
  /**
   * Resource requests: get, list, watch, create, update, patch, delete, deletecollection, or a
   * path-prefix verb (proxy, redirect). Non-resource requests: the lowercase HTTP method.
   */
  readonly verb: string;
  /** `api` or `apis`; empty for non-resource requests. */
  readonly apiPrefix: string;
  /** Empty for the core group. */
  readonly apiGroup: string;
  readonly apiVersion: string;
  /** Empty for cluster-scoped requests. */
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  /** Empty for collection requests (unless a `metadata.name=` field selector pins one name). */
  readonly name: string;
}

const API_PREFIXES = new Set(['api', 'apis']);
const GROUPLESS_PREFIXES = new Set(['api']);
/** Verbs written as the first path segment after the version: `/api/v1/watch/pods`. */
const PATH_VERBS = new Set(['proxy', 'watch']);
/** Path verbs that keep the rest of the path for themselves (`proxy/.../<name>/<any/path>`): no subresource. */
const PATH_VERBS_WITHOUT_SUBRESOURCE = new Set(['proxy']);
/** Subresources of a namespace itself (`/api/v1/namespaces/x/status`), not a resource inside it. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const METHOD_VERBS: Readonly<Record<string, string>> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** A target that cannot be read (an invalid escape) is judged as the non-resource path it is. */
function parseOrUndefined(target: string): ParsedTarget | undefined {
  try {
    return parseRequestTarget(target);
  } catch {
    return undefined;
  }
}

/** The attributes of a request for a non-resource path (`/healthz`, `/version`): the verb is the lowercase method. */
export function nonResource(method: string, path: string): RequestAttributes {
  return {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
}

/** The name pinned by `fieldSelector=metadata.name=<n>` (or `==`), when it is a valid path segment. */
function nameFromFieldSelector(selector: string | null): string {
  if (!selector) return '';
  const terms = selector.split(',');
  for (const term of terms) {
    const m = /^\s*metadata\.name\s*(==|=)\s*(.*?)\s*$/.exec(term);
    if (!m) continue;
    const name = m[2] ?? '';
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('%')) return '';
    return name;
  }
  return '';
}

/** A request target whose segments are decoded once (runtime/api's `parseRequestTarget`). */
export type ParsedTarget = Pick<RequestTarget, 'path' | 'segments'> & { readonly query?: URLSearchParams };

/**
 * Derives the attributes of a request from the same decoded segments the router reads, so what
 * is authorized and audited is what is served. `target` is a parsed target (the server's
 * request) or a request path as sent (percent-encoded, with or without its query); `query`, when
 * given, is the query string (with or without `?`) or URLSearchParams.
 */
export function requestAttributes(method: string, target: string | ParsedTarget, query?: string | URLSearchParams): RequestAttributes {
  const parsed = typeof target === 'string' ? parseOrUndefined(target) : target;
  if (!parsed) return nonResource(method, typeof target === 'string' ? target : target.path);
  const params =
    query === undefined
      ? (parsed.query ?? new URLSearchParams())
      : typeof query === 'string'
        ? parseQuery(query.startsWith('?') ? query.slice(1) : query)
        : query;
  const path = parsed.path;
  let parts = [...parsed.segments];
  // The shortest resource path is /api/<version>/<resource>.
  if (parts.length < 3 || !API_PREFIXES.has(parts[0] as string)) return nonResource(method, path);
  const apiPrefix = parts[0] as string;
  parts = parts.slice(1);
  let apiGroup = '';
  if (!GROUPLESS_PREFIXES.has(apiPrefix)) {
    if (parts.length < 3) return nonResource(method, path);
    apiGroup = parts[0] as string;
    parts = parts.slice(1);
  }
  const apiVersion = parts[0] as string;
  parts = parts.slice(1);

  let verb: string;
  if (PATH_VERBS.has(parts[0] as string)) {
    // `/api/v1/watch` alone names no resource; it is not a resource request.
    if (parts.length < 2) return nonResource(method, path);
    verb = parts[0] as string;
    parts = parts.slice(1);
  } else {
    verb = METHOD_VERBS[method.toUpperCase()] ?? '';
  }

  let namespace = '';
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      namespace = parts[1] as string;
      // /namespaces/<ns>/<resource>...: the resource inside the namespace becomes the subject;
      // /namespaces/<ns> and /namespaces/<ns>/status stay about the namespace object itself.
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] as string)) parts = parts.slice(2);
    }
  }

  const resource = parts[0] ?? '';
  let name = parts[1] ?? '';
  const subresource = parts.length >= 3 && !PATH_VERBS_WITHOUT_SUBRESOURCE.has(verb) ? (parts[2] as string) : '';

  if (name === '' && verb === 'get') {
    verb = queryBool(params, 'watch') ? 'watch' : 'list';
    name = nameFromFieldSelector(params.get('fieldSelector'));
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';

  return { isResourceRequest: true, path, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name };
}
