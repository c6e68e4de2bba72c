import type { KindRegistration } from '../schema/index.js';
import type { CostLimits } from './cost.js';
import { RuleSet } from './rule-set.js';

/**
 * The rules of one kind, compiled once per kind. Cost limits gate custom resources only, as
 * upstream: a built-in kind's rules stand for the real system's compiled validation, which has no
 * estimate and no runtime budget (a ConfigMap of 20,000 keys is valid).
 *
 * Keyed by the registration itself: a CustomResourceDefinition changed is registered anew, so its
 * new rules compile on first use, and the old ones go with the old registration.
 */
export class KindRules {
  private readonly sets = new WeakMap<KindRegistration, RuleSet>();

  of(kind: KindRegistration): RuleSet {
    let set = this.sets.get(kind);
    if (!set) this.sets.set(kind, (set = ruleSetForKind(kind)));
    return set;
  }
}

const UNLIMITED: CostLimits = {
  perExpression: Number.POSITIVE_INFINITY,
  perObject: Number.POSITIVE_INFINITY,
  estimated: Number.POSITIVE_INFINITY,
};

export function ruleSetForKind(kind: KindRegistration): RuleSet {
  return new RuleSet(kind.schema, kind.resource?.custom ? {} : { costLimits: UNLIMITED });
}

/** Schema errors after which a custom resource's rules cannot read the value (upstream's hasBlockingErr). */
const BLOCKING = new Set(['FieldValueTypeInvalid', 'FieldValueNotSupported']);
/**
 * A built-in kind's rules stand for its compiled validation, which reads fields the schema
 * requires without guards: a missing one blocks them too.
 */
const BLOCKING_BUILT_IN = new Set([...BLOCKING, 'FieldValueRequired']);

/**
 * Whether a kind's rules run after these schema errors: unless an error makes the typed value
 * unreadable (a wrong type, a value outside its enum, for a built-in kind a missing required field),
 * as upstream, so a too-long list does not hide a failing rule and every finding is reported at once.
 */
export function rulesRunAfter(kind: KindRegistration, errors: readonly { readonly type: string }[]): boolean {
  const blocking = kind.resource?.custom ? BLOCKING : BLOCKING_BUILT_IN;
  return !errors.some((e) => blocking.has(e.type));
}
