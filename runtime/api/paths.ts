import { parseQuery } from './query-params.js';
import { badRequest, StatusError } from './status-error.js';

// Request paths of the resource API:
//   /api/<version>/...            the core group ('')
//   /apis/<group>/<version>/...   named groups
// followed by one of
//   <resource>[/<name>[/<subresource>]]                          cluster-scoped, or a namespaced list across namespaces
//   namespaces/<namespace>/<resource>[/<name>[/<subresource>]]   namespaced
// `namespaces/<name>` is itself a namespace object and `namespaces/<name>/<sub>` one of its
// subresources when the namespaces resource has that subresource (the real system reserves
// `status` and `finalize` this way); otherwise the third segment is a namespaced resource.

/** Where a request points: a collection (no name), an object, or an object's subresource. */
export interface ResourcePath {
  readonly group: string;
  readonly version: string;
  /** Absent for cluster-scoped resources and for lists across all namespaces. */
  readonly namespace?: string;
  readonly resource: string;
  readonly name?: string;
  readonly subresource?: string;
  /** Segments after the subresource (a proxy path), joined by '/'. */
  readonly subpath?: string;
}

/** What the parser needs to know about a served resource. */
export interface ResolvedResource {
  readonly namespaced: boolean;
  readonly subresources?: readonly string[];
}

/** Looks up a served resource; undefined when the group/version does not serve it. */
export type ResourceResolver = (group: string, version: string, resource: string) => ResolvedResource | undefined;

/** `malformed` is answered with 400, `not-found` with 404. */
export type PathErrorReason = 'malformed' | 'not-found';

export class PathError extends Error {
  override readonly name = 'PathError';
  readonly path: string;
  readonly reason: PathErrorReason;
  readonly detail: string;

  constructor(path: string, reason: PathErrorReason, detail: string) {
    super(`${reason === 'malformed' ? 'malformed' : 'no resource at'} path ${JSON.stringify(path)}: ${detail}`);
    this.path = path;
    this.reason = reason;
    this.detail = detail;
  }

  /** 404 NotFound with the real system's message (plus the detail), or 400 BadRequest. */
  toStatusError(): StatusError {
    if (this.reason === 'malformed') return badRequest(this.message);
    return new StatusError({ code: 404, reason: 'NotFound', message: `the server could not find the requested resource: ${this.detail}` });
  }
}

export function isPathError(value: unknown): value is PathError {
  return value instanceof PathError;
}

/** The discovery documents: `/api`, `/api/v1`, `/apis`, `/apis/<group>`, `/apis/<group>/<version>`. */
export interface DiscoveryPath {
  /** `/api` lists core versions, `/apis` all groups: `root` says which. */
  readonly root: 'api' | 'apis';
  readonly group?: string;
  readonly version?: string;
}

function splitSegments(path: string): string[] {
  const pathname = path.split('?')[0] ?? '';
  if (!pathname.startsWith('/')) throw new PathError(path, 'malformed', "must start with '/'");
  const raw = pathname.slice(1).split('/');
  if (raw.length > 1 && raw[raw.length - 1] === '') raw.pop(); // one trailing slash is tolerated
  return raw.map((segment, i) => {
    if (segment === '') throw new PathError(path, 'malformed', `segment ${i + 1} is empty`);
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw new PathError(path, 'malformed', `segment ${JSON.stringify(segment)} has an invalid percent-encoding`);
    }
    if (decoded === '.' || decoded === '..') throw new PathError(path, 'malformed', `segment ${JSON.stringify(decoded)} is not allowed`);
    return decoded;
  });
}

/**
 * A request target read once, as upstream's URL parsing and RequestInfo read it, for routing,
 * authorization, admission and audit alike: the path is never rewritten (no dot segments
 * resolved, as Go's server does not), and every segment is percent-decoded exactly once.
 */
export interface RequestTarget {
  /** The decoded path (Go's URL.Path): what non-resource rules and the authorizer see. */
  readonly path: string;
  /** The decoded segments of the path, empty ones left out. */
  readonly segments: readonly string[];
  /** The query as Go's server reads it (`parseQuery`). */
  readonly query: URLSearchParams;
}

/**
 * Reads a request target: an origin-form path (`/api/v1/pods?watch=1`) or an absolute URL, whose
 * path is taken as sent. Throws PathError (`malformed`, a 400) for an invalid percent-escape or a
 * target that has no path.
 */
export function parseRequestTarget(target: string): RequestTarget {
  // An origin-form target (every client's) starts with its path.
  const absolute = target.startsWith('/') ? null : /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(target);
  const rest = absolute ? target.slice(absolute[0].length) || '/' : target;
  if (!rest.startsWith('/') && !rest.startsWith('?'))
    throw new PathError(target, 'malformed', 'a request target is a path or an absolute URL');
  const q = rest.indexOf('?');
  const rawPath = q < 0 ? rest : rest.slice(0, q) || '/';
  const split = rawPath.split('/');
  // Only a percent-escape changes a segment when decoded.
  const pieces = !rawPath.includes('%')
    ? split
    : split.map((piece) => {
        try {
          return decodeURIComponent(piece);
        } catch {
          throw new PathError(target, 'malformed', `segment ${JSON.stringify(piece)} has an invalid percent-encoding`);
        }
      });
  return {
    path: pieces.join('/'),
    segments: pieces.filter((piece) => piece !== ''),
    query: parseQuery(q < 0 ? '' : rest.slice(q + 1)),
  };
}

