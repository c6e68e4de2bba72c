/** Helpers for this folder's tests: evaluate an expression with untyped inputs. */
import { compileExpression, type VariableType } from './compile.js';

/** Compiles and evaluates `expr` with `inputs` bound as variables of the given types (dyn by default). */
export function evaluate(expr: string, inputs: Record<string, unknown> = {}, types: Record<string, VariableType> = {}): unknown {
  const variables: Record<string, VariableType> = {};
  for (const name of Object.keys(inputs)) variables[name] = types[name] ?? 'dyn';
  return compileExpression(expr, { variables }).evaluate(inputs);
}
