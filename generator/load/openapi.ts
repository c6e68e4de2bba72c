import type { GroupVersion, KindInfo, NamedType, ResourceInfo, TypeId, TypeNode } from '../model/index.js';
import { apiVersionOf, typeKey } from '../model/index.js';
import { LoadError, joinPath } from './load-error.js';
import { META_GROUP, type LinkContext } from './link.js';
import { describe, normalizeMarkers, toTypeNode, type NodeContext } from './schema-node.js';
import { isRecord } from './svc-schema.js';

type Json = Record<string, unknown>;

interface GroupVersionId {
  group: string;
  version: string;
}

/** One `x-kubernetes-group-version-kind` entry. */
interface Gvk extends GroupVersionId {
  kind: string;
}

/** Where a document keeps its named schemas and how its `$ref`s spell them. */
interface Layout {
  flavor: 'OpenAPI v3' | 'OpenAPI v2';
  schemas: Json;
  schemasPath: string;
  refPrefix: string;
}

const V3_REF_PREFIX = '#/components/schemas/';
const V2_REF_PREFIX = '#/definitions/';
const API_VERSION = /^v\d+((alpha|beta)\d+)?$/;
const TYPE_NAME = /^[A-Za-z_]\w*$/;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
/** `x-kubernetes-action` to the resource verb it grants. */
const ACTION_VERBS: Readonly<Record<string, string>> = {
  get: 'get',
  list: 'list',
  watch: 'watch',
  watchlist: 'watch',
  post: 'create',
  put: 'update',
  patch: 'patch',
  delete: 'delete',
  deletecollection: 'deletecollection',
};

/**
 * Packages whose group is not what their name or kinds say: the meta types are shared with CRDs
 * and svckit's own schemas, which know them as `meta.svc.io` (Status there carries gvk `v1`).
 */
const FIXED_PACKAGE_GROUPS: ReadonlyMap<string, string> = new Map([['io.k8s.apimachinery.pkg.apis.meta', META_GROUP]]);

/**
 * Types with a wire form of their own: references to them become the model's node for that form,
 * and no named type is emitted for them.
 */
const WELL_KNOWN_NODES: ReadonlyMap<string, TypeNode> = new Map<string, TypeNode>([
  ['io.k8s.apimachinery.pkg.api.resource.Quantity', { kind: 'quantity' }],
  ['io.k8s.apimachinery.pkg.util.intstr.IntOrString', { kind: 'int-or-string' }],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.Time', { kind: 'time', format: 'date-time' }],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime', { kind: 'time', format: 'date-time' }],
  ['io.k8s.apimachinery.pkg.runtime.RawExtension', { kind: 'raw' }],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1', { kind: 'raw' }],
]);
/** The group of the placeholder ids that stand for well-known types until they are replaced. */
const WELL_KNOWN_GROUP = '(well-known)';

/** True for an OpenAPI v3 (`openapi: 3.x`) or v2 (`swagger: "2.0"`) document. */
export function isOpenApi(doc: unknown): boolean {
  return isRecord(doc) && (typeof doc.openapi === 'string' || doc.swagger === '2.0');
}

/**
 * Loads an OpenAPI v3 or v2 document: every named schema becomes a named type of the group/version
 * its name (or its package's kinds) says, kinds come from `x-kubernetes-group-version-kind`, and
 * resources from the operations under `paths`.
 */
export function loadOpenApi(doc: unknown, file: string, link: LinkContext): GroupVersion[] {
  if (!isRecord(doc)) throw new LoadError(file, '', `expected an OpenAPI document, found ${describe(doc)}`);
  const layout = readLayout(doc, file);
  const place = placement(layout, doc.info, file);
  const ctx = nodeContext(layout, place, file, link);

  const byKey = new Map<string, GroupVersion>();
  const seen = new Map<string, string>();
  for (const [name, value] of Object.entries(layout.schemas)) {
    if (WELL_KNOWN_NODES.has(name)) continue;
    const path = joinPath(layout.schemasPath, name);
    const id = place(name);
    checkUnique(id, name, seen, file, path);
    const gv = groupVersionFor(id, byKey, file);
    gv.types.push(loadNamedType(id, value, ctx, link, path));
  }
  const groupVersions = [...byKey.values()];
  attachResources(doc.paths, groupVersions, file);
  return groupVersions;
}

