/**
 * Compile once, evaluate many: a rule is parsed, renamed, type-checked against the CEL type of the
 * node it sits on, cost-estimated and instrumented here, once. Evaluation binds values and runs the
 * checked program under a cost meter.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { Rule, SchemaNode } from '../schema/index.js';
import { CostBudget } from './budget.js';
import { type CostLimits, type CostMeter, DEFAULT_COST_LIMITS } from './cost.js';
import { CelCompileError } from './errors.js';
import { newEnvironment } from './environment.js';
import { estimateCost, type SizeEstimator } from './estimate.js';
import { AUTHORIZER_TYPE, type AuthorizerBinding, AuthorizerValue } from './lib/authz.js';
import { type CompiledExpression, compileExpression as compileInEnv } from './program.js';
import { type DeclSizes, declSizes, sizesByPath } from './schema-sizes.js';
import { SchemaTypes } from './schema-types.js';
import { CelValueConverter, dynFromJson } from './schema-values.js';
import { Optional } from './values.js';

/** A variable's type: a schema node (typed and converted by it) or a CEL type name such as `dyn`. */
export type VariableType = SchemaNode | string;

export interface CompileExpressionOptions {
  variables?: Readonly<Record<string, VariableType>>;
  /** The result type the expression must have (`bool`, `string`); any when unset. */
  resultType?: string;
  costLimits?: Partial<CostLimits>;
}

export interface CompileRuleOptions {
  /** The node the rule sits on; `self` is its value. */
  self: SchemaNode;
  /** Declares `oldSelf` (the previous value of the node) for transition rules. */
  oldSelf?: boolean;
  /** More variables, e.g. `authorizer: AUTHORIZER_TYPE` or `params: <schema>`. */
  variables?: Readonly<Record<string, VariableType>>;
  costLimits?: Partial<CostLimits>;
}

export interface EvaluateOptions {
  /** The object's shared budget; a fresh one with the default total when unset. */
  budget?: CostBudget;
  /** Converts JSON inputs; pass one per object so nested rules reuse converted subtrees. */
  converter?: CelValueConverter;
}

/** A compiled expression with typed inputs: JSON values in, CEL values out. */
export interface CompiledExpressionProgram {
  readonly expression: string;
  readonly type: string;
  readonly estimatedCost: number;
  /** Evaluates with JSON (or CEL) values for the declared variables; returns the CEL value. */
  evaluate(inputs: Readonly<Record<string, unknown>>, options?: EvaluateOptions): unknown;
}

/** Inputs of a rule: JSON values of the node now (`self`) and before (`oldSelf`), and any variables. */
export interface RuleInputs {
  self: unknown;
  oldSelf?: unknown;
  readonly [variable: string]: unknown;
}

export interface CompiledRule {
  readonly rule: Rule;
  /** Reads oldSelf: runs only on update when an old value exists, unless optionalOldSelf is set. */
  readonly isTransition: boolean;
  readonly estimatedCost: number;
  /** The messageExpression's estimated cost, when the rule has one. */
  readonly messageEstimatedCost?: number;
  /** True when the rule holds (or does not apply: a transition rule without an old value). */
  evaluate(inputs: RuleInputs, options?: EvaluateOptions): boolean;
  /** The message for a failure: messageExpression's value, else `message`, else `failed rule: <rule>`. */
  message(inputs: RuleInputs, options?: EvaluateOptions): string;
}

interface Declarations {
  readonly env: Environment;
  readonly kinds: ReadonlyMap<string, VariableType>;
  readonly sizes: SizeEstimator;
}

function declare(variables: Readonly<Record<string, VariableType>>, optionalOldSelf = false): Declarations {
  const env = newEnvironment();
  const types = new SchemaTypes(env);
  const kinds = new Map<string, VariableType>();
  const sizes = new Map<string, DeclSizes>();
  for (const [name, type] of Object.entries(variables)) {
    kinds.set(name, type);
    if (typeof type === 'string') {
      env.registerVariable(name, type);
      continue;
    }
    const celType = types.typeOf(type, name);
    env.registerVariable(name, name === 'oldSelf' && optionalOldSelf ? `optional<${celType}>` : celType);
    const typeSizes = declSizes(type);
    if (typeSizes) sizes.set(name, typeSizes);
  }
  return { env, kinds, sizes: sizesByPath(sizes) };
}

/** Environments per (self schema, oldSelf form), so rules on one node share their declarations. */
const ruleDeclarations = new WeakMap<SchemaNode, Map<string, Declarations>>();

function ruleEnvironment(self: SchemaNode, oldSelf: boolean, optionalOldSelf: boolean): Declarations {
  let byForm = ruleDeclarations.get(self);
  if (!byForm) ruleDeclarations.set(self, (byForm = new Map()));
  const key = `${oldSelf}/${optionalOldSelf}`;
  let d = byForm.get(key);
  if (!d) {
    const variables: Record<string, VariableType> = oldSelf ? { self, oldSelf: self } : { self };
    byForm.set(key, (d = declare(variables, optionalOldSelf)));
  }
  return d;
}

