/**
 * Key order shared by the backends: Unicode code point order, which is what SQLite's BINARY
 * collation gives on UTF-8 text. JavaScript's `<` compares UTF-16 code units, which differs for
 * characters above U+FFFF, so the in-memory backend sorts with `compareKeys` to list the same
 * pages as the SQLite one.
 */

/** Negative, zero or positive as `a` sorts before, with or after `b` in code point order. */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitRank(x) - unitRank(y);
  }
  return a.length - b.length;
}

// A surrogate starts a code point above U+FFFF, so it sorts after every other code unit.
function unitRank(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? unit + 0x10000 : unit;
}

/**
 * The smallest key greater than every key that starts with `prefix` (an exclusive upper bound for
 * an index range scan); undefined when there is none (the empty prefix).
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = (points.pop() ?? '').codePointAt(0) ?? 0;
    if (last < 0x10ffff) {
      const next = last === 0xd7ff ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** Throws RangeError unless `key` is a non-empty string of whole characters (no lone surrogate). */
export function assertValidKey(key: string): void {
  if (key === '' || /\p{Cs}/u.test(key)) {
    throw new RangeError(`store key must be a non-empty well-formed string, got ${JSON.stringify(key)}`);
  }
}
