import { gvAliasPrefix } from './emit-context.js';
import type {
  Field,
  GroupVersion,
  Model,
  NamedType,
  NestedValueValidation,
  ObjectNode,
  ResourceInfo,
  TypeNode,
  ValueValidation,
} from '../model/index.js';

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
  // Request and response bodies of the operations besides the kinds' own.
  const served = gvs.some((gv) => gv.types.some((t) => t.kind?.resource));
  if (served) for (const name of [DELETE_OPTIONS_SCHEMA, STATUS_SCHEMA]) if (byName.has(name)) needed.add(name);
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
  if (served) doc.components.schemas[PATCH_SCHEMA] = PATCH_COMPONENT;
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
      if (!Object.keys(s).length && node.default === undefined && !node.valueValidation) return { $ref: `#/components/schemas/${name}` };
      const { allOf, ...rest } = extras(node);
      return { ...s, allOf: [{ $ref: `#/components/schemas/${name}` }, ...((allOf as unknown[]) ?? [])], ...rest };
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
  const { anyOf, ...rest } = extras(node);
  // int-or-string's own anyOf stays; a value validation's joins it under allOf (as upstream's Unfold).
  if (anyOf !== undefined && s.anyOf !== undefined) return { ...s, ...rest, allOf: [...((rest.allOf as unknown[]) ?? []), { anyOf }] };
  return { ...s, ...rest, ...(anyOf === undefined ? {} : { anyOf }) };
}

function extras(node: TypeNode): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  if (node.nullable) s.nullable = true;
  if (node.default !== undefined) s.default = node.default;
  if (node.constraints) Object.assign(s, node.constraints);
  if (node.validations) s['x-kubernetes-validations'] = node.validations.map(({ spec: _spec, ...v }) => v);
  if (node.valueValidation) Object.assign(s, junctorSchemas(node.valueValidation));
  return s;
}

/** A CRD's value validations, published as it wrote them (upstream's v3 documents keep them). */
function junctorSchemas(v: ValueValidation): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = v[key];
    if (branches) s[key] = branches.map(branchSchema);
  }
  if (v.not) s.not = branchSchema(v.not);
  return s;
}

