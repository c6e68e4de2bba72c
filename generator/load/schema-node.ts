import { RE2JS } from 're2js';
import type { Constraints, Field, ListNode, MapNode, ObjectNode, ScalarType, TypeNode, ValidationRule } from '../model/index.js';
import { LoadError, joinPath } from './load-error.js';
import { type NodeContext, type Schema, VALUE_CONSTRAINT_KEYS, asSchema, describe, optString } from './schema-object.js';
import { isEmbedList, readValueValidation } from './value-validation.js';

export { type NodeContext, type PendingEmbed, asSchema, describe, normalizeMarkers, optString } from './schema-object.js';

/** Patterns RE2 has already accepted. */
const VALID_PATTERNS = new Set<string>();

const NODE_KEYS = new Set([
  'type',
  'format',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'default',
  ...VALUE_CONSTRAINT_KEYS,
  'nullable',
  '$ref',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'x-svc-int-or-string',
  'x-svc-raw-extension',
  'x-svc-embedded-resource',
  'x-svc-preserve-unknown-fields',
  'x-svc-list-type',
  'x-svc-list-map-keys',
  'x-svc-map-type',
  'x-svc-struct-type',
  'x-svc-validations',
  'x-svc-spec',
]);
const FIELD_KEYS = new Set([
  'x-svc-proto',
  'x-svc-patch-strategy',
  'x-svc-patch-merge-key',
  'x-svc-deprecated',
  'x-svc-secret',
  'x-svc-default-zero-is-unset',
  'x-svc-zero-is-unset',
]);
const EMBED_KEYS = new Set(['$ref', 'x-svc-proto']);
const VALIDATION_KEYS = new Set(['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf', 'spec']);

export function checkKeys(schema: Schema, allowed: ReadonlySet<string>[], ctx: NodeContext, path: string): void {
  if (!ctx.strict) return;
  for (const key of Object.keys(schema)) {
    if (!allowed.some((set) => set.has(key))) {
      throw new LoadError(
        ctx.file,
        joinPath(path, key),
        `unknown key "${key}" (see docs/schema-format.md for the accepted keys and markers)`,
      );
    }
  }
}

/** Converts a property schema into a field of its parent object. */
export function toField(name: string, value: unknown, required: boolean, ctx: NodeContext, path: string): Field {
  const schema = asSchema(value, ctx, path);
  checkKeys(schema, [NODE_KEYS, FIELD_KEYS], ctx, path);
  const field: Field = { name, type: toTypeNode(schema, ctx, path, true), required };
  const description = optString(schema, 'description', ctx, path);
  if (description !== undefined) field.description = description;
  const proto = schema['x-svc-proto'];
  if (proto !== undefined) {
    if (!Number.isInteger(proto) || (proto as number) < 1) {
      throw new LoadError(ctx.file, joinPath(path, 'x-svc-proto'), `expected a positive integer field number, found ${describe(proto)}`);
    }
    field.protoTag = proto as number;
  }
  const deprecated = schema['x-svc-deprecated'];
  if (deprecated !== undefined && deprecated !== false) field.deprecated = deprecated === true ? 'deprecated' : String(deprecated);
  if (schema['x-svc-secret'] === true) field.secret = true;
  if (schema['x-svc-default-zero-is-unset'] === true) {
    if (field.type.default === undefined) {
      throw new LoadError(ctx.file, path, 'x-svc-default-zero-is-unset needs a default on the same property');
    }
    field.defaultZeroIsUnset = true;
  }
  if (schema['x-svc-zero-is-unset'] === true) {
    if (field.type.kind !== 'scalar') {
      throw new LoadError(ctx.file, path, 'x-svc-zero-is-unset is for strings, integers, numbers and booleans');
    }
    field.zeroIsUnset = true;
  }
  const strategy = optString(schema, 'x-svc-patch-strategy', ctx, path);
  if (strategy !== undefined) field.patchStrategy = strategy;
  const mergeKey = optString(schema, 'x-svc-patch-merge-key', ctx, path);
  if (mergeKey !== undefined) field.patchMergeKey = mergeKey;
  return field;
}

