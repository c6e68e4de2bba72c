/**
 * Cost accounting. Every evaluation runs under a meter; instrumented expression nodes and library
 * functions call `spend` as they work, and the meter stops the evaluation as soon as it runs over.
 * Evaluation is synchronous, so one module-level slot holds the meter in use.
 */

/** Budgets, with the real system's defaults. */
export interface CostLimits {
  /** Runtime cost one evaluation of one expression may spend (PerCallLimit). */
  perExpression: number;
  /** Runtime cost all rules of one object may spend together (RuntimeCELCostBudget). */
  perObject: number;
  /**
   * Largest worst-case estimate an expression may have to compile. None by default: upstream
   * limits estimates only where a CRD is written, times how often a rule can run
   * (reference/custom-resources/rule-errors.ts); it never refuses to evaluate a rule for its estimate.
   */
  estimated: number;
}

export const DEFAULT_COST_LIMITS: Readonly<CostLimits> = Object.freeze({
  perExpression: 1_000_000,
  perObject: 10_000_000,
  estimated: Number.POSITIVE_INFINITY,
});

/**
 * Cost of one node or call, and the factors for work proportional to size: cel-go v0.17.8's
 * common/cost.go and interpreter/runtimecost.go, with Kubernetes 1.30's library costs
 * (k8s.io/apiserver pkg/cel/library/cost.go CallCost).
 */
export const COST = Object.freeze({
  /** An identifier, a field selection, a call without a cost of its own. */
  operation: 1,
  /** Creating a list literal. */
  listLiteral: 10,
  /** Creating a map literal. */
  mapLiteral: 30,
  /** Per character traversed by a string function. */
  stringTraversal: 0.1,
  /** Per pattern character of a regular expression (a guess of 4 characters per expression). */
  regexPatternLength: 0.25,
  /** One authorization check: at most two fit in one expression's budget. */
  authorizationCheck: 350_000,
});

/** Cost of a size-proportional operation over `n` characters, rounded up. */
export function traversalCost(n: number, factor: number = COST.stringTraversal): number {
  return Math.ceil(n * factor);
}

/** Cost of a regular expression over an input: (input + 1) x 0.1 times pattern x 0.25, each rounded up. */
export function regexCost(patternLength: number, inputLength: number): number {
  return traversalCost(1 + inputLength) * traversalCost(patternLength, COST.regexPatternLength);
}

/**
 * The library's traversalCost of a value, for the list functions (sum, min, max, isSorted,
 * indexOf, lastIndexOf): strings and bytes a tenth of their length rounded down, lists and maps
 * the sum over their parts, anything else 1.
 */
export function valueTraversalCost(v: unknown): number {
  if (typeof v === 'string' || v instanceof Uint8Array) return Math.floor(v.length * COST.stringTraversal);
  if (Array.isArray(v)) return v.reduce<number>((sum, x) => sum + valueTraversalCost(x), 0);
  if (v instanceof Map) {
    let sum = 0;
    for (const [k, x] of v) sum += valueTraversalCost(k) + valueTraversalCost(x);
    return sum;
  }
  return 1;
}

/** Counts what one evaluation spends; calls `exceeded` once it spends more than `limit`. */
export class CostMeter {
  spent = 0;
  constructor(
    readonly limit: number,
    private readonly exceeded: (meter: CostMeter) => never,
  ) {}

  spend(n: number): void {
    this.spent += n;
    if (this.spent > this.limit) this.exceeded(this);
  }

  /** Throws when over the limit; for callers that may have swallowed the first throw (error-absorbing `||`). */
  check(): void {
    if (this.spent > this.limit) this.exceeded(this);
  }
}

let active: CostMeter | undefined;

/** Charges the meter of the evaluation in progress, if any. */
export function spend(n: number): void {
  active?.spend(n);
}

/** Runs `fn` with `meter` charged by every `spend`. */
export function withMeter<T>(meter: CostMeter, fn: () => T): T {
  const previous = active;
  active = meter;
  try {
    const result = fn();
    meter.check();
    return result;
  } finally {
    active = previous;
  }
}
