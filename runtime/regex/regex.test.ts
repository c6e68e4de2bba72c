/**
 * RE2's syntax, as Kubernetes reads `pattern` and CEL's regex functions: the table of
 * re2-syntax-cases.testing.ts (from Go's regexp/syntax parse_test.go and re2's parse_test.cc), then
 * Go's find semantics.
 */
import { describe, expect, it } from 'vitest';
import { RegexSyntaxError, compileRegex, lazyRegex, regexError } from './index.js';
import { INVALID, VALID } from './re2-syntax-cases.testing.js';

/** A test name for a pattern: the long ones of the size limits cut short. */
const label = (pattern: string): string => (pattern.length > 40 ? `${pattern.slice(0, 37)}... (${pattern.length} chars)` : pattern);

describe('RE2 patterns (Go regexp/syntax parse tests)', () => {
  it.each(VALID.map(([p, yes, no]) => [label(p), p, yes, no] as const))('%s compiles and matches as RE2 does', (_, pattern, yes, no) => {
    const re = compileRegex(pattern);
    for (const s of yes) expect(re.test(s), JSON.stringify(s)).toBe(true);
    for (const s of no) expect(re.test(s), JSON.stringify(s)).toBe(false);
  });

  it.each(INVALID.map(([p, reason]) => [label(p), p, reason] as const))('%s is refused with Go regexp error', (_, pattern, reason) => {
    expect(regexError(pattern)).toBe(`error parsing regexp: ${reason}`);
    expect(() => compileRegex(pattern)).toThrow(RegexSyntaxError);
  });
});

describe('find and findAll (Go FindString, FindAllString)', () => {
  it('finds the leftmost match, greedy unless (?U) or a lazy operator', () => {
    expect(compileRegex('a+').find('baaab')).toBe('aaa');
    expect(compileRegex('(?U)a+').find('baaab')).toBe('a');
    expect(compileRegex('(?U)a+?').find('baaab')).toBe('aaa');
    expect(compileRegex('x').find('abc')).toBe('');
  });

  it('leftmost-first alternation, as Perl and Go (not POSIX leftmost-longest)', () => {
    expect(compileRegex('a|ab').find('ab')).toBe('a');
  });

  it('skips an empty match right after a match and honours the limit', () => {
    expect(compileRegex('a*').findAll('baaab', -1)).toEqual(['', 'aaa', '']);
    expect(compileRegex('[0-9]+').findAll('1 22 333', 2)).toEqual(['1', '22']);
    expect(compileRegex('x').findAll('abc', -1)).toEqual([]);
  });

  it('matches a catastrophic-backtracking pattern in linear time: the answer, not a stall', () => {
    expect(compileRegex('^(a+)+$').test(`${'a'.repeat(5000)}b`)).toBe(false);
    expect(compileRegex('^(a|aa)+$').test('a'.repeat(5000))).toBe(true);
  });
});

describe('lazyRegex (what generated validators declare)', () => {
  it('compiles on first use and answers as compileRegex does', () => {
    const month = lazyRegex('^((?i)jan|feb)$');
    expect([month.test('JAN'), month.test('mar'), month.find('Feb'), month.findAll('jan', -1)]).toEqual([true, false, 'Feb', ['jan']]);
  });

  it('defers a refusal to the first use', () => {
    const bad = lazyRegex('a(?=b)');
    expect(() => bad.test('ab')).toThrow('error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
  });
});
