import type { ObjectNode, TypeId } from '../model/index.js';
import { LoadError, joinPath } from './load-error.js';

/**
 * What the schema converters (schema-node.ts, value-validation.ts) share: the context of one file
 * and the reading of a schema object. The same converter serves svckit's own schema files (strict:
 * unknown keys are errors), OpenAPI documents and CRDs (lenient: vendor keys are ignored), so all
 * inputs share one meaning of every keyword and marker.
 */
export interface NodeContext {
  file: string;
  strict: boolean;
  /** Resolves a `$ref` string to the id of a named type. */
  resolveRef(ref: string, path: string): TypeId;
  /** Objects that embed other named types (`allOf`); merged once every file is loaded. */
  embeds: PendingEmbed[];
}

export interface PendingEmbed {
  node: ObjectNode;
  /** Embedded types, each with the Protobuf field number that nests it when it has one. */
  targets: { id: TypeId; protoTag?: number }[];
  file: string;
  path: string;
}

export type Schema = Record<string, unknown>;

/** OpenAPI's value constraints: what a schema node and a value-validation branch both may hold. */
export const VALUE_CONSTRAINT_KEYS = [
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
] as const;

/** `x-kubernetes-foo` is read as `x-svc-foo`; the real system's spelling is accepted everywhere. */
export function normalizeMarkers(schema: Schema): Schema {
  let out: Schema | undefined;
  for (const key of Object.keys(schema)) {
    if (key.startsWith('x-kubernetes-')) {
      out ??= { ...schema };
      const alias = `x-svc-${key.slice('x-kubernetes-'.length)}`;
      if (!(alias in out)) out[alias] = schema[key];
      delete out[key];
    }
  }
  return out ?? schema;
}

export function asSchema(value: unknown, ctx: NodeContext, path: string): Schema {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new LoadError(ctx.file, path, `expected a schema object, found ${describe(value)}`);
  }
  return normalizeMarkers(value as Schema);
}

export function optString(schema: Schema, key: string, ctx: NodeContext, path: string): string | undefined {
  const v = schema[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new LoadError(ctx.file, joinPath(path, key), `expected a string, found ${describe(v)}`);
  return v;
}

export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}
