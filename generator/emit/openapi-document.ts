import { gvAliasPrefix } from './emit-context.js';
import type { Field, GroupVersion, Model, NamedType, ObjectNode, ResourceInfo, TypeNode } from '../model/index.js';

/** An OpenAPI v3.0 document as plain JSON. */
export interface OpenApiDocument {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Record<string, unknown>> };
}

/** `core.v1.Pod`, `batch.v1.CronJob`: the component name of a named type. */
export function schemaName(t: { group: string; version: string; name: string }): string {
  return `${t.group === '' ? 'core' : t.group}.${t.version}.${t.name}`;
}

/**
 * The OpenAPI v3 document of some group/versions, in the shape the real system publishes at
 * `/openapi/v3`: named schemas under components with `x-kubernetes-*` markers (the spelling other
 * tools read) and a path per resource operation tagged with its action and group/version/kind.
 */
export function openApiDocument(model: Model, title: string, gvs: GroupVersion[] = model.groupVersions): OpenApiDocument {
  const doc: OpenApiDocument = { openapi: '3.0.0', info: { title, version: 'v1' }, paths: {}, components: { schemas: {} } };
  const needed = new Set<string>();
  const byName = new Map(model.groupVersions.flatMap((gv) => gv.types.map((t) => [schemaName(t.id), t] as const)));
  for (const gv of gvs) for (const t of gv.types) needed.add(schemaName(t.id));
  // Types referenced from other group/versions are included so the document is self-contained.
  const queue = [...needed];
  while (queue.length > 0) {
    const name = queue.pop()!;
    const t = byName.get(name);
    if (!t) continue;
    doc.components.schemas[name] = namedSchema(t, (ref) => {
      if (!needed.has(ref)) {
        needed.add(ref);
        queue.push(ref);
      }
    });
  }
  doc.components.schemas = Object.fromEntries(Object.entries(doc.components.schemas).sort(([a], [b]) => (a < b ? -1 : 1)));
  for (const gv of gvs) for (const t of gv.types) if (t.kind?.resource) addPaths(doc, gv, t, t.kind.resource);
  return doc;
}

function namedSchema(t: NamedType, onRef: (name: string) => void): Record<string, unknown> {
  const schema = nodeSchema(t.node, onRef);
  if (t.kind) {
    const [group, version] = t.kind.apiVersion.includes('/') ? t.kind.apiVersion.split('/') : ['', t.kind.apiVersion];
    schema['x-kubernetes-group-version-kind'] = [{ group, version, kind: t.kind.kind }];
  }
  return schema;
}

function nodeSchema(node: TypeNode, onRef: (name: string) => void): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  if (node.description) s.description = node.description;
  switch (node.kind) {
    case 'ref': {
      const name = schemaName(node.target);
      onRef(name);
      // A $ref cannot carry siblings in OpenAPI 3.0; the real system wraps it in allOf.
      return Object.keys(s).length || node.default !== undefined
        ? { ...s, allOf: [{ $ref: `#/components/schemas/${name}` }], ...extras(node) }
        : { $ref: `#/components/schemas/${name}` };
    }
    case 'object':
      Object.assign(s, objectSchema(node, onRef));
      break;
    case 'map':
      s.type = 'object';
      s.additionalProperties = nodeSchema(node.values, onRef);
      if (node.mapType) s['x-kubernetes-map-type'] = node.mapType;
      break;
    case 'list':
      s.type = 'array';
      s.items = nodeSchema(node.items, onRef);
      if (node.listType) s['x-kubernetes-list-type'] = node.listType;
      if (node.listMapKeys) s['x-kubernetes-list-map-keys'] = node.listMapKeys;
      break;
    case 'scalar':
      s.type = node.type;
      if (node.format) s.format = node.format;
      break;
    case 'bytes':
      Object.assign(s, { type: 'string', format: 'byte' });
      break;
    case 'time':
      Object.assign(s, { type: 'string', format: node.format });
      break;
    case 'duration':
      Object.assign(s, { type: 'string', format: 'duration' });
      break;
    case 'quantity':
      Object.assign(s, { 'x-kubernetes-int-or-string': true, format: 'quantity', anyOf: [{ type: 'integer' }, { type: 'string' }] });
      break;
    case 'int-or-string':
      Object.assign(s, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
      break;
    case 'raw':
      Object.assign(s, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
      break;
  }
  return { ...s, ...extras(node) };
}

function extras(node: TypeNode): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  if (node.nullable) s.nullable = true;
  if (node.default !== undefined) s.default = node.default;
  if (node.constraints) Object.assign(s, node.constraints);
  if (node.validations) s['x-kubernetes-validations'] = node.validations.map(({ spec: _spec, ...v }) => v);
  return s;
}

