import { describe, expect, it } from 'vitest';
import {
  UnsafeIntegerError,
  checkSafeIntegers,
  findDuplicateKeys,
  isUnsafeIntegerError,
  readJson,
  readJsonWithDuplicates,
} from './index.js';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('readJson', () => {
  it('reads what the platform parser reads', () => {
    const text = ' {"a": [1, -2.5e3, "x\\u0041\\"", true, false, null, {}], "b": {"c": []}} ';
    expect(readJson(text, false)).toEqual(JSON.parse(text));
  });

  it('keeps the last value of a key given twice, without merging unless asked', () => {
    const text = '{"spec":{"a":1,"b":2},"spec":{"b":3}}';
    expect(readJson(text, false)).toEqual({ spec: { b: 3 } });
    expect(readJson(text, true)).toEqual({ spec: { a: 1, b: 3 } });
  });

  it('merges nested objects given twice, and replaces a value that is not an object', () => {
    expect(readJson('{"m":{"x":{"p":1},"y":1},"m":{"x":{"q":2},"y":{"z":1}}}', true)).toEqual({
      m: { x: { p: 1, q: 2 }, y: { z: 1 } },
    });
  });

  it('keeps __proto__ as a plain key', () => {
    const value = readJson('{"__proto__":{"polluted":true}}', false) as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses an integer beyond 2^53 at its path, and accepts one with a fraction or exponent', () => {
    const e = thrown(() => readJson('{"spec":{"items":[1,{"n":9007199254740993}]}}', false));
    expect(isUnsafeIntegerError(e)).toBe(true);
    expect(e).toMatchObject({ path: 'spec.items[1].n', literal: '9007199254740993' });
    expect(thrown(() => readJson('9007199254740993', false))).toMatchObject({ path: '', literal: '9007199254740993' });
    expect(readJson('{"a":9007199254740993.0,"b":9e15,"c":9007199254740991}', false)).toEqual({
      a: 9007199254740992,
      b: 9e15,
      c: 9007199254740991,
    });
  });

  it('throws the platform parser message for text that is not JSON', () => {
    for (const text of ['{"a":}', '{"a":1,}', '[1 2]', '"\\x"', '{"a":1} x', '']) {
      let expected = '';
      try {
        JSON.parse(text);
      } catch (e) {
        expected = (e as Error).message;
      }
      const e = thrown(() => readJson(text, false));
      expect(e).toBeInstanceOf(SyntaxError);
      expect((e as Error).message).toBe(expected);
    }
  });
});

describe('readJsonWithDuplicates', () => {
  const texts = [
    ' {"a": [1, -2.5e3, "x\\u0041\\"", true, false, null, {}], "b": {"c": []}} ',
    '{"spec":{"a":1,"b":2},"spec":{"b":3}}',
    '{"m":{"x":{"p":1},"y":1},"m":{"x":{"q":2},"y":{"z":1}}}',
    '{"__proto__": {"polluted": true}, "n": -0}',
    '{"id": "1234567890123456789", "n": 12345678901234567.5}',
  ];

  it('reads what readJson reads, merged or not, with the duplicate keys findDuplicateKeys names', () => {
    for (const text of texts) {
      for (const merge of [false, true]) {
        const read = readJsonWithDuplicates(text, merge);
        expect(read.value).toEqual(readJson(text, merge));
        expect(Object.keys(read.value as object)).toEqual(Object.keys(readJson(text, merge) as object));
        expect(read.duplicates).toEqual(findDuplicateKeys(text));
      }
    }
    expect(readJsonWithDuplicates(texts[1]!, true)).toEqual({ value: { spec: { a: 1, b: 3 } }, duplicates: ['spec'] });
  });

  it('throws what readJson throws: an unsafe integer at its path, the platform message for text that is not JSON', () => {
    const unsafe = thrown(() => readJsonWithDuplicates('{"a":{"b":[9007199254740993]}}', false));
    expect(isUnsafeIntegerError(unsafe) && unsafe.path).toBe('a.b[0]');
    const first = thrown(() => readJsonWithDuplicates('{"a": 99999999999999999999, "b": }', false));
    expect(first).toEqual(thrown(() => readJson('{"a": 99999999999999999999, "b": }', false)));
    expect(thrown(() => readJsonWithDuplicates('{"a": tru}', false))).toBeInstanceOf(SyntaxError);
  });

  it('reads text nested too deep for the duplicate scanner, finding no duplicates (the caller refuses its depth)', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(readJsonWithDuplicates(deep, false).duplicates).toEqual([]);
  });
});

describe('checkSafeIntegers', () => {
  it('passes safe integers and floats, and names the path of the first unsafe integer', () => {
    expect(() => checkSafeIntegers({ a: [1, 2.5, 2 ** 53 - 1], b: 'x', c: null })).not.toThrow();
    const e = thrown(() => checkSafeIntegers({ a: [{ b: 2 ** 60 }] }));
    expect(e).toBeInstanceOf(UnsafeIntegerError);
    expect(e).toMatchObject({ path: 'a[0].b', literal: '1152921504606846976' });
    expect(thrown(() => checkSafeIntegers(2 ** 54))).toMatchObject({ path: '', literal: '18014398509481984' });
  });
});
