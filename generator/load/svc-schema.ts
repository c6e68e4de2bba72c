import type {
  GroupVersion,
  KindInfo,
  Lifecycle,
  NameValidation,
  NamedType,
  PrinterColumn,
  ResourceInfo,
  ScalePaths,
  SubresourceDeclaration,
  TypeId,
} from '../model/index.js';
import { apiVersionOf } from '../model/index.js';
import { LoadError, joinPath } from './load-error.js';
import { asSchema, checkKeys, describe, optString, toTypeNode, type NodeContext } from './schema-node.js';
import type { LinkContext } from './link.js';

const FILE_KEYS = new Set(['group', 'version', 'description', 'lifecycle', 'definitions']);
const LIFECYCLE_KEYS = new Set(['introduced', 'deprecated', 'removed', 'replacement']);
const RESOURCE_KEYS = new Set([
  'plural',
  'singular',
  'scope',
  'verbs',
  'subresources',
  'shortNames',
  'categories',
  'printerColumns',
  'served',
  'storage',
  'conversion',
  'selectableFields',
  'nameValidation',
  'generation',
  'virtual',
  'subresourceHandlers',
  'scale',
  'hooks',
  'deleteReturnsObject',
  'createOnUpdate',
  'printer',
]);
const NAME_VALIDATIONS = new Set(['dns1123-subdomain', 'dns1123-label', 'path-segment']);
const DEFAULT_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/** True when a parsed YAML document is in svckit's own schema format. */
export function isSvcSchema(doc: unknown): boolean {
  return isRecord(doc) && typeof doc.version === 'string' && 'definitions' in doc && 'group' in doc;
}