function readLayout(doc: Json, file: string): Layout {
  if (doc.swagger === '2.0') {
    return {
      flavor: 'OpenAPI v2',
      schemas: schemaMap(doc.definitions, file, '.definitions'),
      schemasPath: '.definitions',
      refPrefix: V2_REF_PREFIX,
    };
  }
  if (typeof doc.openapi !== 'string' || !/^3\./.test(doc.openapi)) {
    throw new LoadError(file, '.openapi', `expected an OpenAPI 3.x version, found ${describe(doc.openapi)}`);
  }
  const components = doc.components ?? {};
  if (!isRecord(components)) throw new LoadError(file, '.components', `expected a mapping, found ${describe(components)}`);
  return {
    flavor: 'OpenAPI v3',
    schemas: schemaMap(components.schemas, file, '.components.schemas'),
    schemasPath: '.components.schemas',
    refPrefix: V3_REF_PREFIX,
  };
}

function schemaMap(value: unknown, file: string, path: string): Json {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new LoadError(file, path, `expected a map of named schemas, found ${describe(value)}`);
  return value;
}

function nodeContext(layout: Layout, place: (name: string) => TypeId, file: string, link: LinkContext): NodeContext {
  return {
    file,
    strict: false,
    embeds: link.embeds,
    resolveRef: (ref, path) => {
      const name = refName(ref, layout);
      if (name === undefined) {
        const other =
          layout.refPrefix === V3_REF_PREFIX
            ? `"${V2_REF_PREFIX}<Name>" is the OpenAPI v2 form`
            : `"${V3_REF_PREFIX}<Name>" is the OpenAPI v3 form`;
        throw new LoadError(
          file,
          path,
          `expected a reference "${layout.refPrefix}<Name>" in an ${layout.flavor} document (${other}), found ${JSON.stringify(ref)}`,
        );
      }
      // Well-known types get a placeholder id: replaceWellKnown swaps the ref for the node.
      if (WELL_KNOWN_NODES.has(name)) return { group: WELL_KNOWN_GROUP, version: '', name };
      const id = place(name);
      link.refs.push({ id, file, path });
      return id;
    },
  };
}

/** The schema name a local `$ref` points at (JSON-pointer escapes decoded), or undefined. */
function refName(ref: string, layout: Layout): string | undefined {
  if (!ref.startsWith(layout.refPrefix)) return undefined;
  const rest = ref.slice(layout.refPrefix.length);
  if (rest === '' || rest.includes('/')) return undefined;
  return rest.replaceAll('~1', '/').replaceAll('~0', '~');
}

// ---------------------------------------------------------------------------------------------
// Names to group/version

/**
 * Maps schema names to type ids. `io.k8s.api.core.v1.Pod` is type Pod of package
 * `io.k8s.api.core.v1`, which lives where its kinds say; a plain `Pet` lives in the document's
 * own group. Names of schemas missing from the document map the same way, so that the linker can
 * report them as dangling.
 */
function placement(layout: Layout, info: unknown, file: string): (name: string) => TypeId {
  const packages = packageGroupVersions(layout, file);
  let plain: GroupVersionId | undefined;
  return (name) => {
    const dot = name.lastIndexOf('.');
    if (dot < 0) {
      plain ??= documentGroupVersion(info, file);
      return { ...plain, name };
    }
    const pkg = name.slice(0, dot);
    const gv = fixedGroupVersion(pkg) ?? packages.get(pkg) ?? packageGroupVersion(pkg);
    return { ...gv, name: name.slice(dot + 1) };
  };
}

/**
 * The group/version of every package that declares a kind. Only single-entry gvk lists count:
 * a type listed under several kinds (DeleteOptions) is shared and says nothing about its package.
 */
function packageGroupVersions(layout: Layout, file: string): Map<string, GroupVersionId> {
  const out = new Map<string, GroupVersionId>();
  const witness = new Map<string, string>();
  for (const [name, value] of Object.entries(layout.schemas)) {
    const dot = name.lastIndexOf('.');
    if (dot < 0 || !isRecord(value)) continue;
    const pkg = name.slice(0, dot);
    const path = joinPath(layout.schemasPath, name);
    const gvks = readSchemaGvks(value, file, path);
    if (gvks.length !== 1 || fixedGroupVersion(pkg)) continue;
    const { group, version } = gvks[0] as Gvk;
    const known = out.get(pkg);
    if (known && (known.group !== group || known.version !== version)) {
      throw new LoadError(
        file,
        path,
        `package ${pkg} has kinds in ${apiVersionOf(group, version)} and in ${apiVersionOf(known.group, known.version)} (${witness.get(pkg)}); a package maps to one group/version`,
      );
    }
    out.set(pkg, { group, version });
    witness.set(pkg, name);
  }
  return out;
}

