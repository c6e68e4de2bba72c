import { type RequestTarget, isPathError, resourcePathOf } from '../api/index.js';
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
  | { kind: 'resource'; resource: ServedResource; namespace: string | undefined; name: string | undefined; subresource: string | undefined }
  | { kind: 'not-found'; message: string };

/**
 * Routes a request by the decoded segments of its path (`RequestTarget`), the same the
 * authorizer judges. Core resources live under `/api/v1`, named groups under
 * `/apis/<group>/<version>`; namespaced ones also under `.../namespaces/<ns>/<resource>`. The
 * shape `namespaces/<name>/<x>` is a namespace subresource when `<x>` is not a namespaced resource.
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
  try {
    // The path grammar (scopes, the namespaces/<name>/<subresource> ambiguity) lives in runtime/api.
    const p = resourcePathOf(segments, path, (g, v, resource) => {
      const r = registry.get(g, v, resource);
      return r && { namespaced: r.namespaced, subresources: [...r.subresources] };
    });
    if (p.subpath !== undefined && p.subpath.length > 0)
      return { kind: 'not-found', message: `the server could not find the requested resource (${path})` };
    return {
      kind: 'resource',
      resource: registry.get(p.group, p.version, p.resource)!,
      namespace: p.namespace,
      name: p.name,
      subresource: p.subresource,
    };
  } catch (e) {
    if (isPathError(e)) return { kind: 'not-found', message: `the server could not find the requested resource (${e.message})` };
    throw e;
  }
}
