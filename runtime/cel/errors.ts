/**
 * Errors of the expression environment. Each has a `name`, says which rule it concerns and where,
 * and has a type guard, so callers (the validator, the server) can turn it into a field error.
 */

/** A position in a rule's text: 0-based offset, 1-based line and column. */
export interface RulePosition {
  offset: number;
  line: number;
  column: number;
}

export function positionOf(text: string, offset: number): RulePosition {
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return { offset, line, column };
}

/** A rule that does not parse, does not type-check, has the wrong result type or is too expensive. */
export class CelCompileError extends Error {
  override readonly name = 'CelCompileError';
  constructor(
    /** The rule's text. */
    readonly rule: string,
    /** What is wrong, without the rule text. */
    readonly summary: string,
    /** Where in the rule, when known. */
    readonly position?: RulePosition,
    /** For a rule rejected for its estimated cost: the estimate and the limit it exceeds. */
    readonly cost?: { estimated: number; limit: number },
    /** Where cel-go would fail it: type-checking (`compilation failed`) or planning the program (`program instantiation failed`). */
    readonly stage: 'compile' | 'program' = 'compile',
  ) {
    const where = position ? ` at line ${position.line}, column ${position.column}` : '';
    super(`compiling rule ${JSON.stringify(rule)}: ${summary}${where}`);
  }
}

export function isCelCompileError(e: unknown): e is CelCompileError {
  return e instanceof CelCompileError;
}

/** Which budget ran out: the one per expression evaluation, or the one shared by all rules of an object. */
export type CostScope = 'expression' | 'object';

/** Evaluation stopped because the rule spent more than its cost budget. */
export class CelCostExceededError extends Error {
  override readonly name = 'CelCostExceededError';
  constructor(
    readonly rule: string,
    readonly scope: CostScope,
    readonly limit: number,
  ) {
    const what = scope === 'expression' ? 'per-expression cost limit' : 'cost budget of the object';
    super(`rule ${JSON.stringify(rule)} exceeded the ${what} (${limit}); evaluation stopped`);
  }
}

export function isCelCostExceededError(e: unknown): e is CelCostExceededError {
  return e instanceof CelCostExceededError;
}

/** A runtime error of a rule: no such key, overflow, division by zero, a bad argument to a function. */
export class CelEvaluationError extends Error {
  override readonly name = 'CelEvaluationError';
  constructor(
    readonly rule: string,
    readonly summary: string,
    readonly position?: RulePosition,
  ) {
    const where = position ? ` at line ${position.line}, column ${position.column}` : '';
    super(`evaluating rule ${JSON.stringify(rule)}: ${summary}${where}`);
  }
}

export function isCelEvaluationError(e: unknown): e is CelEvaluationError {
  return e instanceof CelEvaluationError;
}