function limitsOf(partial: Partial<CostLimits> | undefined): CostLimits {
  return { ...DEFAULT_COST_LIMITS, ...partial };
}

function checkEstimate(text: string, program: CompiledExpression, d: Declarations, limits: CostLimits): number {
  const cost = Number(estimateCost(program.root, program.isNode, d.sizes).max);
  if (cost > limits.estimated) {
    const factor = (cost / limits.estimated).toFixed(1);
    throw new CelCompileError(
      text,
      `estimated worst-case cost ${Math.ceil(cost)} exceeds the limit ${limits.estimated} by a factor of ${factor}; ` +
        'simplify the rule, or add maxItems, maxProperties and maxLength where lists, maps and strings are declared',
      undefined,
      { estimated: cost, limit: limits.estimated },
    );
  }
  return cost;
}

function compileChecked(text: string, d: Declarations, resultType: string | undefined, limits: CostLimits) {
  const program = compileInEnv(d.env, text);
  if (resultType !== undefined && program.type !== resultType) {
    throw new CelCompileError(text, `the expression must evaluate to ${resultType}, but it evaluates to ${program.type}`);
  }
  return { program, estimatedCost: checkEstimate(text, program, d, limits) };
}

/** Binds JSON inputs as CEL values of the declared types. */
function bind(
  d: Declarations,
  inputs: Readonly<Record<string, unknown>>,
  converter: CelValueConverter,
  optionalOldSelf: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, type] of d.kinds) {
    const value = inputs[name];
    if (name === 'oldSelf' && optionalOldSelf) {
      out[name] = value === undefined ? Optional.none() : Optional.of(converter.convert(value, type as SchemaNode));
    } else if (value !== undefined) {
      if (type === AUTHORIZER_TYPE) out[name] = value instanceof AuthorizerValue ? value : new AuthorizerValue(value as AuthorizerBinding);
      else out[name] = typeof type === 'string' ? dynFromJson(value) : converter.convert(value, type);
    }
  }
  return out;
}

function run(program: CompiledExpression, activation: Record<string, unknown>, options: EvaluateOptions | undefined, limits: CostLimits) {
  const budget = options?.budget ?? new CostBudget(limits);
  return budget.run(program.text, (meter: CostMeter) => program.run(activation, meter));
}

/** Compiles an expression over declared variables (authentication claims, admission requests, ...). */
export function compileExpression(expression: string, options: CompileExpressionOptions = {}): CompiledExpressionProgram {
  const limits = limitsOf(options.costLimits);
  const d = declare(options.variables ?? {});
  const { program, estimatedCost } = compileChecked(expression, d, options.resultType, limits);
  return {
    expression,
    type: program.type,
    estimatedCost,
    evaluate(inputs, evalOptions) {
      const converter = evalOptions?.converter ?? new CelValueConverter();
      return run(program, bind(d, inputs, converter, false), evalOptions, limits);
    },
  };
}

/** Compiles a validation rule against the node it sits on; throws CelCompileError. */
export function compileRule(rule: Rule | string, options: CompileRuleOptions): CompiledRule {
  const r: Rule = typeof rule === 'string' ? { rule } : rule;
  const limits = limitsOf(options.costLimits);
  const optionalOldSelf = r.optionalOldSelf === true;
  const oldSelf = options.oldSelf === true;
  let d: Declarations;
  if (options.variables === undefined) {
    d = ruleEnvironment(options.self, oldSelf, optionalOldSelf);
  } else {
    const variables: Record<string, VariableType> = { ...options.variables, self: options.self };
    if (oldSelf) variables.oldSelf = options.self;
    d = declare(variables, optionalOldSelf);
  }
  const { program, estimatedCost } = compileChecked(r.rule, d, 'bool', limits);
  const message = r.messageExpression ? compileChecked(r.messageExpression, d, 'string', limits) : undefined;
  const messageProgram = message?.program;
  const isTransition = program.identifiers.has('oldSelf');
  const fallbackMessage = r.message ?? `failed rule: ${r.rule}`;

  const activation = (inputs: RuleInputs, evalOptions?: EvaluateOptions) =>
    bind(d, inputs, evalOptions?.converter ?? new CelValueConverter(), optionalOldSelf);

  return {
    rule: r,
    isTransition,
    estimatedCost,
    messageEstimatedCost: message?.estimatedCost,
    evaluate(inputs, evalOptions) {
      if (isTransition && !optionalOldSelf && inputs.oldSelf === undefined) return true;
      return run(program, activation(inputs, evalOptions), evalOptions, limits) === true;
    },
    message(inputs, evalOptions) {
      if (!messageProgram) return fallbackMessage;
      try {
        const text = run(messageProgram, activation(inputs, evalOptions), evalOptions, limits);
        return typeof text === 'string' && text.trim() !== '' && !text.includes('\n') ? text : fallbackMessage;
      } catch {
        return fallbackMessage;
      }
    },
  };
}
