import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  cloneJson,
  exceedsTextNesting,
  getOwn,
  isEmptyObject,
  isJsonObject,
  isObject,
  isPlainObject,
  jsonEqual,
  sameJson,
  setOwn,
  type JsonObject,
} from './index.js';

describe('runtime/json', () => {
  it('tells objects from arrays and null', () => {
    for (const v of [null, [], 'a', 1, true, undefined]) {
      expect(isObject(v)).toBe(false);
      expect(isJsonObject(v)).toBe(false);
    }
    expect(isObject({})).toBe(true);
    expect(isObject(new Date(0))).toBe(true);
    expect(isPlainObject(new Date(0))).toBe(false);
    expect(isPlainObject(Object.create(null))).toBe(true);
  });

  it('tells an empty object by its own keys only', () => {
    expect(isEmptyObject({})).toBe(true);
    expect(isEmptyObject(Object.create(null) as JsonObject)).toBe(true);
    expect(isEmptyObject({ a: null })).toBe(false);
    expect(isEmptyObject(Object.create({ inherited: 1 }) as JsonObject)).toBe(true);
    const proto: JsonObject = {};
    setOwn(proto, '__proto__', 1);
    expect(isEmptyObject(proto)).toBe(false);
  });

  it('compares structurally, ignoring key order but not array order', () => {
    expect(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(jsonEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
  });

  it('gives equal canonical text for equal values whatever their key order', () => {
    expect(canonicalJson({ b: { d: 1, c: 2 }, a: [{ y: 1, x: 2 }] })).toBe('{"a":[{"x":2,"y":1}],"b":{"c":2,"d":1}}');
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });

  it('says two values are the same JSON exactly when their canonical texts are equal', () => {
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(undefined, null, true, false, 0, -0, 1, Number.NaN, Number.POSITIVE_INFINITY, 'a', '1', () => 1),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'b', '__proto__', 'c'), tie('value'), { maxKeys: 3 }),
      ),
    }));
    /** `v` with object keys in reverse order, so only key order differs. */
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : isPlainObject(v)
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    const agree = (a: unknown, b: unknown): boolean => sameJson(a, b) === (canonicalJson(a) === canonicalJson(b));
    fc.assert(fc.property(value, value, agree), { numRuns: 2000 });
    fc.assert(
      fc.property(value, (a) => agree(a, reversed(a))),
      { numRuns: 500 },
    );
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([undefined], [null])).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson({ d: new Date(0) }, { d: '1970-01-01T00:00:00.000Z' })).toBe(true);
  });

  it('keeps __proto__ plain data when copying and setting', () => {
    const source = JSON.parse('{"__proto__":{"polluted":true}}') as JsonObject;
    const copy = cloneJson(source);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(getOwn(copy, '__proto__')).toEqual({ polluted: true });
    const target: JsonObject = {};
    setOwn(target, '__proto__', 1);
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(getOwn(target, 'toString')).toBeUndefined();
  });
});

describe('exceedsTextNesting', () => {
  it('counts brackets outside strings, in JSON and YAML flow text', () => {
    expect(exceedsTextNesting(`${'['.repeat(11)}${']'.repeat(11)}`, 10)).toBe(true);
    expect(exceedsTextNesting(`${'['.repeat(10)}${']'.repeat(10)}`, 10)).toBe(false);
    expect(exceedsTextNesting(`{"a": "${'['.repeat(50)}"}`, 10)).toBe(false);
    expect(exceedsTextNesting(`a: '${'{'.repeat(50)}'`, 10)).toBe(false);
    // An apostrophe inside a plain YAML scalar does not open a string that would hide what follows.
    expect(exceedsTextNesting(`note: it's\ndata: ${'['.repeat(11)}`, 10)).toBe(true);
  });
});
