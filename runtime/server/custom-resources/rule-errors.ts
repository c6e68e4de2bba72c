import { type FieldError, fieldInvalid } from '../../api/index.js';
import { CelCompileError, compileRule, shapeOfSchema } from '../../cel/index.js';
import { type SchemaNode, deref } from '../../schema/index.js';

/**
 * The CEL rules (`x-kubernetes-validations`) of one version's compiled schema that do not compile
 * or whose worst-case estimated cost is over the per-rule limit, or together over the per-schema
 * limit (each rule's cost times how many values it can run on), at the rule's place in the
 * definition (`spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule`)
 * with upstream's words: a cost over budget is Forbidden with the factor, anything else Invalid.
 */
export function ruleErrors(root: SchemaNode, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const costs: { path: string; cost: number }[] = [];
  const seen = new Set<SchemaNode>();
  // cardinality: how many values of the node one object can hold (products of list and map sizes).
  const visit = (node: SchemaNode, at: string, cardinality: number): void => {
    if (seen.has(node)) return;
    seen.add(node);
    const rules = [...(node.rules ?? []), ...(node.type === 'ref' ? (deref(node).rules ?? []) : [])];
    for (const [i, rule] of rules.entries()) {
      const rulePath = `${at}.x-kubernetes-validations[${i}].rule`;
      try {
        const compiled = compileRule(rule, { self: node, oldSelf: /\boldSelf\b/.test(rule.rule) });
        costs.push({ path: rulePath, cost: compiled.estimatedCost * cardinality });
      } catch (e) {
        if (!(e instanceof CelCompileError)) throw e;
        if (e.cost)
          errors.push({ type: 'FieldValueForbidden', field: rulePath, badValue: '', detail: overBudget('estimated rule cost', e.cost) });
        else {
          const failed = e.stage === 'program' ? 'program instantiation failed' : 'compilation failed';
          errors.push(fieldInvalid(rulePath, rule.rule, `${failed}: ${e.summary}`));
        }
      }
    }
    const n = deref(node);
    if (n.type === 'object') {
      for (const f of n.fields) if (!(at === path && f.name === 'metadata')) visit(f.schema, `${at}.properties[${f.name}]`, cardinality);
    } else if (n.type === 'map') visit(n.values, `${at}.additionalProperties`, cardinality * shapeOfSchema(n).maxSize);
    else if (n.type === 'list') visit(n.items, `${at}.items`, cardinality * shapeOfSchema(n).maxSize);
  };
  visit(root, path, 1);
  const total = costs.reduce((sum, c) => sum + c.cost, 0);
  if (total > TOTAL_COST_LIMIT) {
    // Upstream names the (at most four) most expensive rules, then the schema.
    for (const c of [...costs].sort((a, b) => b.cost - a.cost).slice(0, 4)) {
      errors.push({
        type: 'FieldValueForbidden',
        field: c.path,
        badValue: '',
        detail: 'contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema',
      });
    }
    errors.push({
      type: 'FieldValueForbidden',
      field: path,
      badValue: '',
      detail: overBudget('x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema', {
        estimated: total,
        limit: TOTAL_COST_LIMIT,
      }),
    });
  }
  return errors;
}

/** Upstream's StaticEstimatedCRDCostLimit: the estimated cost of all the rules of one schema, each times how often it can run. */
const TOTAL_COST_LIMIT = 100_000_000;

/** Upstream's getCostErrorMessage: how far over the limit, `more than 100x` past two orders of magnitude. */
function overBudget(costName: string, cost: { estimated: number; limit: number }): string {
  const exceed = cost.estimated / cost.limit;
  const factor = exceed > 100 ? 'more than 100x' : exceed < 1.5 ? `${exceed.toFixed(6)}x` : `${exceed.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
