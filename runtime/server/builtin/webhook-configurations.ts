import { type FieldError, type JsonApiObject, fieldInvalid, invalid } from '../../api/index.js';
import { compileCondition } from '../admission-plugins/index.js';
import type { KindHook } from '../context.js';

/**
 * Webhook configurations: every `matchConditions[].expression` must compile, checked when the
 * configuration is written (422 at the expression, as upstream), so a typo fails its author
 * instead of every request the webhook would match.
 */
export function webhookMatchConditions(): KindHook {
  return { prepareWrite: checkMatchConditions };
}

function checkMatchConditions(object: JsonApiObject): void {
  const errors: FieldError[] = [];
  const webhooks = Array.isArray(object.webhooks) ? (object.webhooks as unknown[]) : [];
  for (const [i, webhook] of webhooks.entries()) {
    const conditions = (webhook as { matchConditions?: unknown } | null)?.matchConditions;
    if (!Array.isArray(conditions)) continue;
    for (const [j, condition] of conditions.entries()) {
      const expression = (condition as { expression?: unknown } | null)?.expression;
      if (typeof expression !== 'string' || expression === '') continue;
      const compiled = compileCondition(expression);
      if (compiled instanceof Error)
        errors.push(fieldInvalid(`webhooks[${i}].matchConditions[${j}].expression`, expression, `compilation failed: ${compiled.message}`));
      else if (compiled.type !== 'bool' && compiled.type !== 'dyn')
        errors.push(fieldInvalid(`webhooks[${i}].matchConditions[${j}].expression`, expression, `must evaluate to bool`));
    }
  }
  if (errors.length > 0) throw invalid({ group: 'admissionregistration.svc.io', kind: String(object.kind) }, object.metadata?.name ?? '', errors);
}
