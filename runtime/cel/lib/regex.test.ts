import { describe, expect, it } from 'vitest';
import { compileExpression } from '../compile.js';
import { isCelCompileError } from '../errors.js';
import { evaluate } from '../evaluate.testing.js';

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

  it('rejects what RE2 refuses at compile time: matches as cel-go words it, find and findAll with Go regexp error', () => {
    for (const [rule, reason] of [
      ["'ab'.matches('(?<=a)b')", 'invalid matches argument'],
      ["'ab'.matches('a(?=b)')", 'invalid matches argument'],
      ["'ab'.find('(a)\\\\1')", 'error parsing regexp: invalid escape sequence: `\\1`'],
      ["'ab'.findAll('a{1001}')", 'error parsing regexp: invalid repeat count: `{1001}`'],
    ] as const) {
      let error: unknown;
      try {
        compileExpression(rule);
      } catch (e) {
        error = e;
      }
      expect(isCelCompileError(error), rule).toBe(true);
      expect((error as { summary: string }).summary).toBe(reason);
    }
  });

  it('fails at run time for an invalid pattern that is not a literal', () => {
    expect(() => evaluate("'ab'.find(p)", { p: '(?=a)b' })).toThrow('error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
  });

  it('reads flags anywhere, as RE2 does (the issue 24 rule and pattern)', () => {
    expect(evaluate(String.raw`'Foo_bar'.matches(r'^(?i)\.?[a-z_]+$')`)).toBe(true);
    expect(evaluate("'JANUARY'.matches('^((?i)january|february)$')")).toBe(true);
    expect(evaluate("'FEBRUARY'.matches('^((?i)january|february)$')")).toBe(true);
    expect(evaluate("'xAbc'.find('a(?i)b')")).toBe('');
    expect(evaluate("'xaBc'.find('a(?i)b')")).toBe('aB');
  });

  it('findAll skips an empty match right after a match, as Go does', () => {
    expect(evaluate("'baaab'.findAll('a*')")).toEqual(['', 'aaa', '']);
  });
});
