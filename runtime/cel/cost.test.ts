import { describe, expect, it } from 'vitest';
import type { SchemaNode } from '../schema/index.js';
import { CostBudget } from './budget.js';
import { compileExpression, compileRule } from './compile.js';
import { COST, DEFAULT_COST_LIMITS } from './cost.js';
import { CelCostExceededError, isCelCompileError, isCelCostExceededError } from './errors.js';

/** Runtime cost of one evaluation of `expr`. */
function costOf(expr: string, inputs: Record<string, unknown> = {}): number {
  const variables = Object.fromEntries(Object.keys(inputs).map((k) => [k, 'dyn']));
  const budget = new CostBudget();
  compileExpression(expr, { variables, costLimits: { estimated: Infinity } }).evaluate(inputs, { budget });
  return DEFAULT_COST_LIMITS.perObject - budget.remaining;
}

const numbers: SchemaNode = { type: 'list', items: { type: 'integer' } };
const names: SchemaNode = { type: 'list', items: { type: 'string' } };

describe('runtime cost', () => {
  it("defaults to the real system's limits", () => {
    expect(DEFAULT_COST_LIMITS).toEqual({ perExpression: 1_000_000, perObject: 10_000_000, estimated: Number.POSITIVE_INFINITY });
  });

  it("counts as cel-go's runtime: comparisons 1, list literals 10, regex (input + 1) / 10 x pattern / 4", () => {
    expect(costOf('1 < 2')).toBe(1);
    expect(costOf('[1, 2, 3].size()')).toBe(COST.listLiteral + 1);
    expect(costOf(`'${'a'.repeat(100)}'.matches('^a+b*$')`)).toBe(11 * 2);
  });

  it('charges every element a macro visits: all() its condition, accumulator and predicate', () => {
    const small = costOf('l.all(x, x > 0)', { l: [1, 2] });
    const large = costOf('l.all(x, x > 0)', { l: Array.from({ length: 102 }, (_, i) => i + 1) });
    expect(large - small).toBe(100 * (3 + 2));
  });

  it('stops an expression over its per-expression limit with an error naming the rule', () => {
    const rule = compileRule('self.all(x, self.all(y, x != y || x == y))', {
      self: numbers,
      costLimits: { perExpression: 10_000, estimated: Infinity },
    });
    let error: unknown;
    try {
      rule.evaluate({ self: Array.from({ length: 200 }, (_, i) => i) });
    } catch (e) {
      error = e;
    }
    expect(isCelCostExceededError(error)).toBe(true);
    const e = error as CelCostExceededError;
    expect(e.rule).toBe('self.all(x, self.all(y, x != y || x == y))');
    expect(e.scope).toBe('expression');
    expect(e.message).toMatch(/per-expression cost limit \(10000\)/);
  });

  it('errors absorbed by || do not hide an exceeded budget', () => {
    const rule = compileRule('self.exists(x, self.exists(y, x < 0)) || true', {
      self: numbers,
      costLimits: { perExpression: 500, estimated: Infinity },
    });
    expect(() => rule.evaluate({ self: Array.from({ length: 100 }, (_, i) => i) })).toThrow(CelCostExceededError);
  });

  it('shares one budget across the rules of an object', () => {
    const rule = compileRule('self.all(x, x >= 0)', { self: numbers, costLimits: { estimated: Infinity } });
    const budget = new CostBudget({ perExpression: 1_000_000, perObject: 1600 });
    const list = Array.from({ length: 100 }, (_, i) => i);
    expect(rule.evaluate({ self: list }, { budget })).toBe(true);
    expect(rule.evaluate({ self: list }, { budget })).toBe(true);
    expect(rule.evaluate({ self: list }, { budget })).toBe(true);
    expect(() => rule.evaluate({ self: list }, { budget })).toThrow(/cost budget of the object \(1600\)/);
  });
});

describe('estimated cost', () => {
  it('rejects a rule whose worst case over unbounded lists is too expensive, naming the rule and the estimate', () => {
    let error: unknown;
    try {
      compileRule('self.all(x, self.all(y, x != y))', { self: names, costLimits: { estimated: 10_000_000 } });
    } catch (e) {
      error = e;
    }
    expect(isCelCompileError(error)).toBe(true);
    expect((error as Error).message).toMatch(/self\.all\(x, self\.all\(y, x != y\)\)/);
    expect((error as Error).message).toMatch(/estimated worst-case cost \d+ exceeds the limit 10000000/);
  });

  it('accepts the same rule once maxItems bounds the list', () => {
    const bounded: SchemaNode = { type: 'list', maxItems: 100, items: { type: 'string', maxLength: 64 } };
    const rule = compileRule('self.all(x, self.all(y, x != y))', { self: bounded });
    expect(rule.estimatedCost).toBeGreaterThan(10_000);
    expect(rule.estimatedCost).toBeLessThan(1_000_000);
  });

  it('sizes regex cost by maxLength', () => {
    const short = compileRule("self.matches('^[a-z]+$')", { self: { type: 'string', maxLength: 10 } });
    const long = compileRule("self.matches('^[a-z]+$')", { self: { type: 'string', maxLength: 1000 } });
    expect(long.estimatedCost).toBeGreaterThan(50 * short.estimatedCost);
    expect(() => compileRule("self.all(s, s.matches('^[a-z]+$'))", { self: names, costLimits: { estimated: 10_000_000 } })).toThrow(
      /estimated worst-case cost/,
    );
  });

  it('puts authorization checks at a fixed high cost', () => {
    const p = compileExpression("authorizer.path('/x').check('get').allowed()", {
      variables: { authorizer: 'kubernetes.authorization.Authorizer' },
    });
    expect(p.estimatedCost).toBeGreaterThanOrEqual(COST.authorizationCheck);
  });
});