/** `a.b.c.v1beta1` is group `a.b.c`, version `v1beta1`; a package without a version is `v1`. */
function packageGroupVersion(pkg: string): GroupVersionId {
  const segments = pkg.split('.');
  const last = segments.at(-1) ?? '';
  if (!API_VERSION.test(last)) return { group: pkg, version: 'v1' };
  return { group: segments.slice(0, -1).join('.'), version: last };
}

function fixedGroupVersion(pkg: string): GroupVersionId | undefined {
  const { group, version } = packageGroupVersion(pkg);
  const fixed = FIXED_PACKAGE_GROUPS.get(group);
  return fixed === undefined ? undefined : { group: fixed, version };
}

/** Plain names: `info.x-svc-group`, else the title as a group; `info.version` when it is an API version. */
function documentGroupVersion(info: unknown, file: string): GroupVersionId {
  const rec = isRecord(info) ? info : {};
  const version = typeof rec.version === 'string' && API_VERSION.test(rec.version) ? rec.version : 'v1';
  const explicit = rec['x-svc-group'];
  if (explicit !== undefined) {
    if (typeof explicit !== 'string' || explicit === '')
      throw new LoadError(file, '.info["x-svc-group"]', `expected a group name, found ${describe(explicit)}`);
    return { group: explicit, version };
  }
  const slug =
    typeof rec.title === 'string'
      ? rec.title
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-+|-+$/g, '')
      : '';
  if (slug === '') {
    throw new LoadError(
      file,
      '.info.title',
      'schemas with plain names need a group: set info.x-svc-group or an info.title with letters or digits',
    );
  }
  return { group: `${slug}.svc.io`, version };
}

function checkUnique(id: TypeId, name: string, seen: Map<string, string>, file: string, path: string): void {
  const key = typeKey(id);
  const other = seen.get(key);
  if (other !== undefined) throw new LoadError(file, path, `schemas "${other}" and "${name}" both map to type ${key}`);
  if (!TYPE_NAME.test(id.name)) throw new LoadError(file, path, `type name "${id.name}" (from schema "${name}") is not an identifier`);
  seen.set(key, name);
}

function groupVersionFor(id: TypeId, byKey: Map<string, GroupVersion>, file: string): GroupVersion {
  const key = apiVersionOf(id.group, id.version);
  let gv = byKey.get(key);
  if (!gv) {
    gv = { group: id.group, version: id.version, sources: [file], types: [] };
    byKey.set(key, gv);
  }
  return gv;
}

// ---------------------------------------------------------------------------------------------
// Named types and kinds

function loadNamedType(id: TypeId, value: unknown, ctx: NodeContext, link: LinkContext, path: string): NamedType {
  const embedsBefore = link.embeds.length;
  const node = replaceWellKnown(toTypeNode(value, ctx, path));
  rejectWellKnownEmbeds(link.embeds.slice(embedsBefore));
  const named: NamedType = { id, node, source: { file: ctx.file, path } };
  if (node.description !== undefined) named.description = node.description;
  const kind = readKind(id, value, node, ctx.file, path);
  if (kind) named.kind = kind;
  return named;
}

/** Swaps the placeholder refs to well-known types for their nodes, keeping what the use site said. */
function replaceWellKnown(node: TypeNode): TypeNode {
  switch (node.kind) {
    case 'ref': {
      const wellKnown = node.target.group === WELL_KNOWN_GROUP ? WELL_KNOWN_NODES.get(node.target.name) : undefined;
      if (!wellKnown) return node;
      const { kind: _ref, target: _target, ...useSite } = node;
      // Generated v3 documents give struct-typed fields `default: {}`, Go's zero struct, which
      // means nothing for a string wire form.
      if (isRecord(useSite.default) && Object.keys(useSite.default).length === 0) delete useSite.default;
      return { ...useSite, ...wellKnown };
    }
    case 'object':
      for (const field of node.fields) field.type = replaceWellKnown(field.type);
      return node;
    case 'map':
      node.values = replaceWellKnown(node.values);
      return node;
    case 'list':
      node.items = replaceWellKnown(node.items);
      return node;
    default:
      return node;
  }
}

