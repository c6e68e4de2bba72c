import { describe, expect, it } from 'vitest';
import { compileExpression } from './compile.js';
import { isCelCompileError } from './errors.js';
import { evaluate } from './evaluate.testing.js';
import { Optional } from './values.js';

const rejects = (expr: string, message: RegExp): void => {
  let error: unknown;
  try {
    compileExpression(expr);
  } catch (e) {
    error = e;
  }
  expect(isCelCompileError(error), expr).toBe(true);
  expect((error as Error).message).toMatch(message);
};

describe('standard macros', () => {
  it('has', () => {
    expect(evaluate('has(m.a)', { m: { a: 1 } })).toBe(true);
    expect(evaluate('has(m.b)', { m: { a: 1 } })).toBe(false);
  });
  it('all', () => {
    expect(evaluate('[1, 2, 3].all(x, x > 0)')).toBe(true);
    expect(evaluate('[1, -2, 3].all(x, x > 0)')).toBe(false);
  });
  it('exists', () => {
    expect(evaluate('[1, 2, 3].exists(x, x == 2)')).toBe(true);
    expect(evaluate('[1, 2, 3].exists(x, x == 4)')).toBe(false);
  });
  it('exists_one', () => {
    expect(evaluate('[1, 2, 3].exists_one(x, x > 2)')).toBe(true);
    expect(evaluate('[1, 2, 3].exists_one(x, x > 1)')).toBe(false);
  });
  it('map', () => {
    expect(evaluate('[1, 2].map(x, x * 2)')).toEqual([2n, 4n]);
    expect(evaluate('[1, 2, 3].map(x, x > 1, x * 10)')).toEqual([20n, 30n]);
    rejects('[1, 2].map(1, 2)', /invalid predicate iteration variable/);
  });
  it('filter', () => {
    expect(evaluate('[1, 2, 3].filter(x, x != 2)')).toEqual([1n, 3n]);
    expect(evaluate('[1, 2, 3].filter(x, x > 5)')).toEqual([]);
  });
});

describe('optional types', () => {
  it('?. on maps, .?field and [?key], orValue, hasValue, value', () => {
    expect(evaluate('m.?a.orValue(0)', { m: { a: 5 } })).toBe(5n);
    expect(evaluate('m.?b.orValue(0)', { m: { a: 5 } })).toBe(0n);
    expect(evaluate('m[?"b"].hasValue()', { m: { a: 5 } })).toBe(false);
    expect(evaluate('m.?a.value()', { m: { a: 5 } })).toBe(5n);
    expect(() => evaluate('m.?b.value()', { m: {} })).toThrow(/not present/);
  });
  it('optional.of, optional.none, optional.ofNonZeroValue, or', () => {
    expect(evaluate('optional.of(1).hasValue()')).toBe(true);
    expect(evaluate('optional.none().hasValue()')).toBe(false);
    expect(evaluate("optional.ofNonZeroValue('').hasValue()")).toBe(false);
    expect(evaluate('optional.none().or(optional.of(2)).value()')).toBe(2n);
    expect(evaluate('optional.of(1)')).toBeInstanceOf(Optional);
  });
  it('optMap, optFlatMap and equality', () => {
    expect(evaluate('optional.of(41).optMap(x, x + 1).value()')).toBe(42n);
    expect(evaluate('optional.none().optMap(x, x + 1).hasValue()')).toBe(false);
    expect(evaluate('optional.of(2).optFlatMap(x, x > 1 ? optional.of(x) : optional.none()).value()')).toBe(2n);
    expect(evaluate('optional.of(1) == optional.of(1)')).toBe(true);
    expect(evaluate('optional.of(1) == optional.none()')).toBe(false);
  });
});

describe('cross-type numeric comparison', () => {
  it('compares int, uint and double by value', () => {
    expect(evaluate('1 < 2u')).toBe(true);
    expect(evaluate('2.5 > 2')).toBe(true);
    expect(evaluate('3u <= 2.0')).toBe(false);
    expect(evaluate('dyn(1) == 1.0')).toBe(true);
    expect(evaluate('dyn(1u) == 2')).toBe(false);
  });
  it('keeps == between different static types a type error, as cel-go does', () => {
    rejects('1 == 1.0', /no such overload/);
  });
});

describe('environment defaults', () => {
  it('homogeneous aggregate literals', () => {
    rejects("[1, 'a']", /List elements must have the same type/);
    rejects("{'a': 1, 'b': 'x'}", /Map value uses wrong type/);
    expect(evaluate("[dyn(1), dyn('a')].size()")).toBe(2n);
  });
  it('UTC is the default time zone', () => {
    expect(evaluate("timestamp('2024-01-01T23:30:00Z').getHours()")).toBe(23n);
    expect(evaluate("timestamp('2024-01-01T23:30:00Z').getHours('Europe/Berlin')")).toBe(0n);
    expect(evaluate("timestamp('2024-01-01T23:30:00Z').getHours('+02:00')")).toBe(1n);
    expect(evaluate("timestamp('2024-01-01T23:30:00Z').getDayOfMonth()")).toBe(0n);
  });
  it('range-checks integer, timestamp and duration arithmetic', () => {
    expect(() => evaluate('9223372036854775807 + 1')).toThrow(/integer overflow/);
    expect(() => evaluate('-(-9223372036854775808)')).toThrow(/integer overflow/);
    expect(() => evaluate("timestamp('9999-12-31T23:59:59Z') + duration('1s')")).toThrow(/timestamp out of range/);
    expect(evaluate("string(timestamp('2009-02-13T23:31:30.5Z'))")).toBe('2009-02-13T23:31:30.5Z');
    expect(evaluate("string(duration('1h1.5s'))")).toBe('3601.5s');
  });
  it('decodes bytes literals as UTF-8', () => {
    expect(evaluate("b'ÿ' == b'\\303\\277'")).toBe(true);
    expect(evaluate("b'\\xff'.size()")).toBe(1n);
  });
});
