/**
 * The sizes the cost estimator knows of a schema's values, derived as Kubernetes 1.30 derives them
 * (k8s.io/apiserver pkg/cel/common/schemas.go SchemaDeclType and pkg/cel/types.go): the largest
 * size of a string, bytes, list or map (maxLength, maxItems, maxProperties; otherwise what fits in
 * one 3 MiB request, by the format or the longest enum value) and the smallest JSON encoding of a
 * value, which bounds how many values fit in one request.
 */
import { deref, type SchemaNode } from '../schema/index.js';
import type { SizeEstimator } from './estimate.js';
import { celFields } from './schema-objects.js';

/** Largest request body the server accepts, the bound for everything without a declared maximum. */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/** What the estimator knows of a schema node's values (upstream's DeclType, sizes only). */
export interface DeclSizes {
  /** Characters of a string, bytes of bytes, items of a list, entries of a map; 0 for anything else. */
  readonly maxElements: number;
  /** Bytes of the smallest JSON encoding of a value. */
  readonly minSerializedSize: number;
  /** List items, map values. */
  readonly elem?: DeclSizes;
  /** Map keys: strings without a declared length, so 0 (upstream's plain StringType). */
  readonly key?: DeclSizes;
  /** An object's fields by escaped name. */
  field(name: string): DeclSizes | undefined;
}

// Upstream's limits.go: JSON sizes of the string formats.
const MAX_DURATION_JSON = 32;
const MAX_DATETIME_JSON = 32;
const MIN_DURATION_JSON = 3;
const DATE_JSON = 12;
const MIN_DATETIME_JSON = 21;
const MIN_STRING = 2;
const MIN_BOOL = 4;
const MIN_NUMBER = 1;

const noFields = (): undefined => undefined;
const simple = (maxElements: number, minSerializedSize: number): DeclSizes => ({ maxElements, minSerializedSize, field: noFields });

const STRING_KEY = simple(0, MIN_STRING);
/** Everything up to a whole request minus the quotes; an int-or-string is this too. */
const UNBOUNDED_STRING = MAX_REQUEST_BYTES - 2;

const zeroIfNegative = (v: number): number => Math.max(0, v);

/** estimateMaxStringEnumLength: the longest string enum value. */
function longestEnum(values: readonly unknown[]): number {
  return values.reduce<number>((max, v) => (typeof v === 'string' && v.length > max ? v.length : max), 0);
}

function stringSizes(format: string | undefined, maxLength: number | undefined, enumValues: readonly unknown[] | undefined): DeclSizes {
  switch (format) {
    case 'byte':
      return simple(maxLength !== undefined ? zeroIfNegative(maxLength) : UNBOUNDED_STRING, MIN_STRING);
    case 'duration':
      return simple(MAX_DURATION_JSON, MIN_DURATION_JSON);
    case 'date':
      return simple(DATE_JSON, DATE_JSON);
    case 'date-time':
      return simple(MAX_DATETIME_JSON, MIN_DATETIME_JSON);
  }
  // maxLength counts code points, up to 4 bytes each; sizes here are bytes.
  if (maxLength !== undefined) return simple(zeroIfNegative(maxLength) * 4, MIN_STRING);
  if (enumValues && enumValues.length > 0) return simple(longestEnum(enumValues), MIN_STRING);
  return simple(UNBOUNDED_STRING, MIN_STRING);
}

const cache = new WeakMap<SchemaNode, DeclSizes | null>();
const rootCache = new WeakMap<SchemaNode, DeclSizes | null>();

/**
 * The sizes of values of `node`; undefined where upstream exposes no CEL type (a field of any JSON
 * without a type). `resourceRoot`: the root of a custom resource, whose apiVersion, kind and
 * metadata names are always there.
 */
export function declSizes(node: SchemaNode, resourceRoot = false): DeclSizes | undefined {
  const memo = resourceRoot ? rootCache : cache;
  const known = memo.get(node);
  if (known !== undefined) return known ?? undefined;
  // A recursive schema meets itself as an object without required fields.
  memo.set(node, simple(0, 2));
  const sizes = compute(node, resourceRoot);
  memo.set(node, sizes ?? null);
  return sizes;
}

