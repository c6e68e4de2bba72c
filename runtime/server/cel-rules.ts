import { KindRules, ruleSetForKind } from '../cel/index.js';
import type { KindRegistration } from '../schema/index.js';
import type { RuleChecker } from './admission.js';

/** The CEL rules of every kind, run on create and update (transition rules see the old object on update only). */
export function celRuleChecker(): RuleChecker {
  const rules = new KindRules();
  return (r, object, old) => rules.of(r.registration).validate(object, old);
}

/** Compiles every rule of every kind; the problems, one line each (empty when all compile). */
export function checkRules(kinds: readonly KindRegistration[]): string[] {
  return kinds.flatMap((k) =>
    ruleSetForKind(k)
      .check()
      .map((e) => `${k.apiVersion} ${k.kind}: ${e.message}`),
  );
}
