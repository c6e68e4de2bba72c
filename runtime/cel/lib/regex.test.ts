import { describe, expect, it } from 'vitest';
import { compileExpression } from '../compile.js';
import { isCelCompileError } from '../errors.js';
import { evaluate } from '../evaluate.testing.js';
import { compileRe2 } from './re2.js';

describe('regex library', () => {
  it('matches (RE2 syntax, unanchored)', () => {
    expect(evaluate("'hello'.matches('^h.*o$')")).toBe(true);
    expect(evaluate("'hello'.matches('^x')")).toBe(false);
    expect(evaluate("matches('abc', 'b')")).toBe(true);
  });

  it('find returns the first match or an empty string', () => {
    expect(evaluate("'abc 123'.find('[0-9]+')")).toBe('123');
    expect(evaluate("'abc'.find('[0-9]+')")).toBe('');
  });

  it('findAll returns every match, up to an optional limit', () => {
    expect(evaluate("'123 abc 456'.findAll('[0-9]+')")).toEqual(['123', '456']);
    expect(evaluate("'123 abc 456'.findAll('[0-9]+', 1)")).toEqual(['123']);
    expect(evaluate("'123'.findAll('[0-9]+', 0)")).toEqual([]);
    expect(evaluate("'abc'.findAll('x')")).toEqual([]);
  });

  it('rejects lookaround and backreferences at compile time with a clear error', () => {
    for (const [pattern, reason] of [
      ['(?<=a)b', /lookahead and lookbehind/],
      ['a(?=b)', /lookahead and lookbehind/],
      ['(a)\\\\1', /backreferences are not supported/],
      ['a{1001}', /repeat count/],
      ['(?i:a)', /only at the start/],
    ] as const) {
      let error: unknown;
      try {
        compileExpression(`'ab'.matches('${pattern}')`);
      } catch (e) {
        error = e;
      }
      expect(isCelCompileError(error), pattern).toBe(true);
      expect((error as Error).message).toMatch(reason);
    }
  });

  it('fails at run time for an invalid pattern that is not a literal', () => {
    expect(() => evaluate("'ab'.find(p)", { p: '(?<=a)b' })).toThrow(/lookahead and lookbehind/);
  });

  it('reads RE2 syntax: leading flags, \\z, \\pL, POSIX classes, RE2 white space and dot', () => {
    expect(compileRe2('(?i)abc').test('ABC')).toBe(true);
    expect(compileRe2('a\\z').test('a\n')).toBe(false);
    expect(compileRe2('^\\pL+$').test('héllo')).toBe(true);
    expect(compileRe2('^[[:alpha:]]+$').test('abc')).toBe(true);
    expect(compileRe2('^[[:alpha:]]+$').test('ab1')).toBe(false);
    expect(compileRe2('^\\s$').test('\u00a0')).toBe(false);
    expect(compileRe2('^.$').test('\r')).toBe(true);
    expect(compileRe2('^.$').test('\n')).toBe(false);
    expect(compileRe2('(?s)^.$').test('\n')).toBe(true);
    expect(compileRe2('^(?P<name>a)$').exec('a')?.groups?.name).toBe('a');
    expect(compileRe2('^\\Q.*\\E$').test('.*')).toBe(true);
    expect(compileRe2('^a{2}$').test('aa')).toBe(true);
    expect(compileRe2('^\\-\\#$').test('-#')).toBe(true);
  });
});
