import type { Constraints, NestedValueValidation, TypeNode, ValueValidation } from '../model/index.js';
import { LoadError, joinPath } from './load-error.js';
import { type NodeContext, type Schema, VALUE_CONSTRAINT_KEYS, asSchema, describe, optString } from './schema-object.js';

/** The node reader's constraints reader, handed in: one reading of `minLength` and friends for nodes and branches. */
type ConstraintsReader = (schema: Schema, ctx: NodeContext, path: string) => Constraints | undefined;

const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * What makes a value validation non-structural, as upstream's validateNestedValueValidation words
 * it: a branch checks the value, it never declares a type, a default or a list or map kind. The
 * problem starts with upstream's error type (`Forbidden: `), which the server reports it as.
 */
const FORBIDDEN: readonly { key: string; set: (v: unknown) => boolean; detail: string }[] = [
  { key: 'type', set: (v) => typeof v === 'string' && v !== '', detail: 'must be empty to be structural' },
  { key: 'additionalProperties', set: (v) => v !== undefined, detail: 'must be undefined to be structural' },
  { key: 'default', set: (v) => v !== undefined, detail: 'must be undefined to be structural' },
  { key: 'title', set: (v) => typeof v === 'string' && v !== '', detail: 'must be empty to be structural' },
  { key: 'description', set: (v) => typeof v === 'string' && v !== '', detail: 'must be empty to be structural' },
  { key: 'nullable', set: (v) => v === true, detail: 'must be false to be structural' },
  { key: 'x-svc-preserve-unknown-fields', set: (v) => v === true, detail: 'must be false to be structural' },
  { key: 'x-svc-embedded-resource', set: (v) => v === true, detail: 'must be false to be structural' },
  { key: 'x-svc-int-or-string', set: (v) => v === true, detail: 'must be false to be structural' },
  { key: 'x-svc-list-map-keys', set: (v) => Array.isArray(v) && v.length > 0, detail: 'must be empty to be structural' },
  { key: 'x-svc-list-type', set: (v) => v !== undefined, detail: 'must be undefined to be structural' },
  { key: 'x-svc-map-type', set: (v) => v !== undefined, detail: 'must be undefined to be structural' },
  { key: 'x-svc-validations', set: (v) => Array.isArray(v) && v.length > 0, detail: 'must be empty to be structural' },
];

/** What a branch may hold (svckit's own schema files are strict about the rest). */
const BRANCH_KEYS = new Set([...JUNCTORS, 'not', 'required', 'properties', 'items', 'format', ...VALUE_CONSTRAINT_KEYS]);

/** True for `allOf: [{$ref}, ...]`: named types embedded in an object, not value validations. */
export function isEmbedList(allOf: unknown): boolean {
  return (
    Array.isArray(allOf) &&
    allOf.length > 0 &&
    allOf.every((s) => s !== null && typeof s === 'object' && typeof (s as Schema).$ref === 'string')
  );
}

/**
 * The node's inline `allOf`/`anyOf`/`oneOf`/`not`, refused as upstream refuses them when not
 * structural, and their properties and items checked against the node's own (upstream's
 * completeness rule). The int-or-string spelling `anyOf: [{type: integer}, {type: string}]` is
 * the structure itself, not a validation: it is skipped, as upstream skips it.
 */
export function readValueValidation(
  schema: Schema,
  node: TypeNode,
  ctx: NodeContext,
  path: string,
  constraints: ConstraintsReader,
): ValueValidation | undefined {
  if (isEmbedList(schema.allOf)) return undefined;
  // Upstream skips the spelling wherever it appears (isIntOrStringAnyOfPattern), marker or not.
  const reader = new BranchReader(ctx, constraints);
  const v = reader.junctors(schema, path, { skipAnyOf: isIntOrStringAnyOf(schema.anyOf), skipFirstAllOfAnyOf: true });
  if (v) checkComplete(v, node, ctx, path, path);
  return v;
}

interface Skips {
  skipAnyOf?: boolean;
  skipFirstAllOfAnyOf?: boolean;
}

class BranchReader {
  constructor(
    private readonly ctx: NodeContext,
    private readonly constraints: ConstraintsReader,
  ) {}

  junctors(schema: Schema, path: string, skips: Skips): ValueValidation | undefined {
    const ctx = this.ctx;
    const v: ValueValidation = {};
    for (const key of JUNCTORS) {
      const list = schema[key];
      if (list === undefined || (key === 'anyOf' && skips.skipAnyOf)) continue;
      const listPath = joinPath(path, key);
      if (!Array.isArray(list)) throw new LoadError(ctx.file, listPath, `expected a list of schemas, found ${describe(list)}`);
      const branches = list.map((item, i) => {
        const first = key === 'allOf' && i === 0 && skips.skipFirstAllOfAnyOf === true;
        return this.nested(item, joinPath(listPath, i), { skipAnyOf: first && isIntOrStringAnyOf(asSchema(item, ctx, listPath).anyOf) });
      });
      const kept = branches.filter((b) => Object.keys(b).length > 0 || key !== 'allOf');
      if (kept.length > 0) v[key] = kept;
    }
    if (schema.not !== undefined) v.not = this.nested(schema.not, joinPath(path, 'not'), {});
    return Object.keys(v).length > 0 ? v : undefined;
  }

