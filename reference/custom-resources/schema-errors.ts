import { type FieldError, fieldInvalid, fieldNotSupported, fieldRequired } from '../../runtime/api/index.js';
import { regexError } from '../../runtime/regex/index.js';

type Schema = Record<string, unknown>;

const LIST_TYPES = ['atomic', 'set', 'map'];
const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/**
 * The structural-schema and list-type rules of one version's `openAPIV3Schema`, as upstream's
 * ValidateCustomResourceDefinitionOpenAPISchema and structural schema checks word them: every
 * specified field has a type, arrays have items, the root is an object whose metadata restricts
 * only name and generateName, list types and map keys agree. What the generator's loader checks
 * beyond this (formats, $ref) it reports when the definition is compiled.
 */
export function schemaErrors(root: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!isSchema(root)) return [fieldInvalid(path, root, 'must be an object')];
  if (root.type !== 'object') errors.push(fieldInvalid(`${path}.type`, root.type ?? '', 'must be object at the root'));
  const metadata = isSchema(root.properties) ? root.properties.metadata : undefined;
  if (isSchema(metadata) && !onlyNameRestrictions(metadata)) {
    errors.push({
      type: 'FieldValueForbidden',
      field: `${path}.properties[metadata]`,
      badValue: '',
      detail: 'must not specify anything other than name and generateName, but metadata is implicitly specified',
    });
  }
  visit(root, path, 'object fields', errors, { root: true });
  return errors;
}

/**
 * Where a node sits, for the rules on `default`: at the root (whose metadata, apiVersion and kind
 * the server sets, so defaults there are forbidden with the reason), and inside the metadata of a
 * resource (where a default under additionalProperties is forbidden: pruning without a value is
 * ambiguous), as upstream's specStandardValidator carries them down.
 */
interface Place {
  root?: boolean;
  insideMeta?: boolean;
  noDefaults?: string;
}

const META_FIELDS = new Set(['metadata', 'apiVersion', 'kind']);

