import { KindRules, ruleSetForKind } from '../cel/index.js';
import type { KindRegistration } from '../schema/index.js';
import { type FieldError, jsonTypeOf } from '../validate/index.js';
import type { RuleChecker } from './admission.js';

/** The CEL rules of every kind, run on create and update (transition rules see the old object on update only). */
export function celRuleChecker(): RuleChecker {
  const rules = new KindRules();
  return (r, object, old) =>
    rules.of(r.registration).validate(object, old).map(
      (e): FieldError => ({
        type: e.reason === 'FieldValueForbidden' || e.reason === 'FieldValueRequired' || e.reason === 'FieldValueDuplicate' ? e.reason : 'FieldValueInvalid',
        field: e.field,
        // The real system shows the schema type of the value the rule sits on.
        value: jsonTypeOf(valueAt(object, e.field)),
        message: e.message,
        rule: e.rule,
      }),
    );
}

/** Compiles every rule of every kind; the problems, one line each (empty when all compile). */
export function checkRules(kinds: readonly KindRegistration[]): string[] {
  return kinds.flatMap((k) => ruleSetForKind(k).check().map((e) => `${k.apiVersion} ${k.kind}: ${e.message}`));
}

/** The value at a field path such as `spec.containers[0].ports[1]` or `metadata.labels[app]`. */
export function valueAt(root: unknown, path: string): unknown {
  let v = root;
  for (const m of path.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)) {
    if (v === null || typeof v !== 'object') return undefined;
    const key = m[1] ?? m[2]!;
    v = Array.isArray(v) && /^\d+$/.test(key) ? v[Number(key)] : (v as Record<string, unknown>)[key];
  }
  return v;
}
