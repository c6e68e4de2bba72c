/**
 * Prints a JSON value as a TypeScript expression in which every large subtree that would
 * otherwise be printed more than once (an OpenAPI document repeats its parameters and response
 * blocks per operation, as the real system's do) is written once, as a module constant, and
 * referred to by name. The value the module builds is the same JSON; the text is not repeated.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Subtrees shorter than this (as compact JSON) are printed in place: a name would save little. */
const MIN_SHARED_LENGTH = 160;

export interface SharedJson {
  /** Constant declarations, children before the subtrees that use them. */
  constants: { name: string; lines: string[] }[];
  /** The lines of the value itself, referring to the constants. */
  lines: string[];
}

export function printSharedJson(value: Json, prefix: string): SharedJson {
  const keys = new Map<object, string>();
  const counts = new Map<string, number>();
  const firstNode = new Map<string, Json>();
  const keyOf = (v: Json): string => (typeof v === 'object' && v !== null ? keys.get(v)! : JSON.stringify(v));
  // Post-order: a node's key is its compact JSON, built from its children's.
  const index = (v: Json): void => {
    if (typeof v !== 'object' || v === null) return;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) index(c);
    const key = Array.isArray(v)
      ? `[${v.map(keyOf).join(',')}]`
      : `{${Object.entries(v)
          .map(([k, c]) => `${JSON.stringify(k)}:${keyOf(c)}`)
          .join(',')}}`;
    keys.set(v, key);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (!firstNode.has(key)) firstNode.set(key, v);
  };
  index(value);

  // Largest first: once a subtree is shared, the copies inside its other occurrences are not printed.
  const effective = new Map(counts);
  const chosen = new Set<string>();
  const candidates = [...counts]
    .filter(([k, n]) => n > 1 && k.length >= MIN_SHARED_LENGTH)
    .sort(([a], [b]) => b.length - a.length || (a < b ? -1 : 1));
  for (const [key] of candidates) {
    const copies = effective.get(key)!;
    if (copies < 2) continue;
    chosen.add(key);
    const inside = (v: Json, top: boolean): void => {
      if (typeof v !== 'object' || v === null) return;
      if (!top) effective.set(keyOf(v), effective.get(keyOf(v))! - (copies - 1));
      for (const c of Array.isArray(v) ? v : Object.values(v)) inside(c, false);
    };
    inside(firstNode.get(key)!, true);
  }

  // Smallest first, so that a constant is declared before any constant that refers to it.
  const names = new Map([...chosen].sort((a, b) => a.length - b.length || (a < b ? -1 : 1)).map((k, i) => [k, `${prefix}${i + 1}`]));
  const print = (v: Json, indent: string, top: boolean): string => {
    if (typeof v !== 'object' || v === null) return JSON.stringify(v);
    const name = top ? undefined : names.get(keyOf(v));
    if (name) return name;
    const inner = `${indent}  `;
    if (Array.isArray(v)) return v.length === 0 ? '[]' : `[\n${v.map((c) => inner + print(c, inner, false)).join(',\n')}\n${indent}]`;
    const entries = Object.entries(v);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, c]) => `${inner}${JSON.stringify(k)}: ${print(c, inner, false)}`).join(',\n')}\n${indent}}`;
  };
  return {
    constants: [...names].map(([key, name]) => ({ name, lines: print(firstNode.get(key)!, '', true).split('\n') })),
    lines: print(value, '', true).split('\n'),
  };
}