function rejectWellKnownEmbeds(embeds: LinkContext['embeds']): void {
  for (const embed of embeds) {
    const target = embed.targets.find((t) => t.id.group === WELL_KNOWN_GROUP);
    if (target) throw new LoadError(embed.file, embed.path, `allOf can only embed object types; ${target.id.name} is not one`);
  }
}

/**
 * A schema is a kind when it names exactly one group/version/kind, or when it is a `<Name>List`
 * with `items` (lists of plain documents carry no gvk).
 */
function readKind(id: TypeId, value: unknown, node: TypeNode, file: string, path: string): KindInfo | undefined {
  const schema = isRecord(value) ? value : {};
  const gvks = readSchemaGvks(schema, file, path);
  const isList = id.name.endsWith('List') && node.kind === 'object' && node.fields.some((f) => f.name === 'items');
  if (gvks.length !== 1 && !isList) return undefined;
  if (node.kind !== 'object') throw new LoadError(file, path, 'a kind must be an object type');
  const gvk = gvks.length === 1 ? (gvks[0] as Gvk) : { ...id, kind: id.name };
  if (gvk.kind !== id.name) {
    throw new LoadError(file, markerPath(schema, path, 'group-version-kind'), `kind "${gvk.kind}" differs from the type name "${id.name}"`);
  }
  return { kind: gvk.kind, apiVersion: apiVersionOf(gvk.group, gvk.version), listKind: `${gvk.kind}List` };
}

function readSchemaGvks(schema: Json, file: string, path: string): Gvk[] {
  const raw = normalizeMarkers(schema)['x-svc-group-version-kind'];
  if (raw === undefined) return [];
  const listPath = markerPath(schema, path, 'group-version-kind');
  if (!Array.isArray(raw)) throw new LoadError(file, listPath, `expected a list of {group, version, kind}, found ${describe(raw)}`);
  return raw.map((entry, i) => readGvk(entry, file, joinPath(listPath, i)));
}

function readGvk(value: unknown, file: string, path: string): Gvk {
  if (
    !isRecord(value) ||
    typeof value.group !== 'string' ||
    typeof value.version !== 'string' ||
    typeof value.kind !== 'string' ||
    value.kind === ''
  ) {
    throw new LoadError(file, path, `expected {group, version, kind} (group "" for the core group), found ${describe(value)}`);
  }
  return { group: value.group, version: value.version, kind: value.kind };
}

// ---------------------------------------------------------------------------------------------
// Resources from paths

/** What the operations on one plural say, gathered over all its paths. */
interface ResourceDraft {
  plural: string;
  /** The kind of the collection and item paths (subresource paths may name other kinds). */
  kind?: Gvk;
  kindPath: string;
  namespaced: boolean;
  verbs: Set<string>;
  subresources: Set<string>;
}

/** The parts of a resource path, e.g. `/api/v1/namespaces/{namespace}/pods/{name}/status`. */
interface ResourcePath {
  /** The path up to the version (`/api/v1`): one plural under two prefixes is two resources. */
  prefix: string;
  plural: string;
  namespaced: boolean;
  subresource?: string;
}

function attachResources(paths: unknown, groupVersions: GroupVersion[], file: string): void {
  if (paths === undefined) return;
  if (!isRecord(paths)) throw new LoadError(file, '.paths', `expected a map of paths, found ${describe(paths)}`);
  const drafts = new Map<string, ResourceDraft>();
  for (const [route, item] of Object.entries(paths)) {
    if (isRecord(item)) readPathItem(route, item, drafts, file);
  }
  const kinds = new Map(
    groupVersions.flatMap((gv) => gv.types.filter((t) => t.kind).map((t) => [kindKey(t.kind as KindInfo), t] as const)),
  );
  for (const draft of drafts.values()) {
    if (!draft.kind) continue;
    const target = kinds.get(gvkKey(draft.kind));
    if (!target?.kind) {
      throw new LoadError(
        file,
        draft.kindPath,
        `the operation serves kind ${draft.kind.kind} of ${apiVersionOf(draft.kind.group, draft.kind.version) || 'v1'}, which no schema of this document declares`,
      );
    }
    if (target.kind.resource && target.kind.resource.plural !== draft.plural) {
      throw new LoadError(file, draft.kindPath, `kind ${draft.kind.kind} is already served as ${target.kind.resource.plural}`);
    }
    target.kind.resource = toResource(draft, target.kind.kind);
  }
}

