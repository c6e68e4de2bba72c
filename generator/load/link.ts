import type { Field, GroupVersion, Model, NamedType, ObjectNode, TypeId, TypeNode, ValidationRule } from '../model/index.js';
import { ModelIndex, apiVersionOf, sortModel, typeKey } from '../model/index.js';
import { LoadError } from './load-error.js';
import type { PendingEmbed } from './schema-node.js';

/** A `$ref` seen while loading, checked once every file is in. */
export interface PendingRef {
  id: TypeId;
  file: string;
  path: string;
}

/** What loaders leave for the linker: references and embeddings across files. */
export interface LinkContext {
  refs: PendingRef[];
  embeds: PendingEmbed[];
}

export function newLinkContext(): LinkContext {
  return { refs: [], embeds: [] };
}

export const META_GROUP = 'meta.svc.io';
export const LIST_META: TypeId = { group: META_GROUP, version: 'v1', name: 'ListMeta' };
export const OBJECT_META: TypeId = { group: META_GROUP, version: 'v1', name: 'ObjectMeta' };

/**
 * Joins loaded group/versions into one consistent model: merges group/versions split across files
 * (CRDs), checks every reference, inlines embedded types, adds apiVersion/kind to kinds and a
 * `<Kind>List` for every served resource.
 */
export function link(loaded: GroupVersion[], ctx: LinkContext): Model {
  const model = sortModel({ groupVersions: mergeGroupVersions(loaded) });
  const index = new ModelIndex(model);
  for (const ref of ctx.refs) {
    if (!index.type(ref.id)) {
      const gv = index.groupVersion(ref.id.group, ref.id.version);
      const known = gv
        ? `; ${apiVersionOf(gv.group, gv.version)} has ${gv.types
            .map((t) => t.id.name)
            .slice(0, 12)
            .join(', ')}`
        : `; no schema defines group/version ${apiVersionOf(ref.id.group, ref.id.version) || 'v1'}`;
      throw new LoadError(ref.file, ref.path, `reference to unknown type ${typeKey(ref.id)}${known}`);
    }
  }
  inlineEmbeds(ctx.embeds, index);
  for (const gv of model.groupVersions) {
    for (const t of gv.types) if (t.kind) addTypeMeta(t);
    addListKinds(gv, index);
    for (const t of gv.types) checkListMapKeys(t.node, index, t.source.file, t.source.path);
    for (const t of gv.types) checkProtoTags(t.node, t.source.file, t.source.path);
  }
  checkStorageVersions(index);
  return sortModel(model);
}

function mergeGroupVersions(loaded: GroupVersion[]): GroupVersion[] {
  const byKey = new Map<string, GroupVersion>();
  for (const gv of loaded) {
    const key = apiVersionOf(gv.group, gv.version);
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, { ...gv, sources: [...gv.sources], types: [...gv.types] });
      continue;
    }
    seen.sources = [...new Set([...seen.sources, ...gv.sources])].sort();
    for (const t of gv.types) {
      const clash = seen.types.find((s) => s.id.name === t.id.name);
      if (clash) {
        throw new LoadError(
          t.source.file,
          t.source.path,
          `type ${t.id.name} of ${key} is also defined in ${clash.source.file} at ${clash.source.path}`,
        );
      }
      seen.types.push(t);
    }
  }
  return [...byKey.values()];
}

function inlineEmbeds(embeds: PendingEmbed[], index: ModelIndex): void {
  const done = new Set<ObjectNode>();
  const visiting = new Set<ObjectNode>();
  const byNode = new Map(embeds.map((e) => [e.node, e]));
  const visit = (embed: PendingEmbed): void => {
    if (done.has(embed.node)) return;
    if (visiting.has(embed.node)) throw new LoadError(embed.file, embed.path, 'allOf embeds a type that embeds this one (a cycle)');
    visiting.add(embed.node);
    const inherited: Field[] = [];
    const rules: ValidationRule[] = [];
    for (const target of embed.targets) {
      const t = index.resolve(target.id);
      if (t.node.kind !== 'object')
        throw new LoadError(embed.file, embed.path, `allOf can only embed object types; ${typeKey(target.id)} is a ${t.node.kind}`);
      const inner = byNode.get(t.node);
      if (inner) visit(inner);
      const via = target.protoTag === undefined ? undefined : { type: target.id, protoTag: target.protoTag };
      inherited.push(...t.node.fields.map((f) => (via && !f.embeddedVia ? { ...f, embeddedVia: via } : f)));
      // An embedded type's cross-field rules read fields that are now the embedder's own.
      rules.push(...(t.node.validations ?? []));
    }
    const own = new Set(embed.node.fields.map((f) => f.name));
    for (const f of inherited) {
      if (own.has(f.name)) throw new LoadError(embed.file, embed.path, `field "${f.name}" is both declared and embedded through allOf`);
      own.add(f.name);
    }
    embed.node.fields.unshift(...inherited);
    if (rules.length > 0) embed.node.validations = [...rules, ...(embed.node.validations ?? [])];
    visiting.delete(embed.node);
    done.add(embed.node);
  };
  for (const e of embeds) visit(e);
}

/** Kinds carry apiVersion and kind first, whether or not the schema spelled them out. */
function addTypeMeta(t: NamedType): void {
  const node = t.node as ObjectNode;
  const kind = t.kind!;
  const rest = node.fields.filter((f) => f.name !== 'apiVersion' && f.name !== 'kind');
  node.fields = [
    {
      name: 'apiVersion',
      type: { kind: 'scalar', type: 'string', constraints: { enum: [kind.apiVersion] } },
      // Optional as upstream (omitempty): a kind nested in another document often omits them.
      required: false,
      description: 'The versioned schema of this representation of an object.',
    },
    {
      name: 'kind',
      type: { kind: 'scalar', type: 'string', constraints: { enum: [kind.kind] } },
      required: false,
      description: 'The kind of object this is.',
    },
    ...rest,
  ];
}

