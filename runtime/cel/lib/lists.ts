/**
 * The list library: indexOf, lastIndexOf, min, max, sum (numbers and durations) and isSorted.
 * Every function walks the list once and costs one unit per element visited.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { spend, valueTraversalCost } from '../cost.js';
import { celEquals, Duration, durationFromNanos, durationToNanos, UnsignedInt } from '../values.js';
import { celCompare } from './compare.js';
import { defineFunction, fail } from './register.js';

const INT_MAX = 2n ** 63n - 1n;
const INT_MIN = -(2n ** 63n);

function compareOrFail(a: unknown, b: unknown, fn: string): number {
  const c = celCompare(a, b);
  if (c === undefined) fail(`${fn}: list elements are not comparable`);
  return c;
}

function extreme(list: readonly unknown[], fn: 'min' | 'max'): unknown {
  spend(valueTraversalCost(list));
  if (list.length === 0) fail(`${fn} called on empty list`);
  let best = list[0];
  for (const v of list.slice(1)) {
    const c = compareOrFail(v, best, fn);
    if (fn === 'min' ? c < 0 : c > 0) best = v;
  }
  return best;
}

function isSorted(list: readonly unknown[]): boolean {
  spend(valueTraversalCost(list));
  for (let i = 1; i < list.length; i++) if (compareOrFail(list[i - 1], list[i], 'isSorted') > 0) return false;
  return true;
}

function sumInts(list: readonly unknown[]): bigint {
  let total = 0n;
  for (const v of list) {
    if (typeof v !== 'bigint') fail('sum: list elements must be of one numeric type');
    total += v;
    if (total > INT_MAX || total < INT_MIN) fail('integer overflow');
  }
  return total;
}

/** Sum of ints, uints, doubles or durations; the zero of the element type for an empty list. */
function sum(list: readonly unknown[], empty: unknown): unknown {
  spend(valueTraversalCost(list));
  const first = list[0];
  if (first === undefined) return empty;
  if (typeof first === 'bigint') return sumInts(list);
  if (typeof first === 'number') {
    let total = 0;
    for (const v of list) {
      if (typeof v !== 'number') fail('sum: list elements must be of one numeric type');
      total += v;
    }
    return total;
  }
  if (first instanceof UnsignedInt) {
    let total = 0n;
    for (const v of list) {
      if (!(v instanceof UnsignedInt)) fail('sum: list elements must be of one numeric type');
      total += v.valueOf();
    }
    if (total >= 2n ** 64n) fail('unsigned integer overflow');
    return new UnsignedInt(total);
  }
  if (first instanceof Duration) {
    let total = 0n;
    for (const v of list) {
      if (!(v instanceof Duration)) fail('sum: list elements must be of one type');
      total += durationToNanos(v);
    }
    return durationFromNanos(total);
  }
  return fail('sum: list elements must be numbers or durations');
}

function indexOf(list: readonly unknown[], value: unknown): bigint {
  spend(valueTraversalCost(list));
  const i = list.findIndex((v) => celEquals(v, value));
  return BigInt(i);
}

function lastIndexOf(list: readonly unknown[], value: unknown): bigint {
  spend(valueTraversalCost(list));
  for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i], value)) return BigInt(i);
  return -1n;
}

export function registerLists(env: Environment): void {
  defineFunction(env, 'list<A>.svc__indexOf(A): int', indexOf);
  defineFunction(env, 'list<A>.svc__lastIndexOf(A): int', lastIndexOf);
  defineFunction(env, 'list<A>.min(): A', (l: readonly unknown[]) => extreme(l, 'min'));
  defineFunction(env, 'list<A>.max(): A', (l: readonly unknown[]) => extreme(l, 'max'));
  defineFunction(env, 'list<A>.isSorted(): bool', isSorted);
  defineFunction(env, 'list<int>.sum(): int', (l: readonly unknown[]) => sum(l, 0n));
  defineFunction(env, 'list<uint>.sum(): uint', (l: readonly unknown[]) => sum(l, new UnsignedInt(0n)));
  defineFunction(env, 'list<double>.sum(): double', (l: readonly unknown[]) => sum(l, 0));
  defineFunction(env, 'list<google.protobuf.Duration>.sum(): google.protobuf.Duration', (l: readonly unknown[]) =>
    sum(l, new Duration(0n, 0)),
  );
}
