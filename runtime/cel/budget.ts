/** The cost budget of one object's rules, and the meter each evaluation runs under. */
import { type CostLimits, CostMeter, DEFAULT_COST_LIMITS } from './cost.js';
import { CelCostExceededError } from './errors.js';

/** What is left of an object's total budget; shared by all rule evaluations of one object. */
export class CostBudget {
  remaining: number;
  constructor(readonly limits: Readonly<Pick<CostLimits, 'perExpression' | 'perObject'>> = DEFAULT_COST_LIMITS) {
    this.remaining = limits.perObject;
  }

  get exhausted(): boolean {
    return this.remaining < 0;
  }

  /** Runs one evaluation of `rule` under min(per-expression limit, what is left) and deducts what it spent. */
  run<T>(rule: string, evaluate: (meter: CostMeter) => T): T {
    const perExpression = this.limits.perExpression;
    const limit = Math.min(perExpression, Math.max(0, this.remaining));
    const meter = new CostMeter(limit, (m) => {
      const scope = m.spent > perExpression ? 'expression' : 'object';
      throw new CelCostExceededError(rule, scope, scope === 'expression' ? perExpression : this.limits.perObject);
    });
    try {
      return evaluate(meter);
    } finally {
      this.remaining -= meter.spent;
    }
  }
}
