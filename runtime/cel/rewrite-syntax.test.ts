import { describe, expect, it } from 'vitest';
import type { SchemaNode } from '../schema/index.js';
import { compileExpression, compileRule } from './compile.js';
import { isCelCompileError } from './errors.js';
import { rewriteSyntax } from './rewrite-syntax.js';

const evaluate = (expression: string, variables: Record<string, string> = {}, inputs: Record<string, unknown> = {}) =>
  compileExpression(expression, { variables }).evaluate(inputs);

describe('optional list and map entries', () => {
  it('keeps a list entry only when its optional has a value', () => {
    expect(evaluate('[1, ?optional.of(2), ?optional.none(), 4]')).toEqual([1n, 2n, 4n]);
    expect(evaluate('[?optional.none()].size()')).toBe(0n);
  });

  it('keeps a map entry only when its optional has a value', () => {
    const m = evaluate("{'a': 1, ?'b': optional.none(), ?'c': optional.of(3)}") as Map<string, bigint>;
    expect([...m.entries()]).toEqual([
      ['a', 1n],
      ['c', 3n],
    ]);
    expect(evaluate("has({?'foo': optional.none()}.foo)")).toBe(false);
  });

  it('reads optional entries from inputs, nested and beside conditionals', () => {
    const expr = "[?m.?x, ?m.?y].size() == (has(m.x) ? 1 : 0) + (has(m.y) ? 1 : 0) && {true ? 'k' : 'j': [?m.?x]}.k.size() <= 1";
    expect(evaluate(expr, { m: 'map<string, int>' }, { m: { x: 1 } })).toBe(true);
    expect(evaluate(expr, { m: 'map<string, int>' }, { m: {} })).toBe(true);
  });

  it('reads a literal after the in operator as a literal, not an index', () => {
    expect(evaluate("'b' in [?optional.of('a'), 'b']")).toBe(true);
    expect(evaluate("'c' in [?optional.none(), 'b']")).toBe(false);
  });

  it('types the literal by the optional value type', () => {
    expect(compileExpression('[?optional.of(1)]').type).toBe('list<int>');
    expect(compileExpression("{?'k': optional.of('v')}").type).toBe('map<string, string>');
  });

  it('rejects an entry marked optional whose value is not optional', () => {
    expect(() => compileExpression('[?1]')).toThrow(/no matching overload/);
    try {
      compileExpression("{?'k': 'v'}");
    } catch (e) {
      expect(isCelCompileError(e)).toBe(true);
      expect((e as Error).message).toContain("{?'k': 'v'}");
    }
  });

  it('leaves optional indexing, optional selection, conditionals and strings alone', () => {
    for (const text of ["m[?'k'].orValue(0)", 'a.?b', 'x ? [1] : [2]', "'[?x]' + \"{?'k': v}\"", "r'[?' + b'{?'", '[1, 2]']) {
      expect(rewriteSyntax(text)).toBeUndefined();
    }
    expect(evaluate("{'k': 1}[?'k'].orValue(0) + {'k': 1}[?'z'].orValue(7)")).toBe(8n);
  });

  it('works in a rule on a schema node, with oldSelf', () => {
    const self: SchemaNode = {
      type: 'object',
      fields: [{ name: 'labels', schema: { type: 'map', values: { type: 'string' } } }],
    };
    const rule = compileRule("[?self.labels.?tier, ?oldSelf.labels.?tier].all(t, t != 'frozen')", { self, oldSelf: true });
    expect(rule.isTransition).toBe(true);
    expect(rule.evaluate({ self: { labels: {} }, oldSelf: { labels: { tier: 'web' } } })).toBe(true);
    expect(rule.evaluate({ self: { labels: { tier: 'frozen' } }, oldSelf: { labels: {} } })).toBe(false);
  });
});

describe('literals the library does not lex', () => {
  it('reads raw bytes literals without escapes', () => {
    expect(evaluate("br'\\d' == b'\\\\d'")).toBe(true);
    expect(evaluate("bR'a\\n'.size()")).toBe(3n);
  });

  it('reads a double with a leading dot, not a selection', () => {
    expect(evaluate('.5 + 0.25')).toBe(0.75);
    expect(evaluate('[.5][0]')).toBe(0.5);
    expect(rewriteSyntax('a.b1')).toBeUndefined();
    expect(rewriteSyntax('1.5')).toBeUndefined();
  });
});
