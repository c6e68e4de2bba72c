import { SPEC_GROUP_SUFFIX, apiVersionWithSuffix, groupWithSuffix } from '../api/index.js';
import type { KindRegistration, ResourceDescriptor } from '../schema/index.js';
import { type ExternalConversion, ResourceConverter } from './conversion.js';

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
  /**
   * Storage key prefix shared by every version of the resource, as kube-apiserver lays out etcd:
   * `/registry/<plural>/` for a built-in resource, `/registry/<group>/<plural>/` for a custom one
   * (see storagePrefixOf).
   */
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
  /** The suffix the spec's groups are served under (`--group-suffix`); the kinds are already renamed. Default svc.io. */
  groupSuffix?: string;
}

/** The served resources of a server, looked up by group, version and plural name. */
export class ResourceRegistry {
  private readonly byPath = new Map<string, ServedResource>();
  private all: ServedResource[] = [];
  private readonly release: string;
  /** Every kind the server was given, served or not (a subresource's request kind), by `<apiVersion> <Kind>`. */
  private readonly kinds: ReadonlyMap<string, KindRegistration>;

  /** The suffix the spec's groups are served under (`svc.io`, or `k8s.io` with `--group-suffix`). */
  readonly groupSuffix: string;

  constructor(kinds: readonly KindRegistration[], options: RegistryOptions = {}) {
    this.groupSuffix = options.groupSuffix ?? SPEC_GROUP_SUFFIX;
    this.release = options.release ?? DEFAULT_RELEASE;
    this.kinds = new Map(kinds.map((k) => [`${k.apiVersion} ${k.kind}`, k]));
    this.add(kinds, parseRuntimeConfig(options.runtimeConfig ?? '', kinds));
  }

  /** The registration of a kind the server was given (under its served apiVersion), served as a resource or not. */
  registration(apiVersion: string, kind: string): KindRegistration | undefined {
    return this.kinds.get(`${apiVersion} ${kind}`);
  }

  /**
   * Serves the versions of one resource defined at run time (a CustomResourceDefinition), in
   * place of what was served under its group and plural: later requests see the new definition.
   */
  replace(group: string, plural: string, kinds: readonly KindRegistration[], conversion?: ExternalConversion): void {
    this.remove(group, plural);
    this.add(kinds, new Map(), conversion);
  }

  /** Stops serving every version of a resource (its definition was deleted). */
  remove(group: string, plural: string): void {
    for (const r of this.all.filter((o) => o.group === group && o.resource === plural)) {
      this.byPath.delete(pathKey(r.group, r.version, r.resource));
    }
    this.all = this.all.filter((o) => o.group !== group || o.resource !== plural);
  }

