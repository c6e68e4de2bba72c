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
  | { kind: 'resource'; r: ServedResource; namespace: string | undefined; name: string | undefined; subresource: string | undefined }
  | { kind: 'not-found'; message: string };

/**
 * Routes a request path. Core resources live under `/api/v1`, named groups under
 * `/apis/<group>/<version>`; namespaced ones also under `.../namespaces/<ns>/<resource>`. The
 * shape `namespaces/<name>/<x>` is a namespace subresource when `<x>` is not a namespaced resource.
 */
export function route(path: string, registry: ResourceRegistry): Route {
  const segments = path.split('/').filter((s) => s !== '').map(decodeURIComponent);
  const [first, ...rest] = segments;
  if (first === 'version' && rest.length === 0) return { kind: 'version' };
  if ((first === 'healthz' || first === 'livez' || first === 'readyz') && rest.length <= 1) return { kind: 'health', check: first };
  if (first === 'openapi') return { kind: 'openapi', path: rest.join('/') };
  if (first === 'api') {
    if (rest.length === 0) return { kind: 'api-versions' };
    const [version, ...tail] = rest;
    return resourceRoute(registry, '', version!, tail);
  }
  if (first === 'apis') {
    if (rest.length === 0) return { kind: 'api-groups' };
    const [group, version, ...tail] = rest;
    if (version === undefined) return { kind: 'api-group', group: group! };
    return resourceRoute(registry, group!, version, tail);
  }
  return { kind: 'not-found', message: `the server could not find the requested resource (path ${path})` };
}

function resourceRoute(registry: ResourceRegistry, group: string, version: string, tail: string[]): Route {
  if (!registry.hasGroupVersion(group, version)) {
    return { kind: 'not-found', message: `the server could not find the requested resource (${group === '' ? '' : `${group}/`}${version} is not served)` };
  }
  if (tail.length === 0) return { kind: 'api-resources', group, version };
  const unknown = (name: string): Route => ({ kind: 'not-found', message: `the server could not find the requested resource (${name})` });

  if (tail[0] === 'namespaces' && tail.length >= 3) {
    const [, namespace, plural, name, subresource, ...extra] = tail;
    const r = registry.get(group, version, plural!);
    if (r?.namespaced) {
      if (extra.length > 0) return unknown(tail.join('/'));
      return checkSubresource({ kind: 'resource', r, namespace, name, subresource }, unknown);
    }
    // namespaces/<name>/<subresource> of the cluster-scoped namespaces resource.
    const ns = registry.get(group, version, 'namespaces');
    if (ns && tail.length === 3 && ns.subresources.has(plural!)) return { kind: 'resource', r: ns, namespace: undefined, name: namespace, subresource: plural };
    return unknown(`resource "${plural}" in ${group === '' ? '' : `${group}/`}${version}`);
  }
  const [plural, name, subresource, ...extra] = tail;
  const r = registry.get(group, version, plural!);
  if (!r || extra.length > 0) return unknown(`resource "${plural}" in ${group === '' ? '' : `${group}/`}${version}`);
  if (r.namespaced && name !== undefined) return unknown(`a namespaced ${r.resource} is addressed under namespaces/<namespace>/${r.resource}`);
  return checkSubresource({ kind: 'resource', r, namespace: undefined, name, subresource }, unknown);
}

function checkSubresource(route: Extract<Route, { kind: 'resource' }>, unknown: (name: string) => Route): Route {
  if (route.subresource !== undefined && !route.r.subresources.has(route.subresource)) return unknown(`${route.r.resource}/${route.subresource}`);
  return route;
}
