import { isObject, isZeroDuration } from '../validate/index.js';
import type { FieldSchema, SchemaNode } from './types.js';

/** Applies a schema's defaults to a value in place. */
export type Defaulter = (value: unknown) => void;

/**
 * The defaulter of a schema descriptor, compiled on first use into closures and cached per
 * descriptor. A default fills an absent field (and a zero value where the schema says a zero means
 * unset); defaulted objects are then defaulted inside, top-down as upstream. Subtrees without a
 * default anywhere below are not walked.
 */
export function defaulterOf(schema: SchemaNode): Defaulter {
  let d = cache.get(schema);
  // References are followed on first call, so compiling never recurses through them.
  if (!d) cache.set(schema, (d = compileRoot(schema)));
  return d;
}

const cache = new WeakMap<SchemaNode, Defaulter>();
const nothing: Defaulter = () => {};

function compileRoot(node: SchemaNode): Defaulter {
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
      if (x === undefined || (zeroIsUnset && isZero!(x))) v[name] = copy(value);
    }
    if (inner) inner(read(v));
  };
}

/** Whether a value is the zero of a default's type: what a non-pointer field upstream holds when unset. */
function zeroTest(schema: SchemaNode, value: unknown): (x: unknown) => boolean {
  if (schema.type === 'duration') return (x) => isZeroDuration(x);
  const zero = typeof value === 'number' ? 0 : typeof value === 'string' ? '' : typeof value === 'boolean' ? false : null;
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

/** Whether a node has a default at or below it (following references; a cycle adds nothing). */
function hasDefaults(node: SchemaNode, visiting = new Set<SchemaNode>()): boolean {
  switch (node.type) {
    case 'object':
      return node.fields.some((f) => f.schema.default !== undefined || hasDefaults(f.schema, visiting));
    case 'list':
      return hasDefaults(node.items, visiting);
    case 'map':
      return hasDefaults(node.values, visiting);
    case 'ref': {
      const target = node.ref();
      if (visiting.has(target)) return false;
      let known = memo.get(target);
      if (known === undefined) {
        visiting.add(target);
        known = hasDefaults(target, visiting);
        visiting.delete(target);
        memo.set(target, known);
      }
      return known;
    }
    default:
      return false;
  }
}

const memo = new WeakMap<SchemaNode, boolean>();

/** A deep copy of a JSON default. */
function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = copy((value as Record<string, unknown>)[k]);
    // A `__proto__` key is data here, never the copy's prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}