/** Reads a discovery path; undefined when `path` is not one. Throws PathError when malformed. */
export function parseDiscoveryPath(path: string): DiscoveryPath | undefined {
  const s = splitSegments(path);
  if (s[0] === 'api' && s.length <= 2) return s[1] === undefined ? { root: 'api' } : { root: 'api', group: '', version: s[1] };
  if (s[0] === 'apis' && s.length <= 3) {
    if (s[1] === undefined) return { root: 'apis' };
    return s[2] === undefined ? { root: 'apis', group: s[1] } : { root: 'apis', group: s[1], version: s[2] };
  }
  return undefined;
}

/**
 * Parses a resource request path (a query string is ignored; one trailing slash is tolerated).
 * Throws PathError: `malformed` for unusable text, `not-found` for resources, scopes or
 * subresources that are not served.
 */
export function parseResourcePath(path: string, resolve: ResourceResolver): ResourcePath {
  return resourcePathOf(splitSegments(path), path, resolve);
}

/**
 * Resolves the decoded segments of a resource request path (`path` only names it in errors). Names
 * are taken as they are: whether a name may be stored is the storage's question, after
 * authorization (upstream's key functions refuse `.` and `..` there, with a 400).
 */
export function resourcePathOf(s: readonly string[], path: string, resolve: ResourceResolver): ResourcePath {
  let group: string;
  let version: string | undefined;
  let rest: string[];
  if (s[0] === 'api') {
    group = '';
    version = s[1];
    rest = s.slice(2);
  } else if (s[0] === 'apis') {
    group = s[1] ?? '';
    version = s[2];
    rest = s.slice(3);
  } else {
    throw new PathError(path, 'not-found', 'resource paths start with /api/<version> or /apis/<group>/<version>');
  }
  const prefix = group === '' ? `/api/${version ?? '<version>'}` : `/apis/${group}/${version ?? '<version>'}`;
  if (version === undefined || rest.length === 0) {
    throw new PathError(path, 'not-found', `no resource named; expected ${prefix}/<resource> (this is a discovery path)`);
  }
  const describe = (resource: string): string => `${group === '' ? '' : `${group}/`}${version}/${resource}`;
  const lookUp = (resource: string): ResolvedResource => {
    const info = resolve(group, version, resource);
    if (!info)
      throw new PathError(path, 'not-found', `resource ${JSON.stringify(resource)} is not served in ${apiVersion(group, version)}`);
    return info;
  };

  let namespace: string | undefined;
  let resource: string;
  let tail: string[]; // [name, subresource, ...subpath]
  let info: ResolvedResource;
  const [first, second, third] = rest;
  if (
    first === 'namespaces' &&
    second !== undefined &&
    third !== undefined &&
    !resolve(group, version, 'namespaces')?.subresources?.includes(third)
  ) {
    namespace = second;
    resource = third;
    tail = rest.slice(3);
    info = lookUp(resource);
    if (!info.namespaced) {
      throw new PathError(path, 'not-found', `${describe(resource)} is cluster-scoped; its objects are at ${prefix}/${resource}/<name>`);
    }
  } else {
    resource = first ?? '';
    tail = rest.slice(1);
    info = lookUp(resource);
    if (info.namespaced && tail.length > 0) {
      throw new PathError(
        path,
        'not-found',
        `${describe(resource)} is namespaced; its objects are at ${prefix}/namespaces/<namespace>/${resource}/<name>`,
      );
    }
  }

  const [name, subresource, ...subpath] = tail;
  if (subresource !== undefined && !info.subresources?.includes(subresource)) {
    const known = info.subresources?.length ? `; it has ${info.subresources.join(', ')}` : '; it has none';
    throw new PathError(path, 'not-found', `${describe(resource)} has no subresource ${JSON.stringify(subresource)}${known}`);
  }
  return {
    group,
    version,
    ...(namespace !== undefined ? { namespace } : {}),
    resource,
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
    ...(subpath.length > 0 ? { subpath: subpath.join('/') } : {}),
  };
}

function apiVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** The request path of a ResourcePath; segments are percent-encoded. Inverse of parseResourcePath. */
export function pathFor(p: ResourcePath): string {
  const enc = encodeURIComponent;
  let path = p.group === '' ? `/api/${enc(p.version)}` : `/apis/${enc(p.group)}/${enc(p.version)}`;
  if (p.namespace !== undefined) path += `/namespaces/${enc(p.namespace)}`;
  path += `/${enc(p.resource)}`;
  if (p.name !== undefined) path += `/${enc(p.name)}`;
  if (p.subresource !== undefined) {
    if (p.name === undefined) throw new RangeError(`a subresource needs a name: ${JSON.stringify(p)}`);
    path += `/${enc(p.subresource)}`;
    if (p.subpath !== undefined) path += `/${p.subpath.split('/').map(enc).join('/')}`;
  }
  return path;
}