function readPathItem(route: string, item: Json, drafts: Map<string, ResourceDraft>, file: string): void {
  const itemPath = joinPath('.paths', route);
  for (const method of HTTP_METHODS) {
    const op = item[method];
    if (!isRecord(op)) continue;
    const opPath = joinPath(itemPath, method);
    const marked = normalizeMarkers(op);
    const action = marked['x-svc-action'];
    const rawGvk = marked['x-svc-group-version-kind'];
    if (typeof action !== 'string' || rawGvk === undefined) continue;
    const gvk = readGvk(rawGvk, file, markerPath(op, opPath, 'group-version-kind'));
    const parsed = parseResourcePath(route, gvk.version);
    if (!parsed) continue;
    const draft = draftFor(parsed, drafts, opPath);
    draft.namespaced ||= parsed.namespaced;
    if (parsed.subresource !== undefined) {
      draft.subresources.add(parsed.subresource);
      continue;
    }
    if (draft.kind && (draft.kind.kind !== gvk.kind || draft.kind.group !== gvk.group || draft.kind.version !== gvk.version)) {
      throw new LoadError(file, opPath, `${parsed.plural} serves kind ${gvk.kind} here and ${draft.kind.kind} at ${draft.kindPath}`);
    }
    if (!draft.kind) {
      draft.kind = gvk;
      draft.kindPath = opPath;
    }
    const verb = ACTION_VERBS[action];
    if (verb !== undefined) draft.verbs.add(verb);
  }
}

function draftFor(parsed: ResourcePath, drafts: Map<string, ResourceDraft>, opPath: string): ResourceDraft {
  const key = `${parsed.prefix} ${parsed.plural}`;
  let draft = drafts.get(key);
  if (!draft) {
    draft = { plural: parsed.plural, kindPath: opPath, namespaced: false, verbs: new Set(), subresources: new Set() };
    drafts.set(key, draft);
  }
  return draft;
}

/**
 * Splits `/api/v1/...` or `/apis/<group>/<version>/...` (else: up to the segment equal to the
 * operation's version), then `[watch/][namespaces/{namespace}/]<plural>[/{name}[/<subresource>]]`.
 */
function parseResourcePath(route: string, version: string): ResourcePath | undefined {
  const segments = route.split('/').filter((s) => s !== '');
  const versionAt = segments[0] === 'api' ? 1 : segments[0] === 'apis' ? 2 : segments.indexOf(version);
  if (versionAt < 0 || versionAt >= segments.length) return undefined;
  let rest = segments.slice(versionAt + 1);
  if (rest[0] === 'watch') rest = rest.slice(1);
  const namespaced = rest[0] === 'namespaces' && rest[1] === '{namespace}' && rest.length >= 3;
  if (namespaced) rest = rest.slice(2);
  const [plural, name, subresource] = rest;
  if (plural === undefined || isParameter(plural)) return undefined;
  const parsed: ResourcePath = { prefix: segments.slice(0, versionAt + 1).join('/'), plural, namespaced };
  if (subresource !== undefined) {
    if (name === undefined || !isParameter(name) || isParameter(subresource)) return undefined;
    parsed.subresource = subresource;
  }
  return parsed;
}

function isParameter(segment: string): boolean {
  return segment.startsWith('{') && segment.endsWith('}');
}

function toResource(draft: ResourceDraft, kind: string): ResourceInfo {
  return {
    plural: draft.plural,
    singular: kind.toLowerCase(),
    scope: draft.namespaced ? 'Namespaced' : 'Cluster',
    verbs: VERB_ORDER.filter((v) => draft.verbs.has(v)),
    subresources: [...draft.subresources].sort(),
    shortNames: [],
    categories: [],
    printerColumns: [],
    served: true,
    // An OpenAPI document does not say which version is stored.
    storage: false,
    conversion: [],
    custom: false,
    // An OpenAPI document declares no kind behaviour.
    selectableFields: [],
    generation: false,
    subresourceHandlers: {},
    hooks: [],
  };
}

/** Kinds and the gvk of operations meet on `<apiVersion> <kind>`. */
function kindKey(kind: KindInfo): string {
  return `${kind.apiVersion} ${kind.kind}`;
}

function gvkKey(gvk: Gvk): string {
  return `${apiVersionOf(gvk.group, gvk.version)} ${gvk.kind}`;
}

/** The JSON path of a marker as the document spells it (`x-kubernetes-*` or `x-svc-*`). */
function markerPath(raw: Json, path: string, suffix: string): string {
  const svc = `x-svc-${suffix}`;
  return joinPath(path, svc in raw ? svc : `x-kubernetes-${suffix}`);
}