  nested(value: unknown, path: string, skips: Skips): NestedValueValidation {
    const ctx = this.ctx;
    const schema = asSchema(value, ctx, path);
    if (schema.$ref !== undefined) {
      throw new LoadError(
        ctx.file,
        joinPath(path, '$ref'),
        'expected {$ref: ...} in every item, or in none: only named types can be embedded',
      );
    }
    for (const f of FORBIDDEN) {
      if (f.set(schema[f.key])) throw new LoadError(ctx.file, joinPath(path, f.key), `Forbidden: ${f.detail}`);
    }
    if (ctx.strict) {
      const unknown = Object.keys(schema).find((k) => !BRANCH_KEYS.has(k) && !FORBIDDEN.some((f) => f.key === k));
      if (unknown !== undefined) throw new LoadError(ctx.file, joinPath(path, unknown), `unknown key "${unknown}" in a value validation`);
    }
    const out: NestedValueValidation = { ...this.junctors(schema, path, skips) };
    const constraints = this.constraints(schema, ctx, path);
    if (constraints) out.constraints = constraints;
    const format = optString(schema, 'format', ctx, path);
    if (format !== undefined) out.format = format;
    const required = schema.required;
    if (required !== undefined) {
      if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
        throw new LoadError(ctx.file, joinPath(path, 'required'), `expected a list of property names, found ${describe(required)}`);
      }
      if (required.length > 0) out.required = required as string[];
    }
    const properties = schema.properties;
    if (properties !== undefined) {
      const propsPath = joinPath(path, 'properties');
      if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) {
        throw new LoadError(ctx.file, propsPath, `expected a map of property schemas, found ${describe(properties)}`);
      }
      if ('metadata' in properties)
        throw new LoadError(ctx.file, joinPath(propsPath, 'metadata'), 'Forbidden: must not be specified in a nested context');
      out.properties = Object.fromEntries(
        Object.entries(properties as Schema).map(([name, p]) => [name, this.nested(p, joinPath(propsPath, name), {})]),
      );
    }
    if (schema.items !== undefined) out.items = this.nested(schema.items, joinPath(path, 'items'), {});
    return out;
  }
}

/**
 * Upstream's validateStructuralCompleteness: a property or items a branch speaks of must be in the
 * structure too, reported at the structure's path.
 */
function checkComplete(v: ValueValidation, node: TypeNode | undefined, ctx: NodeContext, nodePath: string, vPath: string): void {
  if (v.not) checkBranch(v.not, node, ctx, nodePath, joinPath(vPath, 'not'));
  for (const key of JUNCTORS) v[key]?.forEach((b, i) => checkBranch(b, node, ctx, nodePath, joinPath(joinPath(vPath, key), i)));
}

function checkBranch(b: NestedValueValidation, node: TypeNode | undefined, ctx: NodeContext, nodePath: string, bPath: string): void {
  checkComplete(b, node, ctx, nodePath, bPath);
  if (b.items) {
    if (node?.kind !== 'list') throw missing(ctx, joinPath(nodePath, 'items'), joinPath(bPath, 'items'));
    checkBranch(b.items, node.items, ctx, joinPath(nodePath, 'items'), joinPath(bPath, 'items'));
  }
  for (const [name, p] of Object.entries(b.properties ?? {})) {
    const field = node?.kind === 'object' ? node.fields.find((f) => f.name === name) : undefined;
    const at = joinPath(joinPath(nodePath, 'properties'), name);
    if (!field) throw missing(ctx, at, joinPath(joinPath(bPath, 'properties'), name));
    checkBranch(p, field.type, ctx, at, joinPath(joinPath(bPath, 'properties'), name));
  }
}

function missing(ctx: NodeContext, at: string, definedIn: string): LoadError {
  return new LoadError(ctx.file, at, `Required value: because it is defined in ${definedIn}`);
}

/** `anyOf: [{type: integer}, {type: string}]` and nothing else in either. */
function isIntOrStringAnyOf(anyOf: unknown): boolean {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false;
  const [a, b] = anyOf as Schema[];
  const only = (s: Schema | undefined, type: string) =>
    s !== null && typeof s === 'object' && s.type === type && Object.keys(s).length === 1;
  return only(a, 'integer') && only(b, 'string');
}
