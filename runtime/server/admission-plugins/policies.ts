import { type CompiledExpressionProgram, compileExpression } from '../../cel/index.js';
import { type JsonApiObject, type LabelSelectorObject, StatusError } from '../../api/index.js';
import type { AdmissionHost, AdmissionPlugin, AdmissionRequest } from '../admission.js';
import type { ServedResource } from '../resources.js';
import { type ConfiguredWebhook, StoredConfiguration, compileConditions, type WebhookSpec } from './webhook-configs.js';
import {
  conditionsMatch,
  isExempt,
  matchedResource,
  namespaceSelectorMatches,
  objectSelectorMatches,
  requestAtVersion,
  rulesMatch,
} from './webhook-match.js';
import { reviewRequest } from './webhooks.js';

interface MatchResources {
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  resourceRules?: WebhookSpec['rules'];
  excludeResourceRules?: WebhookSpec['rules'];
  matchPolicy?: string;
}

interface Validation {
  expression: string;
  message?: string;
  reason?: string;
  messageExpression?: string;
}

/** A policy with its expressions compiled, bound by one binding. */
interface BoundPolicy {
  policy: string;
  binding: string;
  constraints: MatchResources | undefined;
  narrowed: MatchResources | undefined;
  failurePolicy: string;
  conditions: ConfiguredWebhook['conditions'];
  validations: Array<Validation & { program: CompiledExpressionProgram | Error; messageProgram?: CompiledExpressionProgram | Error }>;
  actions: string[];
}

const VARIABLES = { object: 'dyn', oldObject: 'dyn', request: 'dyn', params: 'dyn' } as const;

