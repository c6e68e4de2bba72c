/**
 * Prints a JSON value as a TypeScript expression in which every large subtree that would
 * otherwise be printed more than once (an OpenAPI document repeats its parameters and response
 * blocks per operation, as the real system's do) is written once, as a module constant, and
 * referred to by name. The value the module builds is the same JSON; the text is not repeated.
 */

import { StructuralIds } from './structural-ids.js';

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
  // Equal subtrees get one id (linear in the value's size); each id's occurrences are counted.
  const ids = new StructuralIds();
  const counts: number[] = [];
  const firstNode: Json[] = [];
  const idOf = (v: Json): number | undefined => (typeof v === 'object' && v !== null ? ids.idOf(v) : undefined);
  const index = (v: Json): void => {
    if (typeof v !== 'object' || v === null) return;
    for (const c of Array.isArray(v) ? v : Object.values(v)) index(c);
    const id = ids.idOf(v);
    if (counts[id] === undefined) {
      counts[id] = 0;
      firstNode[id] = v;
    }
    counts[id]!++;
  };
  index(value);

  // Ties in length are broken by the compact JSON text, printed once per subtree that needs it.
  const length = (id: number): number => ids.jsonLength(id);
  const text = new Map<number, string>();
  const textOf = (id: number): string => {
    let t = text.get(id);
    if (t === undefined) text.set(id, (t = JSON.stringify(firstNode[id])));
    return t;
  };
  // Largest first (ties by their JSON text): once a subtree is shared, the copies inside its other
  // occurrences are not printed.
  const byLengthThenText = (a: number, b: number, longestFirst: boolean): number =>
    (longestFirst ? length(b) - length(a) : length(a) - length(b)) || (textOf(a) < textOf(b) ? -1 : 1);
  const effective = [...counts];
  const chosen: number[] = [];
  const candidates = counts
    .map((_, id) => id)
    .filter((id) => counts[id]! > 1 && length(id) >= MIN_SHARED_LENGTH)
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
  // JSON.stringify prints (natively, with our indentation); a shared subtree below the top becomes a
  // marker string, then its name.
  const print = (top: Json): string[] =>
    JSON.stringify(
      top,
      (_key, v: Json) => {
        if (v === top || typeof v !== 'object' || v === null) return v;
        const name = names.get(ids.idOf(v));
        return name === undefined ? v : `${MARK}${name}${MARK}`;
      },
      2,
    )
      .replace(MARKED, '$1')
      .split('\n');
  return {
    constants: [...names].map(([id, name]) => ({ name, lines: print(firstNode[id]!) })),
    lines: print(value),
  };
}

/** Brackets a shared subtree's name; JSON.stringify escapes it as `\u0001`, which no printed string can start with. */
const MARK = '\u0001';
const MARKED = /"\\u0001([\w$]+)\\u0001"/g;
