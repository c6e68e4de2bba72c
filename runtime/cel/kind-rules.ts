import type { KindRegistration } from '../schema/index.js';
import { RuleSet } from './rule-set.js';

/**
 * The rules of one kind, compiled once per kind. The worst-case cost estimate gates custom
 * resources only, as upstream: a built-in kind's rules stand for the real system's compiled
 * validation, which has no estimate.
 */
export class KindRules {
  private readonly sets = new Map<KindRegistration, RuleSet>();

  of(kind: KindRegistration): RuleSet {
    let set = this.sets.get(kind);
    if (!set) this.sets.set(kind, (set = ruleSetForKind(kind)));
    return set;
  }
}

export function ruleSetForKind(kind: KindRegistration): RuleSet {
  return new RuleSet(kind.schema, kind.resource?.custom ? {} : { costLimits: { estimated: Number.POSITIVE_INFINITY } });
}
