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
  // Hash-consing: equal subtrees get one id, from their children's ids (linear in the value's size;
  // keying each subtree by its whole JSON text was quadratic in its depth).
  const ids = new Map<object, number>();
  const byShape = new Map<string, number>();
  const counts: number[] = [];
  const lengths: number[] = [];
  const firstNode: Json[] = [];
  const idOf = (v: Json): number | undefined => (typeof v === 'object' && v !== null ? ids.get(v) : undefined);
  const part = (v: Json): string => {
    const id = idOf(v);
    return id === undefined ? JSON.stringify(v) : `#${id}`;
  };
  const lengthOf = (v: Json): number => {
    const id = idOf(v);
    return id === undefined ? JSON.stringify(v).length : lengths[id]!;
  };
  // Post-order: a node's shape is its children's ids; its length that of its compact JSON.
  const index = (v: Json): void => {
    if (typeof v !== 'object' || v === null) return;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) index(c);
    let shape: string;
    let length: number;
    if (Array.isArray(v)) {
      shape = `[${v.map(part).join(',')}]`;
      length = 2 + Math.max(0, v.length - 1) + v.reduce((n: number, c) => n + lengthOf(c), 0);
    } else {
      const entries = Object.entries(v);
      shape = `{${entries.map(([k, c]) => `${JSON.stringify(k)}:${part(c)}`).join(',')}}`;
      length = 2 + Math.max(0, entries.length - 1) + entries.reduce((n, [k, c]) => n + JSON.stringify(k).length + 1 + lengthOf(c), 0);
    }
    let id = byShape.get(shape);
    if (id === undefined) {
      id = counts.length;
      byShape.set(shape, id);
      counts.push(0);
      lengths.push(length);
      firstNode.push(v);
    }
    ids.set(v, id);
    counts[id]!++;
  };
  index(value);

  // Largest first (ties by their JSON text): once a subtree is shared, the copies inside its other
  // occurrences are not printed.
  const text = new Map<number, string>();
  const textOf = (id: number): string => {
    let t = text.get(id);
    if (t === undefined) text.set(id, (t = JSON.stringify(firstNode[id])));
    return t;
  };
  const byLengthThenText = (a: number, b: number, longestFirst: boolean): number =>
    (longestFirst ? lengths[b]! - lengths[a]! : lengths[a]! - lengths[b]!) || (textOf(a) < textOf(b) ? -1 : 1);
  const effective = [...counts];
  const chosen: number[] = [];
  const candidates = counts
    .map((_, id) => id)
    .filter((id) => counts[id]! > 1 && lengths[id]! >= MIN_SHARED_LENGTH)
    .sort((a, b) => byLengthThenText(a, b, true));
  for (const id of candidates) {
    const copies = effective[id]!;
    if (copies < 2) continue;
    chosen.push(id);
    const inside = (v: Json, top: boolean): void => {
      if (typeof v !== 'object' || v === null) return;
      if (!top) effective[idOf(v)!]! -= copies - 1;
      for (const c of Array.isArray(v) ? v : Object.values(v)) inside(c, false);
    };
    inside(firstNode[id]!, true);
  }

  // Smallest first, so that a constant is declared before any constant that refers to it.
  const names = new Map(chosen.sort((a, b) => byLengthThenText(a, b, false)).map((id, i) => [id, `${prefix}${i + 1}`]));
  const print = (v: Json, indent: string, top: boolean): string => {
    if (typeof v !== 'object' || v === null) return JSON.stringify(v);
    const name = top ? undefined : names.get(idOf(v)!);
    if (name) return name;
    const inner = `${indent}  `;
    if (Array.isArray(v)) return v.length === 0 ? '[]' : `[\n${v.map((c) => inner + print(c, inner, false)).join(',\n')}\n${indent}]`;
    const entries = Object.entries(v);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, c]) => `${inner}${JSON.stringify(k)}: ${print(c, inner, false)}`).join(',\n')}\n${indent}}`;
  };
  return {
    constants: [...names].map(([id, name]) => ({ name, lines: print(firstNode[id]!, '', true).split('\n') })),
    lines: print(value, '', true).split('\n'),
  };
}
