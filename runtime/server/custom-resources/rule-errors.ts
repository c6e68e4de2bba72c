import { type FieldError, fieldInvalid } from '../../api/index.js';
import { CelCompileError, compileRule } from '../../cel/index.js';
import { type SchemaNode, deref } from '../../schema/index.js';

/**
 * The CEL rules (`x-kubernetes-validations`) of one version's compiled schema that do not compile
 * or whose worst-case estimated cost is over the per-rule limit, at the rule's place in the
 * definition (`spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule`)
 * with upstream's words: a cost over budget is Forbidden with the factor, anything else Invalid.
 */
export function ruleErrors(root: SchemaNode, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<SchemaNode>();
  const visit = (node: SchemaNode, at: string): void => {
    if (seen.has(node)) return;
    seen.add(node);
    const rules = [...(node.rules ?? []), ...(node.type === 'ref' ? (deref(node).rules ?? []) : [])];
    for (const [i, rule] of rules.entries()) {
      const rulePath = `${at}.x-kubernetes-validations[${i}].rule`;
      try {
        compileRule(rule, { self: node, oldSelf: /\boldSelf\b/.test(rule.rule) });
      } catch (e) {
        if (!(e instanceof CelCompileError)) throw e;
        if (e.cost)
          errors.push({ type: 'FieldValueForbidden', field: rulePath, badValue: '', detail: overBudget('estimated rule cost', e.cost) });
        else errors.push(fieldInvalid(rulePath, rule.rule, `compilation failed: ${e.summary}`));
      }
    }
    const n = deref(node);
    if (n.type === 'object') {
      for (const f of n.fields) if (!(at === path && f.name === 'metadata')) visit(f.schema, `${at}.properties[${f.name}]`);
    } else if (n.type === 'map') visit(n.values, `${at}.additionalProperties`);
    else if (n.type === 'list') visit(n.items, `${at}.items`);
  };
  visit(root, path);
  return errors;
}

/** Upstream's getCostErrorMessage: how far over the limit, `more than 100x` past two orders of magnitude. */
function overBudget(costName: string, cost: { estimated: number; limit: number }): string {
  const exceed = cost.estimated / cost.limit;
  const factor = exceed > 100 ? 'more than 100x' : exceed < 1.5 ? `${exceed.toFixed(6)}x` : `${exceed.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