function branchSchema(b: NestedValueValidation): Record<string, unknown> {
  const s: Record<string, unknown> = { ...b.constraints };
  if (b.format !== undefined) s.format = b.format;
  if (b.required) s.required = b.required;
  if (b.properties) s.properties = Object.fromEntries(Object.entries(b.properties).map(([k, p]) => [k, branchSchema(p)]));
  if (b.items) s.items = branchSchema(b.items);
  return Object.assign(s, junctorSchemas(b));
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

/** A query parameter of an operation, as the real system declares it. */
function queryParam(name: string, type: 'string' | 'integer' | 'boolean', description: string): Record<string, unknown> {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

const PARAMS = {
  allowWatchBookmarks: queryParam('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
  continue: queryParam('continue', 'string', 'The continue option should be set when retrieving more results from the server.'),
  dryRun: queryParam('dryRun', 'string', 'When present, indicates that modifications should not be persisted. Valid value: All.'),
  fieldManager: queryParam(
    'fieldManager',
    'string',
    'fieldManager is a name associated with the actor or entity that is making these changes.',
  ),
  fieldSelector: queryParam('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields.'),
  fieldValidation: queryParam(
    'fieldValidation',
    'string',
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn or Strict.',
  ),
  force: queryParam('force', 'boolean', 'Force is going to "force" Apply requests. It must be unset for non-apply patch requests.'),
  gracePeriodSeconds: queryParam('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted.'),
  labelSelector: queryParam('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels.'),
  limit: queryParam('limit', 'integer', 'limit is a maximum number of responses to return for a list call.'),
  orphanDependents: queryParam('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy.'),
  propagationPolicy: queryParam(
    'propagationPolicy',
    'string',
    "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  ),
  resourceVersion: queryParam(
    'resourceVersion',
    'string',
    'resourceVersion sets a constraint on what resource versions a request may be served from.',
  ),
  resourceVersionMatch: queryParam(
    'resourceVersionMatch',
    'string',
    'resourceVersionMatch determines how resourceVersion is applied to list calls.',
  ),
  sendInitialEvents: queryParam('sendInitialEvents', 'boolean', 'sendInitialEvents=true may be set together with watch=true.'),
  timeoutSeconds: queryParam('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  watch: queryParam(
    'watch',
    'boolean',
    'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.',
  ),
  pretty: queryParam('pretty', 'string', "If 'true', then the output is pretty printed."),
};

type ParamName = keyof typeof PARAMS;

const LIST_PARAMS: ParamName[] = [
  'allowWatchBookmarks',
  'continue',
  'fieldSelector',
  'labelSelector',
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'timeoutSeconds',
  'watch',
];
const WRITE_PARAMS: ParamName[] = ['dryRun', 'fieldManager', 'fieldValidation'];
const DELETE_PARAMS: ParamName[] = ['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'];

/** How an operation reads and answers: its method, action, where it is, its query parameters and body. */
interface Action {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  action: string;
  on: 'collection' | 'item';
  params: ParamName[];
  body?: 'object' | 'patch' | 'delete-options';
  response: 'object' | 'list' | 'status';
  /** Other success codes the operation answers with, besides 200. */
  also?: string[];
}

const ACTIONS: Record<string, Action> = {
  list: { method: 'get', action: 'list', on: 'collection', params: LIST_PARAMS, response: 'list' },
  create: {
    method: 'post',
    action: 'post',
    on: 'collection',
    params: WRITE_PARAMS,
    body: 'object',
    response: 'object',
    also: ['201', '202'],
  },
  deletecollection: {
    method: 'delete',
    action: 'deletecollection',
    on: 'collection',
    params: [
      'continue',
      'dryRun',
      'fieldSelector',
      'gracePeriodSeconds',
      'labelSelector',
      'limit',
      'orphanDependents',
      'propagationPolicy',
      'resourceVersion',
      'resourceVersionMatch',
      'sendInitialEvents',
      'timeoutSeconds',
    ],
    body: 'delete-options',
    response: 'status',
  },
  get: { method: 'get', action: 'get', on: 'item', params: [], response: 'object' },
  update: { method: 'put', action: 'put', on: 'item', params: WRITE_PARAMS, body: 'object', response: 'object', also: ['201'] },
  patch: {
    method: 'patch',
    action: 'patch',
    on: 'item',
    params: [...WRITE_PARAMS, 'force'],
    body: 'patch',
    response: 'object',
    also: ['201'],
  },
  delete: {
    method: 'delete',
    action: 'delete',
    on: 'item',
    params: DELETE_PARAMS,
    body: 'delete-options',
    response: 'object',
    also: ['202'],
  },
};

const SUBRESOURCE_ACTIONS: Record<string, string> = { get: 'get', put: 'update', patch: 'patch' };
const SUBRESOURCE_OPERATIONS: Record<string, string> = { get: 'get', put: 'replace', patch: 'patch' };
/** Subresources that only take a POST of their own kind (an Eviction, a TokenRequest), by their operation's verb. */
const POST_ONLY_SUBRESOURCES: Record<string, string> = { eviction: 'createEviction', token: 'createToken' };

/** The component of the request body of a patch, as the real system names it. */
const PATCH_SCHEMA = 'meta.svc.io.v1.Patch';
const DELETE_OPTIONS_SCHEMA = 'meta.svc.io.v1.DeleteOptions';
const STATUS_SCHEMA = 'meta.svc.io.v1.Status';
const PATCH_COMPONENT = {
  description: 'Patch is provided to give a concrete name and type to the PATCH request body.',
  type: 'object',
};

function addPaths(doc: OpenApiDocument, gv: GroupVersion, t: NamedType, r: ResourceInfo): void {
  const prefix = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
  const scoped = r.scope === 'Namespaced' ? `${prefix}/namespaces/{namespace}/${r.plural}` : `${prefix}/${r.plural}`;
  const gvk = { group: gv.group, version: gv.version, kind: t.kind!.kind };
  const objectRef = { $ref: `#/components/schemas/${schemaName(t.id)}` };
  const listName = schemaName({ ...t.id, name: t.kind!.listKind });
  const listRef = doc.components.schemas[listName] ? { $ref: `#/components/schemas/${listName}` } : objectRef;
  const ref = (name: string) => (doc.components.schemas[name] ? { $ref: `#/components/schemas/${name}` } : { type: 'object' });
  // What the server answers with: Protobuf for built-in kinds only, as it negotiates.
  const responseTypes = ['application/json', 'application/yaml', ...(r.custom ? [] : ['application/vnd.svc.protobuf'])];
  const content = (schema: unknown) => Object.fromEntries(responseTypes.map((m) => [m, { schema }]));
  // The patch types the server applies: strategic merge is for built-in kinds only (clients read
  // this to choose between a strategic merge and a JSON merge patch).
  const patchTypes = [
    'application/apply-patch+yaml',
    'application/json-patch+json',
    'application/merge-patch+json',
    ...(r.custom ? [] : ['application/strategic-merge-patch+json']),
  ];
  const op = (name: string, a: Action, subresource?: string) => {
    const schema = a.response === 'list' ? listRef : a.response === 'status' ? ref(STATUS_SCHEMA) : objectRef;
    const responses: Record<string, unknown> = { '200': { description: 'OK', content: content(schema) } };
    for (const code of a.also ?? []) responses[code] = { description: code === '201' ? 'Created' : 'Accepted', content: content(schema) };
    responses['401'] = { description: 'Unauthorized' };
    const o: Record<string, unknown> = {
      tags: [gvAliasPrefix(gv).replace(/^./, (c) => c.toLowerCase())],
      description: `${a.action} ${subresource ? `${subresource} of ` : ''}the specified ${t.kind!.kind}`,
      // Unique across the document, as the real system's: `listBatchV1CronJob`.
      operationId: `${name}${gvAliasPrefix(gv)}${t.kind!.kind}`,
    };
    if (a.params.length > 0) o.parameters = a.params.map((p) => PARAMS[p]);
    if (a.body === 'object') o.requestBody = { content: { '*/*': { schema: objectRef } }, required: true };
    if (a.body === 'delete-options') o.requestBody = { content: { '*/*': { schema: ref(DELETE_OPTIONS_SCHEMA) } } };
    if (a.body === 'patch') {
      const patch = ref(PATCH_SCHEMA);
      o.requestBody = { content: Object.fromEntries(patchTypes.map((m) => [m, { schema: patch }])), required: true };
    }
    o.responses = responses;
    o['x-kubernetes-action'] = a.action;
    o['x-kubernetes-group-version-kind'] = gvk;
    return o;
  };
  const pathParams = (path: string) => [
    ...(path.includes('{name}')
      ? [
          {
            name: 'name',
            in: 'path',
            description: `name of the ${t.kind!.kind}`,
            required: true,
            schema: { type: 'string', uniqueItems: true },
          },
        ]
      : []),
    ...(path.includes('{namespace}')
      ? [
          {
            name: 'namespace',
            in: 'path',
            description: 'object name and auth scope, such as for teams and projects',
            required: true,
            schema: { type: 'string', uniqueItems: true },
          },
        ]
      : []),
    PARAMS.pretty,
  ];
  const at = (path: string) => (doc.paths[path] ??= { parameters: pathParams(path) });
  for (const verb of r.verbs) {
    const a = ACTIONS[verb];
    if (!a) continue;
    at(a.on === 'collection' ? scoped : `${scoped}/{name}`)[a.method] = op(verb, a);
  }
  for (const sub of r.subresources) {
    const postOnly = POST_ONLY_SUBRESOURCES[sub];
    if (postOnly) {
      at(`${scoped}/{name}/${sub}`).post = op(postOnly, { ...ACTIONS.create!, params: ['dryRun', 'fieldManager', 'fieldValidation'] }, sub);
    } else {
      const p = at(`${scoped}/{name}/${sub}`);
      for (const [method, verb] of Object.entries(SUBRESOURCE_ACTIONS)) {
        p[method] = op(SUBRESOURCE_OPERATIONS[method]! + sub, ACTIONS[verb]!, sub);
      }
    }
  }
}
