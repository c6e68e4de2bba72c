import type { SchemaNode } from './types.js';

/** Applies a schema's defaults to a value in place. */
export type Defaulter = (value: unknown) => void;

/** Whether a node has a default at or below it (following references; a cycle adds nothing). */
export function hasDefaults(node: SchemaNode, visiting = new Set<SchemaNode>()): boolean {
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
export function copyDefault(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyDefault);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = copyDefault((value as Record<string, unknown>)[k]);
    // A `__proto__` key is data here, never the copy's prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

/** The zero of a default's type: what a non-pointer field upstream holds when unset. */
export function zeroOf(value: unknown): unknown {
  return typeof value === 'number' ? 0 : typeof value === 'string' ? '' : typeof value === 'boolean' ? false : null;
}