/**
 * Converts a schema object into a type node. `fieldLevel` is true when the caller already accepted
 * the property-only markers (x-svc-proto and friends).
 */
export function toTypeNode(value: unknown, ctx: NodeContext, path: string, fieldLevel = false): TypeNode {
  const schema = asSchema(value, ctx, path);
  if (!fieldLevel) checkKeys(schema, [NODE_KEYS], ctx, path);
  const node = classify(schema, ctx, path);
  const description = optString(schema, 'description', ctx, path);
  if (description !== undefined) node.description = description;
  if (schema.nullable === true) node.nullable = true;
  if ('default' in schema) node.default = schema.default;
  const constraints = readConstraints(schema, ctx, path);
  if (constraints) node.constraints = constraints;
  const valueValidation = readValueValidation(schema, node, ctx, path, readConstraints);
  if (valueValidation) node.valueValidation = valueValidation;
  const validations = readValidations(schema, ctx, path);
  if (validations) node.validations = validations;
  const spec = optString(schema, 'x-svc-spec', ctx, path);
  if (spec !== undefined) node.spec = spec;
  return node;
}

function classify(schema: Schema, ctx: NodeContext, path: string): TypeNode {
  const ref = schema.$ref;
  if (ref !== undefined) {
    if (typeof ref !== 'string') throw new LoadError(ctx.file, joinPath(path, '$ref'), `expected a string, found ${describe(ref)}`);
    return { kind: 'ref', target: ctx.resolveRef(ref, joinPath(path, '$ref')) };
  }
  // OpenAPI v3 documents of the real system wrap a lone $ref in allOf to attach a description.
  const allOf = schema.allOf;
  // Inline allOf branches are value validations (read apart); only a list of $refs embeds types.
  const embeds = isEmbedList(allOf);
  if (Array.isArray(allOf) && allOf.length === 1 && schema.properties === undefined && schema.type === undefined) {
    const only = asSchema(allOf[0], ctx, joinPath(path, 'allOf[0]'));
    if (typeof only.$ref === 'string' && Object.keys(only).length === 1) {
      return { kind: 'ref', target: ctx.resolveRef(only.$ref, joinPath(path, 'allOf[0].$ref')) };
    }
  }
  if (schema['x-svc-int-or-string'] === true) return { kind: 'int-or-string' };
  if (schema['x-svc-raw-extension'] === true) return { kind: 'raw' };

  const type = schema.type;
  const format = optString(schema, 'format', ctx, path);
  if (type === undefined) {
    if (schema.properties !== undefined || embeds || schema['x-svc-embedded-resource'] === true) {
      return toObject(schema, ctx, path);
    }
    if (schema.additionalProperties !== undefined) return toMap(schema, ctx, path);
    if (schema['x-svc-preserve-unknown-fields'] === true || !ctx.strict) return { kind: 'raw' };
    throw new LoadError(
      ctx.file,
      path,
      'expected one of "type", "$ref", "allOf", "properties" or x-svc-int-or-string / x-svc-raw-extension',
    );
  }
  switch (type) {
    case 'object':
      if (
        schema.properties === undefined &&
        !embeds &&
        schema.additionalProperties !== undefined &&
        schema.additionalProperties !== false
      ) {
        return toMap(schema, ctx, path);
      }
      return toObject(schema, ctx, path);
    case 'array':
      return toList(schema, ctx, path);
    case 'string':
      if (format === 'byte') return { kind: 'bytes' };
      if (format === 'date' || format === 'date-time') return { kind: 'time', format };
      if (format === 'duration') return { kind: 'duration' };
      if (format === 'quantity') return { kind: 'quantity' };
      return format === undefined ? { kind: 'scalar', type: 'string' } : { kind: 'scalar', type: 'string', format };
    case 'integer':
    case 'number':
    case 'boolean':
      return format === undefined ? { kind: 'scalar', type: type as ScalarType } : { kind: 'scalar', type: type as ScalarType, format };
    default:
      throw new LoadError(
        ctx.file,
        joinPath(path, 'type'),
        `expected object, array, string, integer, number or boolean, found ${describe(type)}`,
      );
  }
}

