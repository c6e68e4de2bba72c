import { createHash } from 'node:crypto';
import type { RequestContext } from './context.js';
import type { Reply } from './http.js';
import { subresourceKind, subresourceVerbs } from './request-kind.js';
import type { ResourceRegistry, ServedResource } from './resources.js';

/** `/api`: the core group's versions. */
export function apiVersions(serverAddress: string): unknown {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

/** `/apis`: every named group with its versions and preferred version. */
export function apiGroupList(registry: ResourceRegistry): unknown {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groupNames(registry).map((g) => apiGroup(registry, g)) };
}

/** `/apis/<group>`: one group; undefined when the server does not serve it. */
export function apiGroup(registry: ResourceRegistry, group: string): Record<string, unknown> | undefined {
  const versions = versionsOf(registry, group);
  if (versions.length === 0) return undefined;
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions: entries, preferredVersion: entries[0] };
}

/** `/api/v1` or `/apis/<group>/<version>`: the resources of a group/version and their subresources. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string): unknown {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources: resourceEntries(registry, group, version),
  };
}

/** The `APIResource` entries of a group/version: each resource followed by its subresources (`<resource>/<sub>`). */
function resourceEntries(registry: ResourceRegistry, group: string, version: string): APIResource[] {
  const resources = registry.resources().filter((r) => r.group === group && r.version === version);
  return resources.flatMap((r) => [resourceEntry(r), ...[...r.subresources].sort().map((s) => subresourceEntry(registry, r, s))]);
}

/**
 * Aggregated discovery (`APIGroupDiscoveryList`): every group of `/api` (the core group, unnamed)
 * or of `/apis` with its versions, preferred first, each with its resources. Built from the same
 * entries as the plain documents, as upstream converts them (`ConvertGroupVersionIntoToDiscovery`).
 */
export function apiGroupDiscoveryList(registry: ResourceRegistry, root: 'api' | 'apis', apiVersion: string): unknown {
  const groups = root === 'api' ? [''] : groupNames(registry);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion,
    metadata: {},
    items: groups.map((group) => ({
      // Go's zero ObjectMeta: creationTimestamp is written as null (1.30), an empty name left out.
      metadata: group === '' ? { creationTimestamp: null } : { name: group, creationTimestamp: null },
      versions: versionsOf(registry, group).map((version) => ({
        version,
        resources: resourceDiscoveries(resourceEntries(registry, group, version)),
        freshness: 'Current',
      })),
    })),
  };
}

/**
 * An aggregated discovery document as upstream serves it (`aggregated/etag.go`): a quoted ETag of
 * its content, `Vary: Accept` (the same path answers the plain documents), `Cache-Control: public`,
 * and 304 with no body when the client's `If-None-Match` names the current ETag.
 */
export function aggregatedDiscovery(ctx: Pick<RequestContext, 'req'>, document: unknown): Reply {
  const etag = `"${createHash('sha512').update(JSON.stringify(document)).digest('hex').toUpperCase()}"`;
  const headers = { etag, vary: 'Accept', 'cache-control': 'public' };
  if (ctx.req.headers['if-none-match'] === etag) return { status: 304, body: '', headers };
  return { status: 200, body: document, headers };
}

/** `APIResource` entries as `APIResourceDiscovery`: subresources nested under their resource. */
function resourceDiscoveries(entries: APIResource[]): Record<string, unknown>[] {
  const parents = new Map<string, Record<string, unknown> & { subresources?: unknown[] }>();
  for (const e of entries) {
    if (e.name.includes('/')) continue;
    const discovered: Record<string, unknown> = {
      resource: e.name,
      responseKind: responseKind(e),
      scope: e.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: e.singularName,
      verbs: e.verbs,
    };
    if (e.shortNames) discovered.shortNames = e.shortNames;
    if (e.categories) discovered.categories = e.categories;
    parents.set(e.name, discovered);
  }
  for (const e of entries) {
    const [parent, subresource] = e.name.split('/', 2);
    if (subresource === undefined) continue;
    const owner = parents.get(parent!)!;
    (owner.subresources ??= []).push({ subresource, responseKind: responseKind(e), verbs: e.verbs });
  }
  return [...parents.values()];
}

/** Go's GroupVersionKind: every field written, the group and version empty when they are the resource's own. */
function responseKind(e: APIResource): { group: string; version: string; kind: string } {
  return { group: e.group ?? '', version: e.version ?? '', kind: e.kind };
}

/** An entry of an `APIResourceList` (metav1.APIResource). */
interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  group?: string;
  version?: string;
  shortNames?: readonly string[];
  categories?: readonly string[];
}

function resourceEntry(r: ServedResource): APIResource {
  const entry: APIResource = {
    name: r.resource,
    singularName: r.descriptor.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: [...r.verbs],
  };
  if (r.descriptor.shortNames.length > 0) entry.shortNames = r.descriptor.shortNames;
  if (r.descriptor.categories.length > 0) entry.categories = r.descriptor.categories;
  return entry;
}

/** A subresource's entry: its declared request kind (under its group and version when not the resource's) and verbs. */
function subresourceEntry(registry: ResourceRegistry, r: ServedResource, sub: string): APIResource {
  const kind = subresourceKind(registry, r, sub);
  const entry: APIResource = {
    name: `${r.resource}/${sub}`,
    singularName: '',
    namespaced: r.namespaced,
    kind: kind?.kind ?? r.kind,
    verbs: [...subresourceVerbs(r, sub)],
  };
  if (kind && (kind.group !== r.group || kind.version !== r.version)) {
    entry.group = kind.group;
    entry.version = kind.version;
  }
  return entry;
}

/** Whether `path` (`api/v1`, `apis/<group>/<version>`, as OpenAPI documents are keyed) names a served group/version. */
export function servesGroupVersionPath(registry: ResourceRegistry, path: string): boolean {
  return registry.resources().some((r) => (r.group === '' ? `api/${r.version}` : `apis/${r.group}/${r.version}`) === path);
}

function groupNames(registry: ResourceRegistry): string[] {
  return [
    ...new Set(
      registry
        .resources()
        .map((r) => r.group)
        .filter((g) => g !== ''),
    ),
  ].sort();
}

/** Versions of a group, preferred first: GA before beta before alpha, newer before older. */
function versionsOf(registry: ResourceRegistry, group: string): string[] {
  const versions = [
    ...new Set(
      registry
        .resources()
        .filter((r) => r.group === group)
        .map((r) => r.version),
    ),
  ];
  return versions.sort((a, b) => versionPriority(b) - versionPriority(a));
}

/** The real system's version order: v2 > v1 > v1beta2 > v1beta1 > v1alpha1. */
export function versionPriority(version: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
  if (!m) return 0;
  const major = Number(m[1]);
  const track = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
  const minor = m[3] === undefined ? 0 : Number(m[3]);
  return track * 1_000_000 + major * 1000 + minor;
}