/** `#Name` (same file) or `<group>/<version>#Name`; the core group is spelled `core`. */
export function parseSvcRef(ref: string, here: { group: string; version: string }): TypeId | undefined {
  const m = /^(?:([^#\s]+)\/([^#/\s]+))?#([A-Za-z_][\w]*)$/.exec(ref);
  if (!m) return undefined;
  const [, g, v, name] = m;
  if (g === undefined || v === undefined) return { group: here.group, version: here.version, name: name as string };
  return { group: g === 'core' ? '' : g, version: v, name: name as string };
}

/** Loads one file of svckit's own format into a group/version of the model. */
export function loadSvcSchema(doc: unknown, file: string, link: LinkContext): GroupVersion {
  if (!isRecord(doc)) throw new LoadError(file, '', `expected a mapping with group, version and definitions, found ${describe(doc)}`);
  const here = { group: String(doc.group), version: String(doc.version) };
  const ctx: NodeContext = {
    file,
    strict: true,
    embeds: link.embeds,
    resolveRef: (ref, path) => {
      const id = parseSvcRef(ref, here);
      if (!id) throw new LoadError(file, path, `expected "#Name" or "<group>/<version>#Name", found ${JSON.stringify(ref)}`);
      link.refs.push({ id, file, path });
      return id;
    },
  };
  checkKeys(doc, [FILE_KEYS], ctx, '');
  const group = doc.group;
  if (typeof group !== 'string') throw new LoadError(file, '.group', `expected a string ("" for the core group), found ${describe(group)}`);
  const version = doc.version;
  if (typeof version !== 'string' || !/^v\d+((alpha|beta)\d+)?$/.test(version)) {
    throw new LoadError(file, '.version', `expected a version such as v1, v1beta3 or v1alpha1, found ${describe(version)}`);
  }
  const gv: GroupVersion = { group, version, sources: [file], types: [] };
  const description = optString(doc, 'description', ctx, '');
  if (description !== undefined) gv.description = description;
  if (doc.lifecycle !== undefined) gv.lifecycle = readLifecycle(doc.lifecycle, ctx, '.lifecycle');

  const definitions = doc.definitions;
  if (!isRecord(definitions)) throw new LoadError(file, '.definitions', `expected a map of named types, found ${describe(definitions)}`);
  for (const [name, value] of Object.entries(definitions)) {
    const path = joinPath('.definitions', name);
    if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) throw new LoadError(file, path, 'a type name is PascalCase letters and digits');
    gv.types.push(loadNamedType(name, value, gv, ctx, path));
  }
  return gv;
}

function loadNamedType(name: string, value: unknown, gv: GroupVersion, ctx: NodeContext, path: string): NamedType {
  const schema = asSchema(value, ctx, path);
  // The kind-level markers are read here; every other key is checked by the node converter.
  const {
    'x-svc-kind': kindName,
    'x-svc-api-version': apiVersion,
    'x-svc-resource': resource,
    'x-svc-lifecycle': lifecycle,
    ...rest
  } = schema;
  const node = toTypeNode(rest, ctx, path);
  const id = { group: gv.group, version: gv.version, name };
  const named: NamedType = { id, node, source: { file: ctx.file, path } };
  if (node.description !== undefined) named.description = node.description;
  if (kindName !== undefined) {
    if (typeof kindName !== 'string' || kindName !== name) {
      throw new LoadError(ctx.file, joinPath(path, 'x-svc-kind'), `expected the type's own name "${name}", found ${describe(kindName)}`);
    }
    if (node.kind !== 'object') throw new LoadError(ctx.file, path, 'a kind must be an object type');
    const kind: KindInfo = {
      kind: name,
      apiVersion: typeof apiVersion === 'string' ? apiVersion : apiVersionOf(gv.group, gv.version),
      listKind: `${name}List`,
    };
    if (resource !== undefined) kind.resource = readResource(resource, name, ctx, joinPath(path, 'x-svc-resource'));
    if (lifecycle !== undefined) kind.lifecycle = readLifecycle(lifecycle, ctx, joinPath(path, 'x-svc-lifecycle'));
    named.kind = kind;
  } else if (resource !== undefined || apiVersion !== undefined || lifecycle !== undefined) {
    throw new LoadError(ctx.file, path, 'x-svc-resource, x-svc-api-version and x-svc-lifecycle need x-svc-kind');
  }
  return named;
}

function readLifecycle(value: unknown, ctx: NodeContext, path: string): Lifecycle {
  const rec = asSchema(value, ctx, path);
  checkKeys(rec, [LIFECYCLE_KEYS], ctx, path);
  const out: Lifecycle = {};
  for (const key of LIFECYCLE_KEYS) {
    const v = rec[key];
    if (v === undefined) continue;
    if (typeof v !== 'string')
      throw new LoadError(ctx.file, joinPath(path, key), `expected a quoted release such as "1.29", found ${describe(v)}`);
    out[key as keyof Lifecycle] = v;
  }
  return out;
}

function readResource(value: unknown, kind: string, ctx: NodeContext, path: string): ResourceInfo {
  const rec = asSchema(value, ctx, path);
  checkKeys(rec, [RESOURCE_KEYS], ctx, path);
  const plural = optString(rec, 'plural', ctx, path);
  if (!plural || !/^[a-z][a-z0-9]*$/.test(plural))
    throw new LoadError(ctx.file, joinPath(path, 'plural'), `expected a lowercase plural resource name, found ${describe(plural)}`);
  const scope = rec.scope;
  if (scope !== 'Cluster' && scope !== 'Namespaced')
    throw new LoadError(ctx.file, joinPath(path, 'scope'), `expected Cluster or Namespaced, found ${describe(scope)}`);
  return {
    plural,
    singular: optString(rec, 'singular', ctx, path) ?? kind.toLowerCase(),
    scope,
    verbs: stringList(rec, 'verbs', ctx, path) ?? [...DEFAULT_VERBS],
    subresources: stringList(rec, 'subresources', ctx, path) ?? [],
    shortNames: stringList(rec, 'shortNames', ctx, path) ?? [],
    categories: stringList(rec, 'categories', ctx, path) ?? [],
    printerColumns: readPrinterColumns(rec.printerColumns, ctx, joinPath(path, 'printerColumns')),
    served: rec.served !== false,
    storage: rec.storage === true,
    conversion: readConversion(rec.conversion, ctx, joinPath(path, 'conversion')),
    custom: false,
    ...readBehaviour(rec, ctx, path, stringList(rec, 'subresources', ctx, path) ?? []),
  };
}

/** The kind behaviour a resource declares: field selectors, name rule, generation, named handlers. */
function readBehaviour(
  rec: Record<string, unknown>,
  ctx: NodeContext,
  path: string,
  subresources: readonly string[],
): Pick<
  ResourceInfo,
  | 'selectableFields'
  | 'nameValidation'
  | 'generation'
  | 'virtual'
  | 'subresourceHandlers'
  | 'scale'
  | 'hooks'
  | 'deleteReturnsObject'
  | 'createOnUpdate'
  | 'printer'
> {
  const nameValidation = optString(rec, 'nameValidation', ctx, path);
  if (nameValidation !== undefined && !NAME_VALIDATIONS.has(nameValidation)) {
    throw new LoadError(
      ctx.file,
      joinPath(path, 'nameValidation'),
      `expected dns1123-subdomain, dns1123-label or path-segment, found ${describe(nameValidation)}`,
    );
  }
  for (const flag of ['generation', 'deleteReturnsObject', 'createOnUpdate']) {
    if (rec[flag] !== undefined && typeof rec[flag] !== 'boolean')
      throw new LoadError(ctx.file, joinPath(path, flag), `expected true or false, found ${describe(rec[flag])}`);
  }
  const handlers =
    rec.subresourceHandlers === undefined ? {} : asSchema(rec.subresourceHandlers, ctx, joinPath(path, 'subresourceHandlers'));
  const subresourceHandlers: Record<string, SubresourceDeclaration> = {};
  for (const [sub, declared] of Object.entries(handlers)) {
    const at = joinPath(joinPath(path, 'subresourceHandlers'), sub);
    if (!subresources.includes(sub))
      throw new LoadError(ctx.file, at, `${sub} is not one of the resource's subresources (${subresources.join(', ') || 'none'})`);
    subresourceHandlers[sub] = subresourceDeclaration(declared, ctx, at);
  }
  const virtual = optString(rec, 'virtual', ctx, path);
  const printer = optString(rec, 'printer', ctx, path);
  const scale = rec.scale === undefined ? undefined : scalePaths(rec.scale, ctx, joinPath(path, 'scale'), subresources);
  return {
    selectableFields: stringList(rec, 'selectableFields', ctx, path) ?? [],
    ...(nameValidation !== undefined ? { nameValidation: nameValidation as NameValidation } : {}),
    generation: rec.generation === true,
    ...(virtual !== undefined ? { virtual } : {}),
    subresourceHandlers,
    ...(scale !== undefined ? { scale } : {}),
    hooks: stringList(rec, 'hooks', ctx, path) ?? [],
    ...(rec.deleteReturnsObject === true ? { deleteReturnsObject: true } : {}),
    ...(rec.createOnUpdate === true ? { createOnUpdate: true } : {}),
    ...(printer !== undefined ? { printer } : {}),
  };
}

export function readPrinterColumns(value: unknown, ctx: NodeContext, path: string): PrinterColumn[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new LoadError(ctx.file, path, `expected a list of {name, type, jsonPath}, found ${describe(value)}`);
  return value.map((item, i) => {
    const p = joinPath(path, i);
    const rec = asSchema(item, ctx, p);
    const name = optString(rec, 'name', ctx, p);
    const type = optString(rec, 'type', ctx, p);
    const jsonPath = optString(rec, 'jsonPath', ctx, p);
    if (!name || !type || !jsonPath) throw new LoadError(ctx.file, p, 'a printer column needs name, type and jsonPath');
    const col: PrinterColumn = { name, type, jsonPath };
    const description = optString(rec, 'description', ctx, p);
    if (description !== undefined) col.description = description;
    const format = optString(rec, 'format', ctx, p);
    if (format !== undefined) col.format = format;
    if (typeof rec.priority === 'number') col.priority = rec.priority;
    return col;
  });
}

function readConversion(value: unknown, ctx: NodeContext, path: string): ResourceInfo['conversion'] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new LoadError(ctx.file, path, `expected a list of conversion rules, found ${describe(value)}`);
  return value.map((item, i): ResourceInfo['conversion'][number] => {
    const p = joinPath(path, i);
    const rec = asSchema(item, ctx, p);
    checkKeys(rec, [CONVERSION_KEYS], ctx, p);
    const converter = optString(rec, 'converter', ctx, p);
    if (converter) {
      if (Object.keys(rec).length > 1) throw new LoadError(ctx.file, p, 'a converter rule names the converter only');
      return { converter };
    }
    const from = optString(rec, 'path', ctx, p);
    if (!from) throw new LoadError(ctx.file, p, 'a conversion rule needs path (or is a converter)');
    const annotation = optString(rec, 'preserveZeroAnnotation', ctx, p);
    if (annotation) return { path: from, preserveZeroAnnotation: annotation };
    if (rec.readOnly === true) return { path: from, readOnly: true };
    const to = optString(rec, 'storagePath', ctx, p);
    if (!to) throw new LoadError(ctx.file, p, 'a conversion rule needs storagePath, preserveZeroAnnotation or readOnly: true');
    const keys = stringList(rec, 'keys', ctx, p);
    if (keys !== undefined && keys.length === 0) throw new LoadError(ctx.file, joinPath(p, 'keys'), 'expected at least one map key');
    if (rec.mirror !== undefined && (typeof rec.mirror !== 'boolean' || !keys)) {
      throw new LoadError(ctx.file, joinPath(p, 'mirror'), 'mirror is a boolean of a rule with keys');
    }
    return { path: from, storagePath: to, ...(keys ? { keys } : {}), ...(rec.mirror === true ? { mirror: true } : {}) };
  });
}

const CONVERSION_KEYS = new Set(['path', 'storagePath', 'keys', 'mirror', 'preserveZeroAnnotation', 'readOnly', 'converter']);

/**
 * A built-in workload's replica paths (`{specReplicasPath, statusReplicasPath, labelSelectorPath}`),
 * as a CRD declares them: the server's one scale subresource reads and writes through them.
 */
function scalePaths(declared: unknown, ctx: NodeContext, at: string, subresources: readonly string[]): ScalePaths {
  if (!subresources.includes('scale')) throw new LoadError(ctx.file, at, 'scale paths need the scale subresource');
  if (!isRecord(declared))
    throw new LoadError(ctx.file, at, `expected {specReplicasPath, statusReplicasPath}, found ${describe(declared)}`);
  checkKeys(declared, [SCALE_KEYS], ctx, at);
  const specReplicasPath = optString(declared, 'specReplicasPath', ctx, at);
  const statusReplicasPath = optString(declared, 'statusReplicasPath', ctx, at);
  const labelSelectorPath = optString(declared, 'labelSelectorPath', ctx, at);
  if (specReplicasPath === undefined || statusReplicasPath === undefined)
    throw new LoadError(ctx.file, at, 'expected specReplicasPath and statusReplicasPath');
  return { specReplicasPath, statusReplicasPath, ...(labelSelectorPath !== undefined ? { labelSelectorPath } : {}) };
}

const SCALE_KEYS = new Set(['specReplicasPath', 'statusReplicasPath', 'labelSelectorPath']);

/** The keys of a subresource's declaration. */
const DECLARATION_KEYS = new Set(['handler', 'kind', 'verbs']);

/** Kubernetes' verbs a subresource may list in discovery. */
const SUBRESOURCE_VERBS = new Set(['get', 'create', 'update', 'patch']);

/**
 * A subresource's declaration: its handler's name alone, or `{handler, kind, verbs}` with the kind
 * of its requests (`<apiVersion> <Kind>`, `authentication.svc.io/v1 TokenRequest`) and the verbs
 * discovery lists.
 */
function subresourceDeclaration(declared: unknown, ctx: NodeContext, at: string): SubresourceDeclaration {
  if (typeof declared === 'string') return { handler: declared };
  if (!isRecord(declared))
    throw new LoadError(ctx.file, at, `expected a handler name or {handler, kind, verbs}, found ${describe(declared)}`);
  checkKeys(declared, [DECLARATION_KEYS], ctx, at);
  const handler = optString(declared, 'handler', ctx, at);
  if (handler === undefined) throw new LoadError(ctx.file, joinPath(at, 'handler'), 'expected a handler name');
  const kind = optString(declared, 'kind', ctx, at);
  if (kind !== undefined && !/^([a-z0-9.-]+\/)?v[0-9a-z]+ [A-Z][A-Za-z0-9]*$/.test(kind))
    throw new LoadError(ctx.file, joinPath(at, 'kind'), `expected "<apiVersion> <Kind>" (policy/v1 Eviction), found ${describe(kind)}`);
  const verbs = stringList(declared, 'verbs', ctx, at);
  const unknown = verbs?.find((v) => !SUBRESOURCE_VERBS.has(v));
  if (unknown !== undefined)
    throw new LoadError(ctx.file, joinPath(at, 'verbs'), `${unknown} is not one of ${[...SUBRESOURCE_VERBS].join(', ')}`);
  return { handler, ...(kind !== undefined ? { kind } : {}), ...(verbs !== undefined ? { verbs } : {}) };
}

function stringList(rec: Record<string, unknown>, key: string, ctx: NodeContext, path: string): string[] | undefined {
  const v = rec[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) {
    throw new LoadError(ctx.file, joinPath(path, key), `expected a list of strings, found ${describe(v)}`);
  }
  return v as string[];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
