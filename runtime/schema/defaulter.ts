import { isObject, isZeroDuration } from '../validate/index.js';
import { type Defaulter, copyDefault, hasDefaults, zeroOf } from './default-support.js';
import { compileDefaulterSource } from './defaulter-source.js';
import type { FieldSchema, SchemaNode } from './types.js';

export type { Defaulter } from './default-support.js';

/**
 * The defaulter of a schema descriptor, compiled on first use and cached per descriptor: to
 * straight-line JavaScript (defaulter-source.ts), or to closures where compiling code is refused. A
 * default fills an absent field (and a zero value where the schema says a zero means unset);
 * defaulted objects are then defaulted inside, top-down as upstream. Subtrees without a default
 * anywhere below are not walked.
 */
export function defaulterOf(schema: SchemaNode): Defaulter {
  let d = cache.get(schema);
  // References are followed on first call, so compiling never recurses through them.
  if (!d)
    cache.set(schema, (d = hasDefaults(schema) ? (compileDefaulterSource(schema, defaulterOf) ?? closureDefaulter(schema)) : nothing));
  return d;
}

const cache = new WeakMap<SchemaNode, Defaulter>();
const nothing: Defaulter = () => {};

/** The defaulter as closures, uncached (defaulterOf's fallback; tests compare both). */
export function closureDefaulter(node: SchemaNode): Defaulter {
  if (!hasDefaults(node)) return nothing;
  return node.type === 'object' && node.fields.length > 0 ? objectBody(node.fields) : descend(node, true);
}

function objectBody(fields: readonly FieldSchema[]): Defaulter {
  const steps = fields.map(field).filter((s) => s !== undefined);
  return (v) => {
    if (!isObject(v)) return;
    for (const s of steps) s(v);
  };
}

function field(f: FieldSchema): ((v: Record<string, unknown>) => void) | undefined {
  const value = f.schema.default;
  const inner = hasDefaults(f.schema) ? descend(f.schema, false) : undefined;
  if (value === undefined && !inner) return undefined;
  const name = f.name;
  // Only the document's own properties: `toString` is not an inherited function here.
  const inherited = name in Object.prototype;
  const read = (v: Record<string, unknown>): unknown => (inherited && !Object.hasOwn(v, name) ? undefined : v[name]);
  const isZero = value === undefined ? undefined : zeroTest(f.schema, value);
  const zeroIsUnset = f.defaultZeroIsUnset === true;
  return (v) => {
    if (value !== undefined) {
      const x = read(v);
      // A fresh copy on every call: defaulted objects are never shared between documents.
      if (x === undefined || (zeroIsUnset && isZero!(x))) v[name] = copyDefault(value);
    }
    if (inner) inner(read(v));
  };
}

/** Whether a value is the zero of a default's type: what a non-pointer field upstream holds when unset. */
function zeroTest(schema: SchemaNode, value: unknown): (x: unknown) => boolean {
  if (schema.type === 'duration') return (x) => isZeroDuration(x);
  const zero = zeroOf(value);
  return (x) => x === zero;
}

/** Defaults inside a value of `node`. */
function descend(node: SchemaNode, top: boolean): Defaulter {
  switch (node.type) {
    case 'ref': {
      const target = node.ref;
      let inner: Defaulter | undefined;
      return (x) => (inner ??= defaulterOf(target()))(x);
    }
    case 'object':
      return !top && node.fields.length > 0 ? objectBody(node.fields) : nothing;
    case 'list': {
      const item = descend(node.items, false);
      return (x) => {
        if (Array.isArray(x)) for (const y of x) item(y);
      };
    }
    case 'map': {
      const value = descend(node.values, false);
      return (x) => {
        if (isObject(x)) for (const y of Object.values(x)) value(y);
      };
    }
    default:
      return nothing;
  }
}
