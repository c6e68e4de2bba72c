import { type FieldError, fieldInvalid } from '../../runtime/api/index.js';
import { CelCompileError, type CompiledRule, compileRule, declSizes, maxCardinality } from '../../runtime/cel/index.js';
import { deref, type Rule, type SchemaNode } from '../../runtime/schema/index.js';

/** Upstream's StaticEstimatedCostLimit: the largest estimated cost of one rule, times how often it can run. */
const RULE_COST_LIMIT = 10_000_000;
/** Upstream's StaticEstimatedCRDCostLimit: the estimated cost of all the rules of one schema. */
const TOTAL_COST_LIMIT = 100_000_000;
const MAX_UINT64 = 2 ** 64;
/** Rules below 1% of the total limit are never named as contributors. */
const CONTRIBUTOR_MINIMUM = TOTAL_COST_LIMIT / 100;

const NO_COST_LIMIT = { estimated: Number.POSITIVE_INFINITY };

interface RuleCost {
  readonly path: string;
  readonly cost: number;
}

/** multiplyWithOverflowGuard: saturates where uint64 would overflow. */
const times = (cost: number, cardinality: number): number => (cost === 0 ? 0 : Math.min(MAX_UINT64, cost * cardinality));

/**
 * How many values a node's children can have per object (extractMaxElements): an object's fields
 * one each, a list's items maxItems, a map's values maxProperties; undefined when unbounded.
 */
function childCardinality(node: SchemaNode): number | undefined {
  const n = deref(node);
  if (n.type === 'list') return node.maxItems ?? n.maxItems;
  if (n.type === 'map') return node.maxProperties ?? n.maxProperties;
  return 1;
}

/**
 * The CEL rules (`x-kubernetes-validations`) of one version's compiled schema that do not compile
 * or cost too much, with apiextensions 1.30's words (validation.go): each rule's estimated cost
 * times its cardinality (the product of maxItems and maxProperties above it, or, under a list or
 * map without one, how many of its values fit in one request) is limited per rule, a
 * messageExpression's cost by itself, and their sum over the schema; a cost over budget is
 * Forbidden with the factor, anything else Invalid.
 */
export function ruleErrors(root: SchemaNode, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const costs: RuleCost[] = [];
  // The nodes above the one visited: a schema shared by several places is costed at each, as
  // upstream walks the definition's tree; only a recursive one stops.
  const ancestors = new Set<SchemaNode>();
  const forbidden = (field: string, detail: string) => errors.push({ type: 'FieldValueForbidden', field, badValue: '', detail });
  // cardinality: how many values of the node one object can hold; undefined when unbounded.
  const visit = (node: SchemaNode, at: string, cardinality: number | undefined): void => {
    if (ancestors.has(node) || !hasRules(node)) return;
    const rules = [...(node.rules ?? []), ...(node.type === 'ref' ? (deref(node).rules ?? []) : [])];
    for (const [i, rule] of rules.entries()) {
      const rulePath = `${at}.x-kubernetes-validations[${i}]`;
      try {
        const compiled = compileOnce(rule, node);
        const runs = cardinality ?? maxCardinality(declSizes(node)?.minSerializedSize ?? 1);
        const cost = times(compiled.estimatedCost, runs);
        if (cost > RULE_COST_LIMIT) forbidden(`${rulePath}.rule`, overBudget('estimated rule cost', cost, RULE_COST_LIMIT));
        costs.push({ path: `${rulePath}.rule`, cost });
        const messageCost = compiled.messageEstimatedCost;
        if (messageCost !== undefined) {
          if (messageCost > RULE_COST_LIMIT) {
            forbidden(`${rulePath}.messageExpression`, overBudget('estimated messageExpression cost', messageCost, RULE_COST_LIMIT));
          }
          costs.push({ path: `${rulePath}.messageExpression`, cost: messageCost });
        }
      } catch (e) {
        if (!(e instanceof CelCompileError)) throw e;
        const failed = e.stage === 'program' ? 'program instantiation failed' : 'compilation failed';
        errors.push(fieldInvalid(`${rulePath}.rule`, rule.rule, `${failed}: ${e.summary}`));
      }
    }
    ancestors.add(node);
    visitChildren(node, at, cardinality);
    ancestors.delete(node);
  };
  const visitChildren = (node: SchemaNode, at: string, cardinality: number | undefined): void => {
    const n = deref(node);
    const perValue = childCardinality(node);
    const inner = cardinality === undefined || perValue === undefined ? undefined : times(cardinality, perValue);
    if (n.type === 'object') {
      for (const f of n.fields) if (!(at === path && f.name === 'metadata')) visit(f.schema, `${at}.properties[${f.name}]`, inner);
    } else if (n.type === 'map') visit(n.values, `${at}.additionalProperties`, inner);
    else if (n.type === 'list') visit(n.items, `${at}.items`, inner);
  };
  // Compiled once per rule and node, however many places share the node.
  const compiled = new Map<Rule, Map<SchemaNode, CompiledRule | CelCompileError>>();
  const compileOnce = (rule: Rule, self: SchemaNode): CompiledRule => {
    let bySelf = compiled.get(rule);
    if (!bySelf) compiled.set(rule, (bySelf = new Map()));
    let result = bySelf.get(self);
    if (!result) {
      try {
        result = compileRule(rule, { self, oldSelf: /\boldSelf\b/.test(rule.rule), costLimits: NO_COST_LIMIT });
      } catch (e) {
        if (!(e instanceof CelCompileError)) throw e;
        result = e;
      }
      bySelf.set(self, result);
    }
    if (result instanceof CelCompileError) throw result;
    return result;
  };
  const withRules = new Map<SchemaNode, boolean>();
  /** Whether the node or anything below it has rules; a recursive reference counts as none. */
  const hasRules = (node: SchemaNode): boolean => {
    const known = withRules.get(node);
    if (known !== undefined) return known;
    withRules.set(node, false);
    const n = deref(node);
    const children =
      n.type === 'object' ? n.fields.map((f) => f.schema) : n.type === 'map' ? [n.values] : n.type === 'list' ? [n.items] : [];
    const found = Boolean(node.rules?.length || n.rules?.length) || children.some(hasRules);
    withRules.set(node, found);
    return found;
  };
  visit(root, path, 1);
  const total = costs.reduce((sum, c) => Math.min(MAX_UINT64, sum + c.cost), 0);
  if (total > TOTAL_COST_LIMIT) {
    // Upstream names the (at most four) most expensive rules of at least 1% of the limit, then the schema.
    const contributors = costs.filter((c) => c.cost >= CONTRIBUTOR_MINIMUM).sort((a, b) => b.cost - a.cost);
    for (const c of contributors.slice(0, 4)) {
      forbidden(c.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema');
    }
    forbidden(path, overBudget('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, TOTAL_COST_LIMIT));
  }
  return errors;
}

/** Upstream's getCostErrorMessage: how far over the limit, `more than 100x` past two orders of magnitude. */
function overBudget(costName: string, estimated: number, limit: number): string {
  const exceed = estimated / limit;
  const factor = exceed > 100 ? 'more than 100x' : exceed < 1.5 ? `${exceed.toFixed(6)}x` : `${exceed.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
