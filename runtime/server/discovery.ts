import type { ResourceRegistry, ServedResource } from './resources.js';

/** Verbs of subresources, as the real system lists them in discovery. */
const SUBRESOURCE_VERBS: Record<string, { kind?: string; group?: string; version?: string; verbs: string[] }> = {
  status: { verbs: ['get', 'patch', 'update'] },
  scale: { kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] },
  eviction: { kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
  finalize: { verbs: ['update'] },
  binding: { kind: 'Binding', verbs: ['create'] },
  ephemeralcontainers: { verbs: ['get', 'patch', 'update'] },
  exec: { kind: 'PodExecOptions', verbs: ['create', 'get'] },
  attach: { kind: 'PodAttachOptions', verbs: ['create', 'get'] },
  portforward: { kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
};

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
  const resources = registry.resources().filter((r) => r.group === group && r.version === version);
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources: resources.flatMap((r) => [resourceEntry(r), ...[...r.subresources].sort().map((s) => subresourceEntry(r, s))]),
  };
}

function resourceEntry(r: ServedResource): Record<string, unknown> {
  const entry: Record<string, unknown> = {
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

function subresourceEntry(r: ServedResource, sub: string): Record<string, unknown> {
  const known = SUBRESOURCE_VERBS[sub] ?? { verbs: ['get'] };
  const entry: Record<string, unknown> = {
    name: `${r.resource}/${sub}`,
    singularName: '',
    namespaced: r.namespaced,
    kind: known.kind ?? r.kind,
    verbs: known.verbs,
  };
  if (known.group) entry.group = known.group;
  if (known.version) entry.version = known.version;
  return entry;
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