function visit(s: Schema, path: string, what: string, errors: FieldError[], place: Place = {}): void {
  if (s.default !== undefined && place.noDefaults !== undefined) {
    errors.push({ type: 'FieldValueForbidden', field: `${path}.default`, badValue: '', detail: `must not be set ${place.noDefaults}` });
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  if (preserve === false) errors.push(fieldInvalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  if ((s.type === undefined || s.type === '') && !intOrString && preserve !== true) {
    errors.push(fieldRequired(`${path}.type`, `must not be empty for specified ${what}`));
  }
  if (typeof s.type === 'string' && s.type !== '' && !TYPES.includes(s.type)) errors.push(fieldNotSupported(`${path}.type`, s.type, TYPES));
  if (typeof s.pattern === 'string') {
    const problem = regexError(s.pattern);
    if (problem) errors.push(fieldInvalid(`${path}.pattern`, s.pattern, `must be a valid regular expression, but isn't: ${problem}`));
  }
  if (s.$ref !== undefined)
    errors.push({ type: 'FieldValueForbidden', field: `${path}.$ref`, badValue: '', detail: '$ref is not supported' });
  const properties = isSchema(s.properties) ? s.properties : undefined;
  if (properties && Object.keys(properties).length > 0 && s.additionalProperties !== undefined && s.additionalProperties !== false) {
    errors.push({
      type: 'FieldValueForbidden',
      field: `${path}.additionalProperties`,
      badValue: '',
      detail: 'additionalProperties and properties are mutual exclusive',
    });
  }
  const inner: Place = { ...(place.insideMeta ? { insideMeta: true } : {}), ...(place.noDefaults ? { noDefaults: place.noDefaults } : {}) };
  const resource = place.root || s['x-kubernetes-embedded-resource'] === true;
  for (const [name, child] of Object.entries(properties ?? {})) {
    if (!isSchema(child)) continue;
    const meta = resource && META_FIELDS.has(name);
    const at: Place = meta ? { ...inner, insideMeta: true, ...(place.root ? { noDefaults: `in top-level ${name}` } : {}) } : inner;
    visit(child, `${path}.properties[${name}]`, 'object fields', errors, at);
  }
  if (isSchema(s.additionalProperties)) {
    const at: Place = place.insideMeta ? { ...inner, noDefaults: 'inside additionalProperties applying to object metadata' } : inner;
    visit(s.additionalProperties, `${path}.additionalProperties`, 'object fields', errors, at);
  }
  if (s.type === 'array' && s.items === undefined) errors.push(fieldRequired(`${path}.items`, 'must be specified'));
  if (isSchema(s.items)) visit(s.items, `${path}.items`, 'array items', errors, inner);
  errors.push(...listTypeErrors(s, path));
}

function listTypeErrors(s: Schema, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const listType = s['x-kubernetes-list-type'];
  const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as unknown[]) : [];
  if (typeof listType === 'string' && !LIST_TYPES.includes(listType)) {
    errors.push(fieldNotSupported(`${path}.x-kubernetes-list-type`, listType, LIST_TYPES));
  }
  if (listType !== undefined && s.type !== 'array') {
    if (s.type === undefined || s.type === '')
      errors.push(fieldRequired(`${path}.type`, 'must be array if x-kubernetes-list-type is specified'));
    else errors.push(fieldInvalid(`${path}.type`, s.type, 'must be array if x-kubernetes-list-type is specified'));
  }
  const items = isSchema(s.items) ? s.items : undefined;
  if (listType === 'map') {
    if (keys.length === 0)
      errors.push(fieldRequired(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined) errors.push(fieldRequired(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object') {
      errors.push(fieldInvalid(`${path}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    }
    if (items?.type === 'object') {
      const itemProperties = isSchema(items.properties) ? items.properties : {};
      const required = Array.isArray(items.required) ? items.required : [];
      const seen = new Set<unknown>();
      for (const key of keys) {
        const property = typeof key === 'string' ? itemProperties[key] : undefined;
        if (!isSchema(property)) {
          errors.push(fieldInvalid(`${path}.x-kubernetes-list-map-keys`, keys, 'entries must all be names of item properties'));
        } else if (property.type === 'array' || property.type === 'object') {
          errors.push(
            fieldInvalid(
              `${path}.items.properties[${String(key)}].type`,
              property.type,
              "must be a scalar type if parent array's x-kubernetes-list-type is map",
            ),
          );
        } else if (!required.includes(key) && property.default === undefined) {
          errors.push(
            fieldRequired(
              `${path}.items.properties[${String(key)}]`,
              'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
            ),
          );
        }
        if (seen.has(key)) errors.push(fieldInvalid(`${path}.x-kubernetes-list-map-keys`, keys, 'must not contain duplicate entries'));
        seen.add(key);
      }
    }
  }
  if (listType === 'set' && items?.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
    errors.push(
      fieldInvalid(
        `${path}.items.x-kubernetes-map-type`,
        items['x-kubernetes-map-type'] ?? null,
        'must be atomic as item of a list with x-kubernetes-list-type=set',
      ),
    );
  }
  if (keys.length > 0 && listType !== 'map') {
    errors.push(fieldRequired(`${path}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  return errors;
}

/**
 * `metadata` may restrict name and generateName (type string, a pattern, a length), nothing else;
 * a default there is reported on its own (`must not be set in top-level metadata`), as upstream.
 */
function onlyNameRestrictions(metadata: Schema): boolean {
  const allowed = new Set(['type', 'properties', 'description', 'default']);
  if (Object.keys(metadata).some((k) => !allowed.has(k))) return false;
  if (metadata.type !== undefined && metadata.type !== 'object') return false;
  const properties = isSchema(metadata.properties) ? metadata.properties : {};
  return Object.keys(properties).every((k) => k === 'name' || k === 'generateName');
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