function toObject(schema: Schema, ctx: NodeContext, path: string): ObjectNode {
  const node: ObjectNode = { kind: 'object', fields: [] };
  const required = readRequired(schema, ctx, path);
  const properties = schema.properties;
  if (properties !== undefined) {
    if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) {
      throw new LoadError(ctx.file, joinPath(path, 'properties'), `expected a map of property schemas, found ${describe(properties)}`);
    }
    for (const [name, prop] of Object.entries(properties as Schema)) {
      node.fields.push(toField(name, prop, required.has(name), ctx, joinPath(joinPath(path, 'properties'), name)));
    }
  }
  for (const name of required) {
    if (!node.fields.some((f) => f.name === name) && !isEmbedList(schema.allOf) && ctx.strict) {
      throw new LoadError(ctx.file, joinPath(path, 'required'), `"${name}" is required but is not a property`);
    }
  }
  const allOf = schema.allOf;
  if (isEmbedList(allOf)) {
    const targets = (allOf as unknown[]).map((item, i) => {
      const itemPath = joinPath(joinPath(path, 'allOf'), i);
      const s = asSchema(item, ctx, itemPath);
      if (typeof s.$ref !== 'string') throw new LoadError(ctx.file, itemPath, 'expected {$ref: ...}: only named types can be embedded');
      checkKeys(s, [EMBED_KEYS], ctx, itemPath);
      const id = ctx.resolveRef(s.$ref, joinPath(itemPath, '$ref'));
      const proto = s['x-svc-proto'];
      if (proto === undefined) return { id };
      if (!Number.isInteger(proto) || (proto as number) < 1) {
        throw new LoadError(
          ctx.file,
          joinPath(itemPath, 'x-svc-proto'),
          `expected a positive integer field number, found ${describe(proto)}`,
        );
      }
      return { id, protoTag: proto as number };
    });
    ctx.embeds.push({ node, targets, file: ctx.file, path });
  }
  if (schema['x-svc-preserve-unknown-fields'] === true) node.preserveUnknown = true;
  if (schema['x-svc-embedded-resource'] === true) node.embeddedResource = true;
  // The real system writes x-kubernetes-map-type on structs too (LabelSelector is atomic).
  const structType =
    optEnum(schema, 'x-svc-struct-type', ['atomic', 'granular'] as const, ctx, path) ??
    optEnum(schema, 'x-svc-map-type', ['atomic', 'granular'] as const, ctx, path);
  if (structType) node.structType = structType;
  return node;
}

function toMap(schema: Schema, ctx: NodeContext, path: string): MapNode | ObjectNode {
  const additional = schema.additionalProperties;
  const valuesPath = joinPath(path, 'additionalProperties');
  if (additional === true) {
    // A free-form map of JSON values.
    const node: MapNode = { kind: 'map', values: { kind: 'raw' } };
    readMapType(node, schema, ctx, path);
    return node;
  }
  const node: MapNode = { kind: 'map', values: toTypeNode(additional, ctx, valuesPath) };
  readMapType(node, schema, ctx, path);
  return node;
}

function readMapType(node: MapNode, schema: Schema, ctx: NodeContext, path: string): void {
  const mapType = optEnum(schema, 'x-svc-map-type', ['atomic', 'granular'] as const, ctx, path);
  if (mapType) node.mapType = mapType;
}

function toList(schema: Schema, ctx: NodeContext, path: string): ListNode {
  if (schema.items === undefined) throw new LoadError(ctx.file, path, 'an array needs "items"');
  const node: ListNode = { kind: 'list', items: toTypeNode(schema.items, ctx, joinPath(path, 'items')) };
  const listType = optEnum(schema, 'x-svc-list-type', ['atomic', 'set', 'map'] as const, ctx, path);
  if (listType) node.listType = listType;
  const keys = schema['x-svc-list-map-keys'];
  if (keys !== undefined) {
    if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
      throw new LoadError(
        ctx.file,
        joinPath(path, 'x-svc-list-map-keys'),
        `expected a non-empty list of field names, found ${describe(keys)}`,
      );
    }
    if (listType !== 'map') throw new LoadError(ctx.file, joinPath(path, 'x-svc-list-map-keys'), 'list map keys need x-svc-list-type: map');
    node.listMapKeys = keys as string[];
  }
  return node;
}

