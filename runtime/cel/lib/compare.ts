/** Ordering of CEL values, for the list library (min, max, isSorted) and quantities. */
import { Duration, UnsignedInt } from '../values.js';
import { durationToNanos } from '../values.js';

function numberOf(v: unknown): number | bigint | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof UnsignedInt) return v.valueOf();
  return undefined;
}

/** Code-point order, as Go compares UTF-8 strings (JavaScript's `<` compares UTF-16 units). */
function compareStrings(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done === y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const sign = (a: number | bigint, b: number | bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** -1, 0 or 1; undefined when the two values have no order between them. */
export function celCompare(a: unknown, b: unknown): number | undefined {
  const na = numberOf(a);
  const nb = numberOf(b);
  if (na !== undefined && nb !== undefined) {
    if (Number.isNaN(na) || Number.isNaN(nb)) return undefined;
    return sign(na, nb);
  }
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return sign(Number(a), Number(b));
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof Date && b instanceof Date) return sign(a.getTime(), b.getTime());
  if (a instanceof Duration && b instanceof Duration) return sign(durationToNanos(a), durationToNanos(b));
  return undefined;
}