function addListKinds(gv: GroupVersion, index: ModelIndex): void {
  for (const t of [...gv.types]) {
    const kind = t.kind;
    if (!kind?.resource?.verbs.includes('list') || gv.types.some((o) => o.id.name === kind.listKind)) continue;
    if (!index.type(LIST_META)) {
      throw new LoadError(
        t.source.file,
        t.source.path,
        `a served resource needs ${typeKey(LIST_META)} for its list kind; add the built-in meta schemas`,
      );
    }
    const list: NamedType = {
      id: { group: gv.group, version: gv.version, name: kind.listKind },
      description: `${kind.listKind} is a list of ${kind.kind} objects.`,
      node: {
        kind: 'object',
        fields: [
          {
            name: 'metadata',
            type: { kind: 'ref', target: LIST_META },
            required: false,
            protoTag: 1,
            description: 'Standard list metadata.',
          },
          {
            name: 'items',
            type: { kind: 'list', items: { kind: 'ref', target: t.id } },
            required: true,
            protoTag: 2,
            description: `The ${kind.kind} objects of the list.`,
          },
        ],
      },
      kind: { kind: kind.listKind, apiVersion: kind.apiVersion, listKind: `${kind.listKind}List` },
      source: t.source,
    };
    addTypeMeta(list);
    gv.types.push(list);
  }
}

const COMPOSITE_KINDS = new Set(['object', 'map', 'list', 'raw']);

/**
 * The structural-schema rules for list markers, in the real system's words: map keys name scalar
 * fields of object items, and set items are scalars or atomic (an item merged field by field
 * could not be compared as a whole).
 */
function checkListMapKeys(node: TypeNode, index: ModelIndex, file: string, path: string): void {
  const resolve = (n: TypeNode): TypeNode => (n.kind === 'ref' ? index.resolve(n.target).node : n);
  switch (node.kind) {
    case 'object':
      for (const f of node.fields) checkListMapKeys(f.type, index, file, `${path}.properties.${f.name}`);
      return;
    case 'map':
      return checkListMapKeys(node.values, index, file, `${path}.additionalProperties`);
    case 'list': {
      checkListMapKeys(node.items, index, file, `${path}.items`);
      const item = resolve(node.items);
      if (node.listType === 'set') checkSetItem(item, file, `${path}.items`);
      if (!node.listMapKeys) return;
      if (item.kind !== 'object')
        throw new LoadError(
          file,
          `${path}.items.type`,
          `Invalid value: "${item.kind}": must be object if parent array's x-kubernetes-list-type is map`,
        );
      for (const key of node.listMapKeys) {
        const f = item.fields.find((x) => x.name === key);
        if (!f)
          throw new LoadError(
            file,
            path,
            `list map key "${key}" is not a field of the items (fields: ${item.fields.map((x) => x.name).join(', ')})`,
          );
        const keyType = resolve(f.type);
        if (COMPOSITE_KINDS.has(keyType.kind)) {
          throw new LoadError(
            file,
            `${path}.items.properties.${key}.type`,
            `Invalid value: "${keyType.kind === 'list' ? 'array' : 'object'}": must be a scalar type if parent array's x-kubernetes-list-type is map`,
          );
        }
      }
      return;
    }
    default:
      return;
  }
}

function checkSetItem(item: TypeNode, file: string, path: string): void {
  if (item.kind === 'object' && item.structType !== 'atomic') {
    throw new LoadError(
      file,
      `${path}.x-kubernetes-map-type`,
      'Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set',
    );
  }
  if (item.kind === 'map' && item.mapType !== 'atomic') {
    throw new LoadError(
      file,
      `${path}.x-kubernetes-map-type`,
      'Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set',
    );
  }
  if (item.kind === 'list' && item.listType !== undefined && item.listType !== 'atomic') {
    throw new LoadError(
      file,
      `${path}.x-kubernetes-list-type`,
      `Invalid value: "${item.listType}": must be atomic as item of a list with x-kubernetes-list-type=set`,
    );
  }
}

/** Protobuf field numbers are unique within a message (fields nested through an embed count once). */
function checkProtoTags(node: TypeNode, file: string, path: string): void {
  switch (node.kind) {
    case 'object': {
      const seen = new Map<number, string>();
      for (const f of node.fields) {
        const tag = f.embeddedVia?.protoTag ?? f.protoTag;
        const owner = f.embeddedVia ? `embedded ${f.embeddedVia.type.name}` : f.name;
        if (tag === undefined) continue;
        const other = seen.get(tag);
        if (other !== undefined && other !== owner)
          throw new LoadError(file, path, `Protobuf field number ${tag} is used by both ${other} and ${owner}`);
        seen.set(tag, owner);
      }
      for (const f of node.fields) checkProtoTags(f.type, file, `${path}.properties.${f.name}`);
      return;
    }
    case 'map':
      return checkProtoTags(node.values, file, `${path}.additionalProperties`);
    case 'list':
      return checkProtoTags(node.items, file, `${path}.items`);
    default:
      return;
  }
}

function checkStorageVersions(index: ModelIndex): void {
  const storage = new Map<string, NamedType>();
  for (const t of index.kinds()) {
    if (!t.kind?.resource?.storage) continue;
    const key = `${t.id.group}/${t.kind.kind}`;
    const other = storage.get(key);
    if (other)
      throw new LoadError(
        t.source.file,
        t.source.path,
        `${t.kind.kind} is marked storage in ${other.id.version} and in ${t.id.version}; exactly one version is stored`,
      );
    storage.set(key, t);
  }
}
