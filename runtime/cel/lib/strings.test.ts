import { describe, expect, it } from 'vitest';
import { isCelEvaluationError } from '../errors.js';
import { evaluate } from '../evaluate.testing.js';

const fails = (expr: string, message: RegExp): void => {
  let error: unknown;
  try {
    evaluate(expr);
  } catch (e) {
    error = e;
  }
  expect(isCelEvaluationError(error), `${expr} should fail`).toBe(true);
  expect((error as Error).message).toMatch(message);
};

describe('strings extension (cel-go semantics, code-point indexing)', () => {
  it('charAt', () => {
    expect(evaluate("'tacocat'.charAt(3)")).toBe('o');
    expect(evaluate("'©αT'.charAt(1)")).toBe('α');
    expect(evaluate("'abc'.charAt(3)")).toBe('');
    fails("'abc'.charAt(4)", /index out of range: 4/);
  });

  it('indexOf and lastIndexOf count code points', () => {
    expect(evaluate("'a©b©'.indexOf('b')")).toBe(2n);
    expect(evaluate("'😀x😀x'.indexOf('x', 2)")).toBe(3n);
    expect(evaluate("'tacocat'.indexOf('none')")).toBe(-1n);
    expect(evaluate("'a©b©'.lastIndexOf('©')")).toBe(3n);
    expect(evaluate("'tacocat'.lastIndexOf('a', 3)")).toBe(1n);
    expect(evaluate("'abc'.lastIndexOf('')")).toBe(3n);
    fails("'abc'.indexOf('a', 5)", /index out of range: 5/);
    fails("'abc'.lastIndexOf('a', -1)", /index out of range: -1/);
  });

  it('lowerAscii and upperAscii change ASCII letters only', () => {
    expect(evaluate("'TacoCÆt'.lowerAscii()")).toBe('tacocÆt');
    expect(evaluate("'tacoçat'.upperAscii()")).toBe('TACOçAT');
    expect(evaluate("'ÀB'.lowerAscii() == 'àb'")).toBe(false);
  });

  it('replace, with an optional count', () => {
    expect(evaluate("'{0} days {0} hours'.replace('{0}', '2')")).toBe('2 days 2 hours');
    expect(evaluate("'{0} days {0} hours'.replace('{0}', '2', 1)")).toBe('2 days {0} hours');
    expect(evaluate("'ab'.replace('', '-')")).toBe('-a-b-');
    expect(evaluate("'abc'.replace('x', 'y') == 'abc'")).toBe(true);
    expect(() => evaluate("'abc'.replace(1, 'y')")).toThrow(/no matching overload/);
  });

  it('split, with an optional limit', () => {
    expect(evaluate("'a,b,c'.split(',')")).toEqual(['a', 'b', 'c']);
    expect(evaluate("'a,b,c'.split(',', 2)")).toEqual(['a', 'b,c']);
    expect(evaluate("'a,b'.split(',', 0)")).toEqual([]);
    expect(evaluate("'a©'.split('')")).toEqual(['a', '©']);
    expect(() => evaluate("'a'.split(1)")).toThrow(/no matching overload/);
  });

  it('join', () => {
    expect(evaluate("['x', 'y'].join()")).toBe('xy');
    expect(evaluate("['x', 'y'].join('-')")).toBe('x-y');
    expect(() => evaluate("[1, 2].join('-')")).toThrow(/no matching overload/);
  });

  it('substring counts code points and checks its range', () => {
    expect(evaluate("'tacocat'.substring(4)")).toBe('cat');
    expect(evaluate("'a©b'.substring(1, 2)")).toBe('©');
    fails("'abc'.substring(2, 1)", /invalid substring range. start: 2, end: 1/);
    fails("'abc'.substring(4)", /index out of range: 4/);
  });

  it('trim removes Unicode white space as Go does', () => {
    expect(evaluate("' \\f\\n\\r\\t\\vtext  '.trim()")).toBe('text');
    expect(evaluate("'\\u0085\\u00a0\\u1680text\\u3000'.trim()")).toBe('text');
    expect(evaluate("'\\ufefftext'.trim()")).toBe('\ufefftext');
  });
});
