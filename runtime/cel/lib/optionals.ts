/**
 * The parts of the optional library @marcbachmann/cel-js lacks: `optional.ofNonZeroValue`,
 * `optMap` and `optFlatMap`, equality of optionals, and the functions optional list and map
 * entries are rewritten to (../rewrite-syntax.ts). (`?.`, `.?field`, `[?index]`,
 * `optional.of/none`, `or`, `orValue`, `hasValue` and `value` come with the library.)
 */
import { type Environment, EvaluationError } from '@marcbachmann/cel-js';
import { OPTIONAL_LIST, OPTIONAL_MAP } from '../rewrite-syntax.js';
import { celEquals, Optional, UnsignedInt } from '../values.js';
import { defineFunction } from './register.js';

/** The type checker's view of a type, and the contexts macros see (library internals). */
interface CheckedTypeView {
  readonly kind: string;
  readonly valueType?: CheckedTypeView;
}
interface CheckContext {
  forkWithVariable(name: string, type: CheckedTypeView): BindContext;
}
interface BindContext {
  reuse(parent: unknown): { setIterValue(value: unknown, evaluator: unknown): unknown };
}
interface Checker {
  check(node: unknown, ctx: unknown): CheckedTypeView;
  readonly dynType: CheckedTypeView;
  readonly registry: { getOptionalType(t: CheckedTypeView): CheckedTypeView };
  createError(code: string, message: string, node: unknown): Error;
}
interface Evaluator {
  run(node: unknown, ctx: unknown): unknown;
}
interface MacroInput {
  readonly args: readonly { readonly op: string; readonly args: unknown }[];
  readonly receiver: unknown;
  readonly ast: unknown;
}
interface OptMacro {
  receiver: unknown;
  variable: string;
  expr: unknown;
  flat: boolean;
  bound?: BindContext;
}

function isZero(v: unknown): boolean {
  if (v === null || v === false || v === '' || v === 0 || v === 0n) return true;
  if (v instanceof UnsignedInt) return v.valueOf() === 0n;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  return false;
}

function optMacro(flat: boolean) {
  const name = flat ? 'optFlatMap' : 'optMap';
  return ({ args, receiver }: MacroInput) => {
    const [variable, expr] = args;
    if (variable?.op !== 'id' || typeof variable.args !== 'string') {
      throw new EvaluationError(`${name}(var, expr): the first argument must be a variable name`);
    }
    const macro: OptMacro = { receiver, variable: variable.args, expr, flat };
    return {
      ...macro,
      typeCheck(checker: Checker, m: OptMacro, ctx: CheckContext) {
        const receiverType = checker.check(m.receiver, ctx);
        if (receiverType.kind !== 'optional' && receiverType.kind !== 'dyn') {
          throw checker.createError('optional_expected', `${name} receiver must be optional`, m.receiver);
        }
        const inner = receiverType.valueType ?? checker.dynType;
        m.bound = ctx.forkWithVariable(m.variable, inner);
        const result = checker.check(m.expr, m.bound);
        if (!m.flat) return checker.registry.getOptionalType(result);
        if (result.kind !== 'optional' && result.kind !== 'dyn') {
          throw checker.createError('optional_expected', `${name} expression must be optional`, m.expr);
        }
        return result;
      },
      evaluate(evaluator: Evaluator, m: OptMacro, ctx: unknown) {
        const v = evaluator.run(m.receiver, ctx);
        if (!(v instanceof Optional)) throw new EvaluationError(`${name} receiver must be optional`);
        if (!v.hasValue() || !m.bound) return Optional.none();
        const result = evaluator.run(m.expr, m.bound.reuse(ctx).setIterValue(v.value(), evaluator));
        return m.flat ? result : Optional.of(result);
      },
    };
  };
}

export function registerOptionals(env: Environment): void {
  defineFunction(env, 'OptionalNamespace.ofNonZeroValue(A): optional<A>', (_: unknown, v: unknown) =>
    isZero(v) ? Optional.none() : Optional.of(v),
  );
  env.registerOperator('optional<A> == optional<A>', (a: Optional, b: Optional) => celEquals(a, b));
  env.registerFunction('optional.optMap(ast, ast): optional<dyn>', optMacro(false));
  env.registerFunction('optional.optFlatMap(ast, ast): optional<dyn>', optMacro(true));
  defineFunction(env, `${OPTIONAL_LIST}(list<optional<A>>): list<A>`, (entries: readonly Optional[]) =>
    entries.filter((e) => e.hasValue()).map((e) => e.value()),
  );
  defineFunction(env, `${OPTIONAL_MAP}(list<K>, list<optional<V>>): map<K, V>`, (keys: readonly unknown[], values: readonly Optional[]) => {
    const out = new Map<unknown, unknown>();
    keys.forEach((key, i) => {
      const value = values[i];
      if (value?.hasValue()) out.set(key, value.value());
    });
    return out;
  });
}
