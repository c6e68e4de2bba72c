import { type RequestTarget, type ResolvedResource, isPathError, resourcePathOf } from '../api/index.js';
import type { ResourceRegistry, ServedResource } from './resources.js';

/** What a request path addresses. */
export type Route =
  | { kind: 'api-versions' }
  | { kind: 'api-groups' }
  | { kind: 'api-group'; group: string }
  | { kind: 'api-resources'; group: string; version: string }
  | { kind: 'version' }
  | { kind: 'health'; check: string }
  | { kind: 'openapi'; path: string }
  | { kind: 'metrics' }
  | {
      kind: 'resource';
      resource: ServedResource;
      namespace: string | undefined;
      name: string | undefined;
      subresource: string | undefined;
      /** Under `/watch/`: upstream's deprecated watch routes, GET only, watching whatever the query says. */
      watchPath: boolean;
    }
  | { kind: 'not-found'; message: string };

/**
 * Routes a request by the decoded segments of its path (`RequestTarget`), the same the
 * authorizer judges. Core resources live under `/api/v1`, named groups under
 * `/apis/<group>/<version>`; namespaced ones also under `.../namespaces/<ns>/<resource>`. The
 * shape `namespaces/<name>/<x>` is a namespace subresource when `<x>` is not a namespaced resource.
 * `/api/v1/watch/...` and `/apis/<group>/<version>/watch/...` are still served in 1.30 (deprecated
 * since 1.11): a watch of the collection or, with a name, of one object; the subresources, and
 * resources that cannot be watched (and listed, for a collection), have no such route.
 */
export function route(target: Pick<RequestTarget, 'path' | 'segments'>, registry: ResourceRegistry): Route {
  const { path, segments } = target;
  const [first, ...rest] = segments;
  if (first === 'version' && rest.length === 0) return { kind: 'version' };
  if ((first === 'healthz' || first === 'livez' || first === 'readyz') && rest.length <= 1) return { kind: 'health', check: first };
  if (first === 'openapi') return { kind: 'openapi', path: rest.join('/') };
  if (first === 'metrics' && rest.length === 0) return { kind: 'metrics' };
  if (first === 'api') {
    if (rest.length === 0) return { kind: 'api-versions' };
    const [version] = rest;
    return resourceRoute(registry, path, segments, '', version!, rest.length - 1);
  }
  if (first === 'apis') {
    if (rest.length === 0) return { kind: 'api-groups' };
    const [group, version] = rest;
    if (version === undefined) return { kind: 'api-group', group: group! };
    return resourceRoute(registry, path, segments, group!, version, rest.length - 2);
  }
  return { kind: 'not-found', message: `the server could not find the requested resource (path ${path})` };
}

function resourceRoute(
  registry: ResourceRegistry,
  path: string,
  segments: readonly string[],
  group: string,
  version: string,
  tail: number,
): Route {
  if (!registry.hasGroupVersion(group, version)) {
    return {
      kind: 'not-found',
      message: `the server could not find the requested resource (${group === '' ? '' : `${group}/`}${version} is not served)`,
    };
  }
  if (tail === 0) return { kind: 'api-resources', group, version };
  const prefixLength = segments.length - tail;
  const watchPath = segments[prefixLength] === 'watch' && tail > 1;
  const resourceSegments = watchPath ? [...segments.slice(0, prefixLength), ...segments.slice(prefixLength + 1)] : segments;
  try {
    // The path grammar (scopes, the namespaces/<name>/<subresource> ambiguity) lives in runtime/api.
    const p = resourcePathOf(resourceSegments, path, (g, v, resource) => {
      const r = registry.get(g, v, resource);
      return r && resolvedOf(r);
    });
    if (p.subpath !== undefined && p.subpath.length > 0)
      return { kind: 'not-found', message: `the server could not find the requested resource (${path})` };
    const resource = registry.get(p.group, p.version, p.resource)!;
    if (watchPath && !watchable(resource, p.name, p.subresource))
      return { kind: 'not-found', message: `the server could not find the requested resource (${path})` };
    return { kind: 'resource', resource, namespace: p.namespace, name: p.name, subresource: p.subresource, watchPath };
  } catch (e) {
    if (isPathError(e)) return { kind: 'not-found', message: `the server could not find the requested resource (${e.message})` };
    throw e;
  }
}

/** What the path grammar needs of a served resource, made once per resource. */
const resolved = new WeakMap<ServedResource, ResolvedResource>();

function resolvedOf(r: ServedResource): ResolvedResource {
  let out = resolved.get(r);
  if (!out) resolved.set(r, (out = { namespaced: r.namespaced, subresources: [...r.subresources] }));
  return out;
}

/** Upstream installs a watch route for an object of a watcher, and for a collection of a watcher that also lists. */
function watchable(r: ServedResource, name: string | undefined, subresource: string | undefined): boolean {
  if (subresource !== undefined || !r.verbs.has('watch')) return false;
  return name !== undefined || r.verbs.has('list');
}