/** Compiles a policy expression with its variables; the error when it does not compile. */
export function compilePolicyExpression(expression: string): CompiledExpressionProgram | Error {
  try {
    return compileExpression(expression, { variables: VARIABLES, costLimits: { estimated: Number.POSITIVE_INFINITY } });
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

/** The HTTP code of a refusal by the validation's reason, as upstream. */
const CODES: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

/**
 * ValidatingAdmissionPolicy: the bindings (in name order) apply their policy's CEL validations to
 * the requests both the policy's matchConstraints and the binding's matchResources select. A failed
 * validation refuses the request (Deny), adds a Warning (Warn) and/or an audit annotation (Audit).
 * Parameter resources are not offered: `params` is null.
 */
export function validatingAdmissionPolicy(): (host: AdmissionHost) => AdmissionPlugin {
  return (host) => {
    const policies = new StoredConfiguration(
      host,
      'validatingadmissionpolicies',
      (objects) => new Map(objects.map((o) => [o.metadata?.name ?? '', o])),
    );
    const bindings = new StoredConfiguration(host, 'validatingadmissionpolicybindings', (objects) => objects);
    let cache: { policies: unknown; bindings: unknown; bound: BoundPolicy[] } | undefined;
    const boundOf = (p: Map<string, JsonApiObject>, b: JsonApiObject[]): BoundPolicy[] => {
      if (cache?.policies !== p || cache?.bindings !== b) cache = { policies: p, bindings: b, bound: bind(p, b) };
      return cache.bound;
    };
    const bound = async (): Promise<BoundPolicy[]> => {
      const [p, b] = await Promise.all([policies.current(), bindings.current()]);
      return boundOf(p, b);
    };
    /** The bound policies when both configurations are read and current; undefined when a read is due. */
    const boundNow = (): BoundPolicy[] | undefined => {
      const p = policies.currentNow();
      const b = bindings.currentNow();
      return p && b ? boundOf(p, b) : undefined;
    };
    const validateAll = async (request: AdmissionRequest): Promise<void> => {
      const all = await bound();
      for (const b of all) {
        const target = await selected(host, b.constraints, request);
        if (!target || (b.narrowed && !(await selected(host, b.narrowed, request)))) continue;
        // A policy matched through an equivalent version sees the object at that version.
        const seen = await requestAtVersion(request, target);
        evaluate(b, seen, reviewRequest(seen, host, request), host.registry.servedApiVersion(VALIDATION_FAILURE_ANNOTATION));
      }
    };
    return {
      name: 'ValidatingAdmissionPolicy',
      stored(key) {
        policies.stored(key);
        bindings.stored(key);
      },
      validate: (request) => (isExempt(request, host) || boundNow()?.length === 0 ? undefined : validateAll(request)),
    };
  };
}

function bind(policies: Map<string, JsonApiObject>, bindings: JsonApiObject[]): BoundPolicy[] {
  const out: BoundPolicy[] = [];
  for (const binding of bindings) {
    const spec = (binding.spec ?? {}) as { policyName?: string; matchResources?: MatchResources; validationActions?: string[] };
    const policy = policies.get(spec.policyName ?? '');
    if (!policy) continue;
    const p = (policy.spec ?? {}) as {
      matchConstraints?: MatchResources;
      validations?: Validation[];
      failurePolicy?: string;
      matchConditions?: WebhookSpec['matchConditions'];
    };
    out.push({
      policy: policy.metadata?.name ?? '',
      binding: binding.metadata?.name ?? '',
      constraints: p.matchConstraints,
      narrowed: spec.matchResources,
      failurePolicy: p.failurePolicy ?? 'Fail',
      conditions: compileConditions(p.matchConditions),
      validations: (p.validations ?? []).map((v) => ({
        ...v,
        program: compilePolicyExpression(v.expression),
        ...(v.messageExpression ? { messageProgram: compilePolicyExpression(v.messageExpression) } : {}),
      })),
      actions: spec.validationActions ?? [],
    });
  }
  return out;
}

/**
 * The version of the request's resource match resources select it at (its own, or an equivalent
 * under matchPolicy Equivalent); undefined when they do not select it. A policy without
 * matchConstraints selects nothing.
 */
async function selected(
  host: AdmissionHost,
  m: MatchResources | undefined,
  request: AdmissionRequest,
): Promise<ServedResource | undefined> {
  if (!m || rulesMatch(m.excludeResourceRules, request)) return undefined;
  const target = matchedResource(m.resourceRules, m.matchPolicy, request, host);
  if (!target || !objectSelectorMatches(m.objectSelector, request)) return undefined;
  return (await namespaceSelectorMatches(host, m.namespaceSelector, request)) ? target : undefined;
}

/** Upstream's audit annotation of failures under the Audit action, as the spec names its group. */
const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.svc.io/validation_failure';

function evaluate(b: BoundPolicy, request: AdmissionRequest, payload: Record<string, unknown>, key: string): void {
  const inputs = { object: request.object ?? null, oldObject: request.old ?? null, request: payload, params: null };
  const failures: Array<{ message: string; reason: string; index: number }> = [];
  const matched = conditionsMatch(b.conditions, request, payload);
  if (matched === false) return;
  if (matched instanceof Error) {
    if (b.failurePolicy === 'Fail') failures.push({ message: matched.message, reason: 'Invalid', index: -1 });
  } else {
    for (const [index, v] of b.validations.entries()) {
      let result: unknown;
      try {
        if (v.program instanceof Error) throw v.program;
        result = v.program.evaluate(inputs);
        if (typeof result !== 'boolean') throw new Error('did not evaluate to a bool');
      } catch (e) {
        if (b.failurePolicy === 'Fail')
          failures.push({ message: `expression '${v.expression}' resulted in error: ${(e as Error).message}`, reason: 'Invalid', index });
        continue;
      }
      if (!result) failures.push({ message: messageOf(v, inputs), reason: v.reason ?? 'Invalid', index });
    }
  }
  if (failures.length === 0) return;
  if (b.actions.includes('Audit')) {
    const previous = request.auditAnnotations[key] ? (JSON.parse(request.auditAnnotations[key]) as unknown[]) : [];
    const entries = failures.map((f) => ({
      message: f.message,
      policy: b.policy,
      binding: b.binding,
      expressionIndex: f.index,
      validationActions: b.actions,
    }));
    request.auditAnnotations[key] = JSON.stringify([...previous, ...entries]);
  }
  if (b.actions.includes('Warn')) {
    for (const f of failures)
      request.warnings.add(`Validation failed for ValidatingAdmissionPolicy '${b.policy}' with binding '${b.binding}': ${f.message}`);
  }
  if (b.actions.includes('Deny')) {
    const first = failures[0]!;
    throw new StatusError({
      code: CODES[first.reason] ?? 422,
      reason: first.reason,
      message: `ValidatingAdmissionPolicy '${b.policy}' with binding '${b.binding}' denied request: ${first.message}`,
    });
  }
}

function messageOf(v: BoundPolicy['validations'][number], inputs: Record<string, unknown>): string {
  if (v.messageProgram && !(v.messageProgram instanceof Error)) {
    try {
      const m = v.messageProgram.evaluate(inputs);
      if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) return m;
    } catch {
      // upstream falls back to the static message when messageExpression fails
    }
  }
  return v.message || `failed expression: ${v.expression}`;
}