  private add(kinds: readonly KindRegistration[], config: Map<string, boolean>, conversion?: ExternalConversion): void {
    const release = this.release;
    const converters = convertersByResource(kinds, conversion);
    const added: ServedResource[] = [];
    for (const k of kinds) {
      const r = k.resource;
      if (!r?.served) continue;
      const removed = k.lifecycle?.removed !== undefined && compareRelease(k.lifecycle.removed, release) <= 0;
      const enabled =
        config.get(`${k.group}/${k.version}/${r.plural}`) ??
        config.get(`${k.group}/${k.version}`) ??
        config.get(`api/${trackOf(k.version)}`) ??
        config.get('api/all') ??
        !removed;
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
        storagePrefix: storagePrefixOf(k.group, r.plural, r.custom),
        storageVersion: undefined,
        converter: converters.get(storagePrefixOf(k.group, r.plural, r.custom))!,
      };
      const warning = deprecationWarning(k);
      if (warning) served.deprecationWarning = warning;
      this.byPath.set(pathKey(k.group, k.version, r.plural), served);
      added.push(served);
    }
    // A new array on every change: readers such as encryption at rest cache by its identity.
    this.all = [...this.all, ...added];
    for (const s of added) s.storageVersion = this.chooseStorageVersion(s);
  }

  /** The served name of a group the spec names (`rbac.authorization.svc.io`), for code that names one. */
  servedGroup(specGroup: string): string {
    return groupWithSuffix(specGroup, this.groupSuffix);
  }

  /**
   * The served name of an apiVersion the spec names (`admission.svc.io/v1`), or of a key a spec
   * group prefixes (`authorization.svc.io/decision`): what the server sends (reviews to webhooks,
   * audit events and their annotations) carries the served names, as the routes do.
   */
  servedApiVersion(specApiVersion: string): string {
    return apiVersionWithSuffix(specApiVersion, this.groupSuffix);
  }

  get(group: string, version: string, resource: string): ServedResource | undefined {
    return this.byPath.get(pathKey(group, version, resource));
  }

  /** Every served resource; a new array after each change (a definition served, replaced or removed). */
  resources(): readonly ServedResource[] {
    return this.all;
  }

  /** Whether `group/version` serves anything (an unknown one is a 404). */
  hasGroupVersion(group: string, version: string): boolean {
    return this.all.some((r) => r.group === group && r.version === version);
  }

  /**
   * Every version of the same resource: those that share its objects (same storage prefix). That is
   * the same group and plural, or for built-in kinds the same plural in another group, as upstream's
   * core and events.k8s.io Events are one resource.
   */
  versionsOf(r: ServedResource): ServedResource[] {
    return this.all.filter((o) => o.storagePrefix === r.storagePrefix);
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

/** A `--runtime-config` value the server cannot start with (a malformed entry, or a key naming nothing known). */
export class RuntimeConfigError extends Error {
  override readonly name = 'RuntimeConfigError';
}

export function isRuntimeConfigError(e: unknown): e is RuntimeConfigError {
  return e instanceof RuntimeConfigError;
}

/** The keys that name every version of a track (or all), as the real flag's `api/all`, `api/ga`, `api/beta`, `api/alpha`. */
const TRACK_KEYS = ['api/all', 'api/ga', 'api/beta', 'api/alpha'];

/**
 * `--runtime-config` as a map from `<group>/<version>[/<resource>]` (core group: empty group) or a
 * track key to on/off. With `kinds`, a key must name a group, version and resource they declare
 * (served in this release or not): a typo is an error, not a silent no-op.
 */
export function parseRuntimeConfig(text: string, kinds?: readonly KindRegistration[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const at = item.indexOf('=');
    const rawKey = (at < 0 ? item : item.slice(0, at)).trim();
    const rawValue = at < 0 ? '' : item.slice(at + 1).trim();
    const value = rawValue === '' || rawValue === 'true' ? true : rawValue === 'false' ? false : undefined;
    if (value === undefined) throw new RuntimeConfigError(`--runtime-config ${item}: the value must be true or false`);
    const key = canonicalKey(rawKey);
    if (key === undefined) {
      throw new RuntimeConfigError(
        `--runtime-config ${item}: a key is <group>/<version>, <group>/<version>/<resource>, v1 or api/v1 for the core group, or one of ${TRACK_KEYS.join(', ')}`,
      );
    }
    if (kinds) checkKnown(key, item, kinds);
    out.set(key, value);
  }
  return out;
}

/** The core group is spelled `v1` or `api/v1`; everything else `<group>/<version>[/<resource>]`. */
function canonicalKey(rawKey: string): string | undefined {
  if (TRACK_KEYS.includes(rawKey)) return rawKey;
  if (rawKey === 'v1' || rawKey === 'api/v1') return '/v1';
  if (rawKey.startsWith('api/v1/')) return `/v1/${rawKey.slice(7)}`;
  const parts = rawKey.split('/');
  if ((parts.length !== 2 && parts.length !== 3) || parts.some((p) => p === '')) return undefined;
  return rawKey;
}

function checkKnown(key: string, item: string, kinds: readonly KindRegistration[]): void {
  if (TRACK_KEYS.includes(key)) return;
  const [group = '', version = '', resource] = key.split('/');
  const ofGroup = kinds.filter((k) => k.group === group && k.resource);
  const spelled = group === '' ? 'the core group' : `group ${group}`;
  if (ofGroup.length === 0) {
    const groups = [...new Set(kinds.filter((k) => k.resource).map((k) => k.group || 'v1'))].sort();
    throw new RuntimeConfigError(`--runtime-config ${item}: unknown API group "${group}" (known: ${groups.join(', ')})`);
  }
  const ofVersion = ofGroup.filter((k) => k.version === version);
  if (ofVersion.length === 0) {
    const versions = [...new Set(ofGroup.map((k) => k.version))].sort();
    throw new RuntimeConfigError(
      `--runtime-config ${item}: ${rawGroupVersion(group, version)}: unknown version of ${spelled} (known: ${versions.join(', ')})`,
    );
  }
  if (resource !== undefined && !ofVersion.some((k) => k.resource?.plural === resource)) {
    const plurals = ofVersion.map((k) => k.resource!.plural).sort();
    throw new RuntimeConfigError(
      `--runtime-config ${item}: ${rawGroupVersion(group, version)}/${resource}: ${rawGroupVersion(group, version)} has no resource ${resource} (known: ${plurals.join(', ')})`,
    );
  }
}

function rawGroupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** The stability track of a version name: `v1` GA, `v1beta1` beta, `v1alpha1` alpha. */
function trackOf(version: string): 'ga' | 'beta' | 'alpha' {
  return version.includes('alpha') ? 'alpha' : version.includes('beta') ? 'beta' : 'ga';
}

/** One converter per resource (group and plural), over every version the kinds declare; `conversion` instead of their declarations. */
function convertersByResource(kinds: readonly KindRegistration[], conversion?: ExternalConversion): Map<string, ResourceConverter> {
  const versions = new Map<string, KindRegistration[]>();
  for (const k of kinds) {
    if (!k.resource) continue;
    const key = storagePrefixOf(k.group, k.resource.plural, k.resource.custom);
    versions.set(key, [...(versions.get(key) ?? []), k]);
  }
  return new Map([...versions].map(([key, ks]) => [key, new ResourceConverter(ks, conversion)]));
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
  if (l?.warning) return l.warning;
  if (!l?.deprecated && !l?.removed) return undefined;
  const parts = [`${k.apiVersion} ${k.kind} is deprecated in v${l.deprecated ?? '?'}+`];
  if (l.removed) parts.push(`unavailable in v${l.removed}+`);
  let text = parts.join(', ');
  if (l.replacement) text += `; use ${l.replacement} ${k.kind}`;
  return text;
}

/** The root of every object key, as kube-apiserver's default `--etcd-prefix`. */
export const STORAGE_ROOT = '/registry/';

/**
 * The prefixes kube-apiserver compiles in for resources kept under older names
 * (`SpecialDefaultResourcePrefixes`), so that etcdctl users find objects where they expect them.
 */
const SPECIAL_PREFIXES: Readonly<Record<string, string>> = {
  '/replicationcontrollers': 'controllers',
  '/endpoints': 'services/endpoints',
  '/nodes': 'minions',
  '/services': 'services/specs',
};

/**
 * Where a resource's objects live: built-in resources under `/registry/<plural>/` (a plural is
 * unique across the built-in groups, as upstream's are, and versions and groups that share a
 * resource share its objects); custom resources under `/registry/<group>/<plural>/`, as the
 * apiextensions server keys them, so that two CRDs with one plural in different groups never meet.
 */
export function storagePrefixOf(group: string, plural: string, custom: boolean): string {
  if (custom) return `${STORAGE_ROOT}${group}/${plural}/`;
  return `${STORAGE_ROOT}${SPECIAL_PREFIXES[`${group}/${plural}`] ?? plural}/`;
}
