import { RuleSet } from '../cel/rule-set.js';
import type { KindRegistration } from '../schema/index.js';
import type { FieldError } from '../validate/index.js';
import type { RuleChecker } from './admission.js';

/**
 * The CEL rules of every kind, compiled once per kind on first use and run on create and update
 * (transition rules see the old object on update only).
 */
export function celRuleChecker(): RuleChecker {
  const sets = new Map<KindRegistration, RuleSet>();
  return (r, object, old) => {
    let set = sets.get(r.registration);
    if (!set) sets.set(r.registration, (set = new RuleSet(r.registration.schema)));
    return set.validate(object, old).map(
      (e): FieldError => ({
        type: e.reason === 'FieldValueForbidden' || e.reason === 'FieldValueRequired' || e.reason === 'FieldValueDuplicate' ? e.reason : 'FieldValueInvalid',
        field: e.field,
        // The real system shows the value's type for rule failures on composite values.
        value: 'object',
        message: e.message,
        rule: e.rule,
      }),
    );
  };
}
