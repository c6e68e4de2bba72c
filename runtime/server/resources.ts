import type { KindRegistration, ResourceDescriptor } from '../schema/index.js';
import { ResourceConverter } from './conversion.js';

/** One resource as served at one group/version: what the handlers need to answer for it. */
export interface ServedResource {
  group: string;
  version: string;
  /** `v1` or `<group>/<version>`. */
  apiVersion: string;
  /** The plural resource name in paths. */
  resource: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  verbs: ReadonlySet<string>;
  subresources: ReadonlySet<string>;
  descriptor: ResourceDescriptor;
  registration: KindRegistration;
  /** Storage key prefix shared by every version of the resource: `/<group>/<plural>/`. */
  storagePrefix: string;
  /** The version objects are stored in; other versions convert on the way in and out. */
  storageVersion: ServedResource | undefined;
  /** Converts objects between every version of the resource, served or not (shared by all of them). */
  converter: ResourceConverter;
  /** `Warning` text for requests to a deprecated version, undefined when it is not deprecated. */
  deprecationWarning?: string;
}

/** The release a server acts as unless told otherwise. */
export const DEFAULT_RELEASE = '1.30';

export interface RegistryOptions {
  /** The release the server acts as: versions removed at or before it are not served. Default 1.30. */
  release?: string;
  /**
   * `--runtime-config`: comma-separated `<key>[=<value>]`, a key being `<group>/<version>` (`v1` or
   * `api/v1` for the core group), `<group>/<version>/<resource>`, or `api/all`; an omitted value
   * means true. It enables removed versions again or disables served ones.
   */
  runtimeConfig?: string;
}

/** The served resources of a server, looked up by group, version and plural name. */
export class ResourceRegistry {
  private readonly byPath = new Map<string, ServedResource>();
  private readonly all: ServedResource[] = [];

  constructor(kinds: readonly KindRegistration[], options: RegistryOptions = {}) {
    const release = options.release ?? DEFAULT_RELEASE;
    const config = parseRuntimeConfig(options.runtimeConfig ?? '');
    const converters = convertersByResource(kinds);
    for (const k of kinds) {
      const r = k.resource;
      if (!r?.served) continue;
      const removed = k.lifecycle?.removed !== undefined && compareRelease(k.lifecycle.removed, release) <= 0;
      const enabled =
        config.get(`${k.group}/${k.version}/${r.plural}`) ?? config.get(`${k.group}/${k.version}`) ?? config.get('api/all') ?? !removed;
      if (!enabled) continue;
      const served: ServedResource = {
        group: k.group,
        version: k.version,
        apiVersion: k.apiVersion,
        resource: r.plural,
        kind: k.kind,
        listKind: k.listKind ?? `${k.kind}List`,
        namespaced: r.scope === 'Namespaced',
        verbs: new Set(r.verbs),
        subresources: new Set(r.subresources),
        descriptor: r,
        registration: k,
        storagePrefix: `/${k.group || 'core'}/${r.plural}/`,
        storageVersion: undefined,
        converter: converters.get(resourceKey(k.group, r.plural))!,
      };
      const warning = deprecationWarning(k);
      if (warning) served.deprecationWarning = warning;
      this.byPath.set(pathKey(k.group, k.version, r.plural), served);
      this.all.push(served);
    }
    for (const s of this.all) s.storageVersion = this.chooseStorageVersion(s);
  }

  get(group: string, version: string, resource: string): ServedResource | undefined {
    return this.byPath.get(pathKey(group, version, resource));
  }

  resources(): readonly ServedResource[] {
    return this.all;
  }

  /** Whether `group/version` serves anything (an unknown one is a 404). */
  hasGroupVersion(group: string, version: string): boolean {
    return this.all.some((r) => r.group === group && r.version === version);
  }

  /** Every version of the same resource (same group and plural). */
  versionsOf(r: ServedResource): ServedResource[] {
    return this.all.filter((o) => o.group === r.group && o.resource === r.resource);
  }

  /** The namespaced resources, for cascading a namespace's deletion (one entry per storage prefix). */
  namespacedStorage(): ServedResource[] {
    const seen = new Set<string>();
    return this.all.filter((r) => r.namespaced && r.storageVersion === r && !seen.has(r.storagePrefix) && seen.add(r.storagePrefix));
  }

  private chooseStorageVersion(r: ServedResource): ServedResource {
    const versions = this.versionsOf(r);
    return versions.find((v) => v.descriptor.storage) ?? versions.find((v) => !v.deprecationWarning) ?? versions[0] ?? r;
  }
}

/** `--runtime-config` as a map from `<group>/<version>[/<resource>]` (core group: empty group) to on/off. */
export function parseRuntimeConfig(text: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [rawKey, rawValue] = item.split('=', 2) as [string, string | undefined];
    const value = rawValue === undefined || rawValue === '' ? true : rawValue === 'true' ? true : rawValue === 'false' ? false : undefined;
    if (value === undefined) throw new Error(`--runtime-config ${item}: the value must be true or false`);
    // The core group is spelled `v1` or `api/v1`; everything else `<group>/<version>[/<resource>]`.
    const key =
      rawKey === 'api/all'
        ? rawKey
        : rawKey === 'v1' || rawKey === 'api/v1'
          ? '/v1'
          : rawKey.startsWith('api/v1/')
            ? `/v1/${rawKey.slice(7)}`
            : rawKey;
    out.set(key, value);
  }
  return out;
}

/** One converter per resource (group and plural), over every version the kinds declare. */
function convertersByResource(kinds: readonly KindRegistration[]): Map<string, ResourceConverter> {
  const versions = new Map<string, KindRegistration[]>();
  for (const k of kinds) {
    if (!k.resource) continue;
    const key = resourceKey(k.group, k.resource.plural);
    versions.set(key, [...(versions.get(key) ?? []), k]);
  }
  return new Map([...versions].map(([key, ks]) => [key, new ResourceConverter(ks)]));
}

function resourceKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

/** Compares releases such as 1.25 and 1.30 numerically. */
function compareRelease(a: string, b: string): number {
  const [am = 0, an = 0] = a.split('.').map(Number);
  const [bm = 0, bn = 0] = b.split('.').map(Number);
  return am - bm || an - bn;
}

function pathKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}

/** The real system's deprecation warning: `<group/version> <Kind> is deprecated in v1.X+, unavailable in v1.Y+; use <replacement>`. */
function deprecationWarning(k: KindRegistration): string | undefined {
  const l = k.lifecycle;
  if (!l?.deprecated && !l?.removed) return undefined;
  const parts = [`${k.apiVersion} ${k.kind} is deprecated in v${l.deprecated ?? '?'}+`];
  if (l.removed) parts.push(`unavailable in v${l.removed}+`);
  let text = parts.join(', ');
  if (l.replacement) text += `; use ${l.replacement} ${k.kind}`;
  return text;
}
