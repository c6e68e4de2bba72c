import {
  type FieldError,
  fieldInvalid,
  fieldRequired,
  isDNS1035Label,
  isDNS1123Label,
  nameIsPathSegment,
  validateAnnotations,
  validateLabels,
  validateObjectName,
} from '../../runtime/api/index.js';
import { type SchemaNode, deref } from '../../runtime/schema/index.js';
import { isObject } from '../../runtime/validate/index.js';

/**
 * The type and object meta of every embedded resource (`x-kubernetes-embedded-resource`) in
 * `value`, as upstream's schema/objectmeta Coerce and Validate check them: apiVersion and kind
 * required strings (a group/version; a kind that is a DNS-1035 label in any case), metadata that
 * decodes as ObjectMeta and whose name (a path segment), namespace, labels and annotations are
 * valid. Coercion stops at its first error, as upstream's does.
 */
export function embeddedResourceErrors(value: unknown, node: SchemaNode, path: string): FieldError[] {
  const errors: FieldError[] = [];
  walk(value, node, path, errors);
  return errors;
}

function walk(value: unknown, node: SchemaNode, path: string, errors: FieldError[]): void {
  const n = deref(node);
  if (Array.isArray(value)) {
    if (n.type === 'list') value.forEach((item, i) => walk(item, n.items, `${path}[${i}]`, errors));
    return;
  }
  if (!isObject(value)) return;
  if (n.type === 'object') {
    if (n.embeddedResource) errors.push(...resourceErrors(value, path));
    for (const f of n.fields) if (value[f.name] !== undefined) walk(value[f.name], f.schema, child(path, f.name), errors);
  } else if (n.type === 'map') {
    for (const [k, v] of Object.entries(value)) walk(v, n.values, `${path}[${k}]`, errors);
  }
}

function resourceErrors(x: Record<string, unknown>, path: string): FieldError[] {
  const coerced = coerceError(x, path);
  if (coerced) return [coerced];
  const errors: FieldError[] = [];
  for (const field of ['apiVersion', 'kind'] as const) {
    const v = x[field];
    if (v === undefined) errors.push(fieldRequired(child(path, field), 'must not be empty'));
    else if (v === '') errors.push(fieldInvalid(child(path, field), v, 'must not be empty'));
  }
  const apiVersion = x.apiVersion;
  if (typeof apiVersion === 'string' && apiVersion.split('/').length > 2) {
    errors.push(fieldInvalid(child(path, 'apiVersion'), apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  }
  const kind = x.kind;
  if (typeof kind === 'string' && kind !== '') {
    const problems = isDNS1035Label(kind.toLowerCase());
    if (problems.length > 0)
      errors.push(fieldInvalid(child(path, 'kind'), kind, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
  }
  if (isObject(x.metadata)) errors.push(...metadataErrors(x.metadata as ObjectMetaFields, child(path, 'metadata')));
  return errors;
}

interface ObjectMetaFields {
  name?: string;
  generateName?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** The part of the real system's ValidateObjectMeta an embedded object meta gets (a missing name is not an error). */
function metadataErrors(meta: ObjectMetaFields, path: string): FieldError[] {
  const errors = validateObjectName({ name: meta.name || 'fakename', generateName: meta.generateName ?? '' }, nameIsPathSegment, path);
  if (meta.namespace) {
    for (const problem of isDNS1123Label(meta.namespace)) errors.push(fieldInvalid(child(path, 'namespace'), meta.namespace, problem));
  }
  errors.push(...validateLabels(meta.labels ?? {}, child(path, 'labels')));
  errors.push(...validateAnnotations(meta.annotations ?? {}, child(path, 'annotations')));
  return errors;
}

/** The string fields of ObjectMeta an embedded resource is likely to set, and its string maps. */
const META_STRINGS = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion'];
const META_MAPS = ['labels', 'annotations'];

/**
 * The first field that does not decode: type meta that is not a string, metadata that does not
 * unmarshal into ObjectMeta (with Go's json message, which upstream passes on).
 */
function coerceError(x: Record<string, unknown>, path: string): FieldError | undefined {
  for (const field of ['apiVersion', 'kind']) {
    const v = x[field];
    if (v !== undefined && typeof v !== 'string') return fieldInvalid(child(path, field), v, 'must be a string');
  }
  const meta = x.metadata;
  if (meta === undefined || meta === null) return undefined;
  const at = child(path, 'metadata');
  if (!isObject(meta)) return fieldInvalid(at, meta, `json: cannot unmarshal ${goJsonType(meta)} into Go value of type v1.ObjectMeta`);
  for (const field of META_STRINGS) {
    const v = meta[field];
    if (v !== undefined && v !== null && typeof v !== 'string') return unmarshalError(at, meta, v, field, 'string');
  }
  for (const field of META_MAPS) {
    const v = meta[field];
    if (v === undefined || v === null) continue;
    if (!isObject(v)) return unmarshalError(at, meta, v, field, 'map[string]string');
    for (const item of Object.values(v)) {
      if (item !== null && typeof item !== 'string') return unmarshalError(at, meta, item, field, 'string');
    }
  }
  return undefined;
}

function unmarshalError(at: string, meta: unknown, v: unknown, field: string, type: string): FieldError {
  return fieldInvalid(at, meta, `json: cannot unmarshal ${goJsonType(v)} into Go struct field ObjectMeta.${field} of type ${type}`);
}

/** How Go's encoding/json names a JSON value's type in its errors. */
function goJsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

const child = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);