function compute(node: SchemaNode, resourceRoot: boolean): DeclSizes | undefined {
  const n = deref(node);
  const maxLength = node.maxLength ?? n.maxLength;
  const enumValues = node.enum ?? n.enum;
  switch (n.type) {
    case 'int-or-string':
    case 'quantity':
      return simple(UNBOUNDED_STRING, 1);
    case 'raw':
      return undefined;
    case 'list': {
      const elem = declSizes(n.items, isEmbedded(n.items));
      if (!elem) return undefined;
      const maxItems = node.maxItems ?? n.maxItems;
      const max = maxItems !== undefined ? zeroIfNegative(maxItems) : Math.floor(UNBOUNDED_STRING / (elem.minSerializedSize + 1));
      return { maxElements: max, minSerializedSize: 2, elem, field: noFields };
    }
    case 'map': {
      const elem = declSizes(n.values, isEmbedded(n.values));
      if (!elem) return undefined;
      const maxProperties = node.maxProperties ?? n.maxProperties;
      // Each entry is at least `"":` plus a comma and the smallest value.
      const max = maxProperties !== undefined ? zeroIfNegative(maxProperties) : Math.floor(UNBOUNDED_STRING / (elem.minSerializedSize + 6));
      return { maxElements: max, minSerializedSize: 2, elem, key: STRING_KEY, field: noFields };
    }
    case 'object': {
      const fields = new Map<string, DeclSizes>();
      // `{}`, plus every required field without a default: its name, `"":`, a comma, its smallest value.
      let minSerializedSize = 2;
      const declared = new Map(n.fields.map((f) => [f.name, f]));
      for (const f of celFields(resourceRoot && !n.embeddedResource ? { ...n, embeddedResource: true } : n)) {
        const sizes = declSizes(f.schema, isEmbedded(f.schema));
        if (!sizes) continue;
        fields.set(f.escaped, sizes);
        const source = declared.get(f.name);
        if (source?.required && f.schema.default === undefined && deref(f.schema).default === undefined) {
          minSerializedSize += f.name.length + sizes.minSerializedSize + 4;
        }
      }
      return { maxElements: 0, minSerializedSize, field: (name) => fields.get(name) };
    }
    case 'string':
      return stringSizes(n.format, maxLength, enumValues);
    case 'bytes':
      return stringSizes('byte', maxLength, enumValues);
    case 'date':
    case 'date-time':
    case 'duration':
      return stringSizes(n.type, maxLength, enumValues);
    case 'boolean':
      return simple(0, MIN_BOOL);
    case 'integer':
    case 'number':
      return simple(0, MIN_NUMBER);
  }
}

const isEmbedded = (node: SchemaNode): boolean => {
  const n = deref(node);
  return n.type === 'object' && n.embeddedResource === true;
};

/**
 * How many values of a node with this smallest encoding fit in one request (apiextensions'
 * maxCardinality): the cardinality of a rule under lists or maps without declared maximums.
 */
export function maxCardinality(minSerializedSize: number): number {
  return Math.floor(MAX_REQUEST_BYTES / (minSerializedSize + 1));
}

/**
 * Sizes by path (apiextensions' sizeEstimator): the path's first element names a variable, the
 * rest walks fields, `@items`, `@values` and `@keys`. As upstream, a path that starts from no
 * declared variable (an iteration over a literal, a cel.bind variable) starts from `self`.
 */
export function sizesByPath(roots: ReadonlyMap<string, DeclSizes>): SizeEstimator {
  return ({ path }) => {
    if (!path || path.length === 0) return undefined;
    let current = roots.get(path[0] as string) ?? roots.get('self');
    for (const name of path.slice(1)) {
      if (!current) return undefined;
      current = name === '@items' || name === '@values' ? current.elem : name === '@keys' ? current.key : current.field(name);
    }
    return current ? { min: 0n, max: BigInt(current.maxElements) } : undefined;
  };
}
