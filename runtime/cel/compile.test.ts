import { Environment } from '@marcbachmann/cel-js';
import { describe, expect, it, vi } from 'vitest';
import type { SchemaNode } from '../schema/index.js';
import { compileExpression, compileRule } from './compile.js';
import { type CelCompileError, isCelCompileError, isCelEvaluationError } from './errors.js';

const spec: SchemaNode = {
  type: 'object',
  fields: [
    { name: 'replicas', schema: { type: 'integer' } },
    { name: 'name', schema: { type: 'string', maxLength: 63 } },
  ],
};

function compileErrorOf(fn: () => unknown): CelCompileError {
  try {
    fn();
  } catch (e) {
    if (isCelCompileError(e)) return e;
    throw e;
  }
  throw new Error('expected a CelCompileError');
}

describe('compileRule', () => {
  it('reports a syntax error with the rule text and its position', () => {
    const e = compileErrorOf(() => compileRule('self.replicas >', { self: spec }));
    expect(e.name).toBe('CelCompileError');
    expect(e.rule).toBe('self.replicas >');
    expect(e.position).toEqual({ offset: 15, line: 1, column: 16 });
    expect(e.message).toContain('self.replicas >');
  });

  it('reports a type error with its position', () => {
    const e = compileErrorOf(() => compileRule('self.replicas > 0 &&\n  self.name > 1', { self: spec }));
    expect(e.summary).toMatch(/no such overload: string > int/);
    expect(e.position?.line).toBe(2);
  });

  it('type-checks the selection inside has()', () => {
    expect(compileRule('has(self.name)', { self: spec }).evaluate({ self: { name: 'x' } })).toBe(true);
    const e = compileErrorOf(() => compileRule('has(self.nmae)', { self: spec }));
    expect(e.summary).toMatch(/No such key: nmae/);
    expect(e.position?.column).toBe(10);
  });

  it('requires a bool result with a clear error', () => {
    const e = compileErrorOf(() => compileRule('self.replicas + 1', { self: spec }));
    expect(e.summary).toBe('the expression must evaluate to bool, but it evaluates to int');
  });

  it('requires messageExpression to give a string', () => {
    expect(() => compileRule({ rule: 'true', messageExpression: 'self.replicas' }, { self: spec })).toThrow(/must evaluate to string/);
  });

  it('evaluates many times without parsing again', () => {
    const rule = compileRule('self.replicas >= 0 && self.name.startsWith("w")', { self: spec });
    const parse = vi.spyOn(Environment.prototype, 'parse');
    const check = vi.spyOn(Environment.prototype, 'check');
    for (let i = 0; i < 100; i++) expect(rule.evaluate({ self: { replicas: i, name: 'web' } })).toBe(true);
    expect(rule.evaluate({ self: { replicas: -1, name: 'web' } })).toBe(false);
    expect(parse).not.toHaveBeenCalled();
    expect(check).not.toHaveBeenCalled();
    parse.mockRestore();
    check.mockRestore();
  });

  it('evaluation errors name the rule and the position', () => {
    const rule = compileRule('self.replicas > 0', { self: spec });
    let error: unknown;
    try {
      rule.evaluate({ self: {} });
    } catch (e) {
      error = e;
    }
    expect(isCelEvaluationError(error)).toBe(true);
    expect((error as Error).message).toMatch(/No such key: replicas/);
  });

  it('transition rules: oldSelf, skipped without an old value unless optionalOldSelf', () => {
    const rule = compileRule('self.replicas >= oldSelf.replicas', { self: spec, oldSelf: true });
    expect(rule.isTransition).toBe(true);
    expect(rule.evaluate({ self: { replicas: 1 }, oldSelf: { replicas: 2 } })).toBe(false);
    expect(rule.evaluate({ self: { replicas: 1 } })).toBe(true);
    const optional = compileRule(
      { rule: 'oldSelf.hasValue() ? self.replicas >= oldSelf.value().replicas : self.replicas == 0', optionalOldSelf: true },
      { self: spec, oldSelf: true },
    );
    expect(optional.evaluate({ self: { replicas: 1 } })).toBe(false);
    expect(optional.evaluate({ self: { replicas: 0 } })).toBe(true);
    expect(optional.evaluate({ self: { replicas: 3 }, oldSelf: { replicas: 2 } })).toBe(true);
    expect(() => compileRule('self == oldSelf', { self: spec })).toThrow(/Unknown variable: oldSelf/);
  });

  it('messages: messageExpression, else message, else "failed rule"', () => {
    const withExpr = compileRule(
      { rule: 'false', messageExpression: "'replicas is ' + string(self.replicas)", message: 'm' },
      { self: spec },
    );
    expect(withExpr.message({ self: { replicas: 3 } })).toBe('replicas is 3');
    expect(withExpr.message({ self: {} })).toBe('m');
    expect(compileRule({ rule: 'false', message: 'static' }, { self: spec }).message({ self: {} })).toBe('static');
    expect(compileRule('false', { self: spec }).message({ self: {} })).toBe('failed rule: false');
  });

  it('extra variables, typed by schema or by CEL type name', () => {
    const rule = compileRule('self.replicas <= params.max && claims.sub == "me"', {
      self: spec,
      variables: { params: { type: 'object', fields: [{ name: 'max', schema: { type: 'integer' } }] }, claims: 'map<string, dyn>' },
    });
    expect(rule.evaluate({ self: { replicas: 2 }, params: { max: 3 }, claims: { sub: 'me' } })).toBe(true);
  });
});

