import { badRequest, isPathError, parseResourcePath } from '../api/index.js';
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
 * Routes a request path. Core resources live under `/api/v1`, named groups under
 * `/apis/<group>/<version>`; namespaced ones also under `.../namespaces/<ns>/<resource>`. The
 * shape `namespaces/<name>/<x>` is a namespace subresource when `<x>` is not a namespaced resource.
 */
export function route(path: string, registry: ResourceRegistry): Route {
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeSegment(path, s));
  const [first, ...rest] = segments;
  if (first === 'version' && rest.length === 0) return { kind: 'version' };
  if ((first === 'healthz' || first === 'livez' || first === 'readyz') && rest.length <= 1) return { kind: 'health', check: first };
  if (first === 'openapi') return { kind: 'openapi', path: rest.join('/') };
  if (first === 'metrics' && rest.length === 0) return { kind: 'metrics' };
  if (first === 'api') {
    if (rest.length === 0) return { kind: 'api-versions' };
    const [version, ...tail] = rest;
    return resourceRoute(registry, path, '', version!, tail);
  }
  if (first === 'apis') {
    if (rest.length === 0) return { kind: 'api-groups' };
    const [group, version, ...tail] = rest;
    if (version === undefined) return { kind: 'api-group', group: group! };
    return resourceRoute(registry, path, group!, version, tail);
  }
  return { kind: 'not-found', message: `the server could not find the requested resource (path ${path})` };
}

/** A percent-decoded path segment; 400 for an invalid escape, as Go's URL parser refuses it. */
function decodeSegment(path: string, segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`the request path ${path} has an invalid escape in ${JSON.stringify(segment)}`);
  }
}

function resourceRoute(registry: ResourceRegistry, path: string, group: string, version: string, tail: string[]): Route {
  if (!registry.hasGroupVersion(group, version)) {
    return {
      kind: 'not-found',
      message: `the server could not find the requested resource (${group === '' ? '' : `${group}/`}${version} is not served)`,
    };
  }
  if (tail.length === 0) return { kind: 'api-resources', group, version };
  try {
    // The path grammar (scopes, the namespaces/<name>/<subresource> ambiguity) lives in runtime/api.
    const p = parseResourcePath(path, (g, v, resource) => {
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
