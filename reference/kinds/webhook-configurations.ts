import { type FieldError, type JsonApiObject, fieldInvalid, invalid } from '../../runtime/api/index.js';
import { compileCondition, compilePolicyExpression, type KindHook } from '../../runtime/server/index.js';

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
  if (errors.length > 0)
    throw invalid({ group: 'admissionregistration.svc.io', kind: String(object.kind) }, object.metadata?.name ?? '', errors);
}

/**
 * ValidatingAdmissionPolicy: every validation expression, message expression and match condition
 * must compile, checked when the policy is written (422 at the expression, as upstream).
 */
export function admissionPolicyExpressions(): KindHook {
  return { prepareWrite: checkPolicyExpressions };
}

function checkPolicyExpressions(object: JsonApiObject): void {
  const errors: FieldError[] = [];
  const spec = (object.spec ?? {}) as { validations?: unknown; matchConditions?: unknown };
  const check = (path: string, value: unknown, compile: (e: string) => { type: string } | Error, want: string) => {
    if (typeof value !== 'string' || value === '') return;
    const compiled = compile(value);
    if (compiled instanceof Error) errors.push(fieldInvalid(path, value, `compilation failed: ${compiled.message}`));
    else if (compiled.type !== want && compiled.type !== 'dyn') errors.push(fieldInvalid(path, value, `must evaluate to ${want}`));
  };
  for (const [i, v] of (Array.isArray(spec.validations) ? spec.validations : []).entries()) {
    check(`spec.validations[${i}].expression`, (v as { expression?: unknown })?.expression, compilePolicyExpression, 'bool');
    check(
      `spec.validations[${i}].messageExpression`,
      (v as { messageExpression?: unknown })?.messageExpression,
      compilePolicyExpression,
      'string',
    );
  }
  for (const [i, c] of (Array.isArray(spec.matchConditions) ? spec.matchConditions : []).entries())
    check(`spec.matchConditions[${i}].expression`, (c as { expression?: unknown })?.expression, compileCondition, 'bool');
  if (errors.length > 0)
    throw invalid({ group: 'admissionregistration.svc.io', kind: String(object.kind) }, object.metadata?.name ?? '', errors);
}