describe('compileExpression', () => {
  it('compiles any-typed expressions over declared variables', () => {
    const p = compileExpression("claims.email + ':' + string(size(claims.groups))", { variables: { claims: 'dyn' } });
    expect(p.type).toBe('string');
    expect(p.evaluate({ claims: { email: 'a@b', groups: ['x', 'y'] } })).toBe('a@b:2');
  });

  it('checks an expected result type', () => {
    expect(() => compileExpression('1', { resultType: 'bool' })).toThrow(/must evaluate to bool/);
  });
});

describe('has() on a selection that does not start at a variable', () => {
  const routes: SchemaNode = {
    type: 'list',
    maxItems: 16,
    items: {
      type: 'object',
      fields: [
        { name: 'matches', schema: { type: 'list', maxItems: 8, items: { type: 'string', maxLength: 64 } } },
        { name: 'name', schema: { type: 'string', maxLength: 63 } },
      ],
    },
  };

  it('compiles and evaluates has(self[0].matches), as real CRDs use it', () => {
    const rule = compileRule({ rule: 'size(self) == 0 || !has(self[0].matches) || size(self[0].matches) > 0' }, { self: routes });
    expect(rule.evaluate({ self: [{ name: 'a' }] })).toBe(true);
    expect(rule.evaluate({ self: [{ name: 'a', matches: [] }] })).toBe(false);
    const nested = compileRule({ rule: 'self.all(r, has(r.name)) && has(self[0].name)' }, { self: routes });
    expect(nested.evaluate({ self: [{ name: 'a' }] })).toBe(true);
    expect(nested.evaluate({ self: [{ matches: ['x'] }] })).toBe(false);
  });

  it('still rejects a field the type does not have', () => {
    const e = compileErrorOf(() => compileRule({ rule: 'has(self[0].nmae)' }, { self: routes }));
    expect(e.rule).toBe('has(self[0].nmae)');
    expect(e.summary).toMatch(/nmae/);
  });
});

describe('literal values as cel-go has them', () => {
  it('finds a number in a list across int, uint and double', () => {
    expect(compileExpression('dyn(3u) in [5, 4, 3] && dyn(3.0) in [3u] && !(dyn(2u) in [5, 4])').evaluate({})).toBe(true);
  });

  it('refuses a map literal with a repeated or null key', () => {
    expect(compileErrorOf(() => compileExpression("{'a': 1, 'b': 2, 'a': 3}")).summary).toBe('repeated key in a map literal');
    expect(compileErrorOf(() => compileExpression('{null: false}')).summary).toBe('unsupported key type null in a map literal');
    const keys = compileExpression('{a: 1, b: 2}.size()', { variables: { a: 'string', b: 'string' } });
    expect(keys.evaluate({ a: 'x', b: 'y' })).toBe(2n);
    expect(() => keys.evaluate({ a: 'x', b: 'x' })).toThrow(/repeated key in a map literal/);
  });
});
