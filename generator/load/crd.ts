import type { GroupVersion, NamedType, ObjectNode, ResourceInfo } from '../model/index.js';
import { apiVersionOf } from '../model/index.js';
import { LoadError, joinPath } from './load-error.js';
import { OBJECT_META, type LinkContext } from './link.js';
import { asSchema, describe, optString, toTypeNode, type NodeContext } from './schema-node.js';
import { isRecord, readPrinterColumns } from './svc-schema.js';

/** True for a CustomResourceDefinition document (either group suffix). */
export function isCrd(doc: unknown): boolean {
  return (
    isRecord(doc) &&
    doc.kind === 'CustomResourceDefinition' &&
    typeof doc.apiVersion === 'string' &&
    /^apiextensions\./.test(doc.apiVersion)
  );
}

/**
 * Loads a CustomResourceDefinition: one group/version per served version, holding the kind
 * (schemas in a CRD are anonymous trees; emitters name nested objects after their path).
 */
export function loadCrd(doc: unknown, file: string, link: LinkContext): GroupVersion[] {
  if (!isRecord(doc) || !isRecord(doc.spec)) throw new LoadError(file, '.spec', 'a CustomResourceDefinition needs a spec');
  const spec = doc.spec;
  const ctx: NodeContext = {
    file,
    strict: false,
    embeds: link.embeds,
    resolveRef: (ref, path) => {
      throw new LoadError(file, path, `a CustomResourceDefinition schema cannot use $ref (found ${JSON.stringify(ref)})`);
    },
  };
  const group = optString(spec, 'group', ctx, '.spec');
  if (!group) throw new LoadError(file, '.spec.group', 'expected the API group');
  const names = asSchema(spec.names, ctx, '.spec.names');
  const kind = optString(names, 'kind', ctx, '.spec.names');
  const plural = optString(names, 'plural', ctx, '.spec.names');
  if (!kind || !plural) throw new LoadError(file, '.spec.names', 'expected kind and plural');
  const scope = spec.scope;
  if (scope !== 'Cluster' && scope !== 'Namespaced')
    throw new LoadError(file, '.spec.scope', `expected Cluster or Namespaced, found ${describe(scope)}`);
  if (!Array.isArray(spec.versions) || spec.versions.length === 0)
    throw new LoadError(file, '.spec.versions', 'expected at least one version');

  return spec.versions.map((value: unknown, i: number): GroupVersion => {
    const path = joinPath('.spec.versions', i);
    const v = asSchema(value, ctx, path);
    const version = optString(v, 'name', ctx, path);
    if (!version) throw new LoadError(file, joinPath(path, 'name'), 'expected the version name');
    const schemaPath = joinPath(joinPath(path, 'schema'), 'openAPIV3Schema');
    const rawSchema = isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (rawSchema === undefined) throw new LoadError(file, schemaPath, 'expected the version schema');
    const node = toTypeNode(rawSchema, ctx, schemaPath);
    if (node.kind !== 'object') throw new LoadError(file, schemaPath, 'the root of a custom resource schema must be an object');
    useObjectMeta(node, link, file, schemaPath);

    const subresources = isRecord(v.subresources) ? Object.keys(v.subresources).sort() : [];
    const resource: ResourceInfo = {
      plural,
      singular: optString(names, 'singular', ctx, '.spec.names') ?? kind.toLowerCase(),
      scope,
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
      subresources,
      shortNames: stringArray(names.shortNames),
      categories: stringArray(names.categories),
      printerColumns: readPrinterColumns(v.additionalPrinterColumns, ctx, joinPath(path, 'additionalPrinterColumns')),
      served: v.served !== false,
      storage: v.storage === true,
      conversion: [],
      custom: true,
      // A CRD's selectableFields (`{jsonPath: .spec.color}`); custom resources always track generation.
      selectableFields: readSelectableFields(v.selectableFields, ctx, joinPath(path, 'selectableFields')),
      generation: true,
      subresourceHandlers: {},
      hooks: [],
    };
    const scale = isRecord(v.subresources) && isRecord(v.subresources.scale) ? v.subresources.scale : undefined;
    if (scale && typeof scale.specReplicasPath === 'string' && typeof scale.statusReplicasPath === 'string') {
      resource.scale = { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath };
      if (typeof scale.labelSelectorPath === 'string') resource.scale.labelSelectorPath = scale.labelSelectorPath;
    }
    const named: NamedType = {
      id: { group, version, name: kind },
      node,
      kind: {
        kind,
        apiVersion: apiVersionOf(group, version),
        listKind: optString(names, 'listKind', ctx, '.spec.names') ?? `${kind}List`,
        resource,
      },
      source: { file, path: schemaPath },
    };
    if (node.description !== undefined) named.description = node.description;
    const gv: GroupVersion = { group, version, sources: [file], types: [named] };
    // Upstream's default: `<group>/<version> <Kind> is deprecated`; a deprecationWarning replaces it.
    if (v.deprecated === true) {
      gv.lifecycle = { warning: optString(v, 'deprecationWarning', ctx, path) ?? `${group}/${version} ${kind} is deprecated` };
    }
    return gv;
  });
}

/** `selectableFields: [{jsonPath: .spec.color}]` as dotted field paths (`spec.color`). */
function readSelectableFields(value: unknown, ctx: NodeContext, path: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new LoadError(ctx.file, path, `expected a list of {jsonPath}, found ${describe(value)}`);
  return value.map((item, i) => {
    const jsonPath = isRecord(item) ? item.jsonPath : undefined;
    if (typeof jsonPath !== 'string' || !/^\.[A-Za-z0-9_.]+$/.test(jsonPath)) {
      throw new LoadError(ctx.file, joinPath(path, i), `expected {jsonPath: .a.b}, a simple field path, found ${describe(item)}`);
    }
    return jsonPath.slice(1);
  });
}

/** A CRD declares `metadata` as a bare object; it is the standard ObjectMeta. */
function useObjectMeta(node: ObjectNode, link: LinkContext, file: string, path: string): void {
  const metadata = node.fields.find((f) => f.name === 'metadata');
  const ref = { kind: 'ref' as const, target: OBJECT_META };
  link.refs.push({ id: OBJECT_META, file, path: `${path}.properties.metadata` });
  if (metadata) metadata.type = ref;
  else node.fields.push({ name: 'metadata', type: ref, required: false, description: 'Standard object metadata.' });
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [];
}