function readRequired(schema: Schema, ctx: NodeContext, path: string): Set<string> {
  const required = schema.required;
  if (required === undefined) return new Set();
  if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
    throw new LoadError(ctx.file, joinPath(path, 'required'), `expected a list of property names, found ${describe(required)}`);
  }
  return new Set(required as string[]);
}

const NUMBER_CONSTRAINTS = [
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
] as const;

export function readConstraints(schema: Schema, ctx: NodeContext, path: string): Constraints | undefined {
  const c: Constraints = {};
  for (const key of NUMBER_CONSTRAINTS) {
    const v = schema[key];
    if (v === undefined) continue;
    if (typeof v !== 'number') throw new LoadError(ctx.file, joinPath(path, key), `expected a number, found ${describe(v)}`);
    c[key] = v;
  }
  for (const key of ['exclusiveMinimum', 'exclusiveMaximum'] as const) {
    const v = schema[key];
    if (v === undefined) continue;
    if (typeof v !== 'boolean')
      throw new LoadError(ctx.file, joinPath(path, key), `expected true or false (OpenAPI 3.0 style), found ${describe(v)}`);
    c[key] = v;
  }
  if (schema.pattern !== undefined) {
    const pattern = optString(schema, 'pattern', ctx, path) as string;
    // RE2, as Kubernetes reads `pattern` (the runtime's regex module uses the same library); each
    // distinct pattern is compiled once (a CRD's versions repeat theirs).
    if (!VALID_PATTERNS.has(pattern)) {
      try {
        RE2JS.compile(pattern);
      } catch (e) {
        throw new LoadError(ctx.file, joinPath(path, 'pattern'), `not a valid regular expression: ${(e as Error).message}`);
      }
      VALID_PATTERNS.add(pattern);
    }
    c.pattern = pattern;
  }
  if (schema.enum !== undefined) {
    if (!Array.isArray(schema.enum) || schema.enum.length === 0) {
      throw new LoadError(ctx.file, joinPath(path, 'enum'), `expected a non-empty list of values, found ${describe(schema.enum)}`);
    }
    c.enum = schema.enum;
  }
  return Object.keys(c).length > 0 ? c : undefined;
}

function readValidations(schema: Schema, ctx: NodeContext, path: string): ValidationRule[] | undefined {
  const raw = schema['x-svc-validations'];
  if (raw === undefined) return undefined;
  const listPath = joinPath(path, 'x-svc-validations');
  if (!Array.isArray(raw)) throw new LoadError(ctx.file, listPath, `expected a list of {rule, message}, found ${describe(raw)}`);
  return raw.map((item, i) => {
    const itemPath = joinPath(listPath, i);
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new LoadError(ctx.file, itemPath, `expected {rule, message}, found ${describe(item)}`);
    }
    const v = item as Schema;
    checkKeys(v, [VALIDATION_KEYS], ctx, itemPath);
    const rule = v.rule;
    if (typeof rule !== 'string' || rule.trim() === '')
      throw new LoadError(ctx.file, joinPath(itemPath, 'rule'), 'expected a non-empty CEL expression');
    const out: ValidationRule = { rule };
    for (const key of ['message', 'messageExpression', 'reason', 'fieldPath', 'spec'] as const) {
      const s = optString(v, key, ctx, itemPath);
      if (s !== undefined) out[key] = s;
    }
    if (v.optionalOldSelf === true) out.optionalOldSelf = true;
    return out;
  });
}

function optEnum<T extends string>(schema: Schema, key: string, values: readonly T[], ctx: NodeContext, path: string): T | undefined {
  const v = schema[key];
  if (v === undefined) return undefined;
  if (!values.includes(v as T)) {
    throw new LoadError(ctx.file, joinPath(path, key), `expected one of ${values.join(', ')}, found ${describe(v)}`);
  }
  return v as T;
}