function objectSchema(node: ObjectNode, onRef: (name: string) => void): Record<string, unknown> {
  const s: Record<string, unknown> = { type: 'object' };
  if (node.fields.length > 0) s.properties = Object.fromEntries(node.fields.map((f) => [f.name, fieldSchema(f, onRef)]));
  const required = node.fields.filter((f) => f.required).map((f) => f.name);
  if (required.length > 0) s.required = required;
  if (node.preserveUnknown) s['x-kubernetes-preserve-unknown-fields'] = true;
  if (node.embeddedResource) s['x-kubernetes-embedded-resource'] = true;
  if (node.structType) s['x-kubernetes-map-type'] = node.structType;
  return s;
}

function fieldSchema(f: Field, onRef: (name: string) => void): Record<string, unknown> {
  const s = nodeSchema(f.type, onRef);
  if (f.description && !s.description && !s.$ref) s.description = f.description;
  if (f.patchStrategy) s['x-kubernetes-patch-strategy'] = f.patchStrategy;
  if (f.patchMergeKey) s['x-kubernetes-patch-merge-key'] = f.patchMergeKey;
  return s;
}

const ACTIONS: Record<string, { method: string; action: string; on: 'collection' | 'item' }> = {
  list: { method: 'get', action: 'list', on: 'collection' },
  create: { method: 'post', action: 'post', on: 'collection' },
  deletecollection: { method: 'delete', action: 'deletecollection', on: 'collection' },
  get: { method: 'get', action: 'get', on: 'item' },
  update: { method: 'put', action: 'put', on: 'item' },
  patch: { method: 'patch', action: 'patch', on: 'item' },
  delete: { method: 'delete', action: 'delete', on: 'item' },
};

function addPaths(doc: OpenApiDocument, gv: GroupVersion, t: NamedType, r: ResourceInfo): void {
  const prefix = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
  const scoped = r.scope === 'Namespaced' ? `${prefix}/namespaces/{namespace}/${r.plural}` : `${prefix}/${r.plural}`;
  const gvk = { group: gv.group, version: gv.version, kind: t.kind!.kind };
  const ref = { $ref: `#/components/schemas/${schemaName(t.id)}` };
  const op = (action: string, id: string) => ({
    // Unique across the document, as the real system's: `listBatchV1CronJob`.
    operationId: `${action}${gvAliasPrefix(gv)}${t.kind!.kind}`,
    'x-kubernetes-action': id,
    'x-kubernetes-group-version-kind': gvk,
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } },
  });
  for (const verb of r.verbs) {
    const a = ACTIONS[verb];
    if (!a) continue;
    const path = a.on === 'collection' ? scoped : `${scoped}/{name}`;
    (doc.paths[path] ??= {})[a.method] = op(verb, a.action);
  }
  for (const sub of r.subresources) {
    if (sub === 'eviction') (doc.paths[`${scoped}/{name}/eviction`] ??= {}).post = op('createEviction', 'post');
    else {
      const p = (doc.paths[`${scoped}/{name}/${sub}`] ??= {});
      p.get = op(`get${sub}`, 'get');
      p.put = op(`replace${sub}`, 'put');
      p.patch = op(`patch${sub}`, 'patch');
    }
  }
}
