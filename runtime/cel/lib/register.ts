/** Small helpers shared by the function libraries. */
import { type Environment, EvaluationError } from '@marcbachmann/cel-js';

/**
 * The library already defines some functions (indexOf, substring, matches, ...) with JavaScript
 * rather than cel-go semantics, and it does not allow replacing an overload. Compilation renames
 * calls of these names to `svc__<name>` before type checking (see program.ts), and our libraries
 * register their overloads under the renamed name.
 */
export const INTERNAL_PREFIX = 'svc__';

export const OVERRIDDEN_FUNCTIONS: ReadonlySet<string> = new Set([
  'indexOf',
  'lastIndexOf',
  'substring',
  'lowerAscii',
  'upperAscii',
  'trim',
  'split',
  'join',
  'matches',
  'int',
  'uint',
  'string',
  'timestamp',
  'duration',
  'getFullYear',
  'getMonth',
  'getDate',
  'getDayOfMonth',
  'getDayOfWeek',
  'getDayOfYear',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
]);

/** The registered name of a function an expression calls as `name`. */
export function internalName(name: string): string {
  return OVERRIDDEN_FUNCTIONS.has(name) ? `${INTERNAL_PREFIX}${name}` : name;
}

/** Registers a synchronous overload: `string.charAt(int): string`. */
export function defineFunction(env: Environment, signature: string, handler: (...args: never[]) => unknown): void {
  env.registerFunction(signature, handler as (...args: unknown[]) => unknown, { async: false });
}

/** Stops evaluation with a runtime error (the library attaches the expression position). */
export function fail(message: string): never {
  throw new EvaluationError(message);
}

/** A CEL int argument as a JavaScript number, failing when it is out of the safe range. */
export function toIndex(n: bigint): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) fail(`index out of range: ${n}`);
  return Number(n);
}
