/**
 * runtime/cel: the expression environment. Standard macros, strings, lists, regex, URL, quantity,
 * authorizer and optional libraries; schema-to-CEL type mapping and value conversion; property
 * name escaping; compile-once rules with runtime and estimated cost budgets; and RuleSet, which
 * runs every rule of a schema tree over a value.
 */
export { CostBudget } from './budget.js';
export {
  type CompiledExpressionProgram,
  type CompiledRule,
  type CompileExpressionOptions,
  type CompileRuleOptions,
  compileExpression,
  compileRule,
  type EvaluateOptions,
  type RuleInputs,
  type VariableType,
} from './compile.js';
export { COST, type CostLimits, DEFAULT_COST_LIMITS } from './cost.js';
export {
  CelCompileError,
  CelCostExceededError,
  CelEvaluationError,
  type CostScope,
  isCelCompileError,
  isCelCostExceededError,
  isCelEvaluationError,
  type RulePosition,
} from './errors.js';
export { escapePropertyName, RESERVED_WORDS, unescapePropertyName } from './escaping.js';
export { type DeclSizes, declSizes, MAX_REQUEST_BYTES, maxCardinality } from './schema-sizes.js';
export {
  AUTHORIZER_TYPE,
  type AuthorizationAttributes,
  type AuthorizationDecision,
  type AuthorizerBinding,
} from './lib/authz.js';
export { Quantity } from './lib/quantity-value.js';
export { RuleSet, type RuleSetOptions, type ValidateOptions } from './rule-set.js';
export { SchemaTypes } from './schema-types.js';
export { CelValueConverter, dynFromJson, toCelValue } from './schema-values.js';
export { CelObject, celEquals, type CelValue, Duration, Optional, UnsignedInt } from './values.js';
export { KindRules, ruleSetForKind, rulesRunAfter } from './kind-rules.js';
