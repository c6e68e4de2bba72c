/**
 * The PodDisruptionBudget side of a pod's eviction, as upstream's EvictionREST
 * (pkg/registry/core/pod/storage/eviction.go): which budget covers the pod, whether it allows one
 * more disruption, and the budget's status taking the disruption (disruptionsAllowed one less, the
 * pod in disruptedPods) before the pod is deleted.
 */
import { type JsonApiObject, StatusError, forbidden, isStatusError, labelSelectorFromObject, timestamp } from '../../runtime/api/index.js';
import { collectionPrefix, decodeObjects, readCurrent, type RequestContext, type Target, writeUpdate } from '../../runtime/server/index.js';

interface Pod extends JsonApiObject {
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] };
}

interface Budget extends JsonApiObject {
  spec?: { selector?: { matchLabels?: Record<string, string>; matchExpressions?: never[] } | null };
  status?: {
    observedGeneration?: number;
    disruptionsAllowed?: number;
    currentHealthy?: number;
    desiredHealthy?: number;
    disruptedPods?: Record<string, string>;
    conditions?: BudgetCondition[];
  };
}

interface BudgetCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** Upstream's MaxDisruptedPodSize: evictions the budget's controller has not yet seen. */
const MAX_DISRUPTED_PODS = 2000;

/** Tries of a write that conflicts with another (upstream's EvictionsRetry has 20 steps; it also waits 500 ms between them). */
export const EVICTION_ATTEMPTS = 20;

/** What the eviction does after the budgets were consulted: delete the pod, conditionally on the version read when `resourceVersion` is set. */
export interface EvictionClearance {
  resourceVersion?: string;
  /** The budget the eviction counted against (a conflict on the conditional delete is then its 429). */
  budget?: string;
}

/**
 * Upstream's canIgnorePDB: a pod that is terminal, pending or already being deleted is deleted
 * without looking at budgets (on a cluster with no nodes, every pod no one has marked Running).
 */
export function ignoresBudgets(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || Boolean(pod.metadata?.deletionTimestamp);
}

/** Upstream's shouldEnforceResourceVersion: a pod that could still turn ready is deleted at the version read. */
export function deleteAtVersionRead(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata?.deletionTimestamp);
}

/** Consults the budgets covering a pod that cannot ignore them; throws the refusal (429, 403 or 500) when the eviction may not proceed. */
export async function clearEviction(ctx: RequestContext, podTarget: Target, pod: Pod, dryRun: boolean): Promise<EvictionClearance> {
  const budgets = ctx.registry.get('policy', 'v1', 'poddisruptionbudgets');
  if (!budgets) return {};
  const covering = await coveringBudgets(ctx, budgets, podTarget.namespace, pod);
  if (covering.length > 1) {
    // Upstream returns a failure Status object (no reason), which its handler turns into the error.
    throw new StatusError({
      code: 500,
      reason: '',
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    });
  }
  const budget = covering[0];
  if (!budget) return {};
  const name = budget.metadata?.name ?? '';
  const status = budget.status ?? {};
  // An unready pod does not count towards healthy: evicting it spends nothing, if it stays unready.
  const desired = status.desiredHealthy ?? 0;
  if (!isReady(pod) && (status.currentHealthy ?? 0) >= desired && desired > 0)
    return { resourceVersion: pod.metadata?.resourceVersion, budget: name };
  const t: Target = { resource: budgets, namespace: podTarget.namespace, name, subresource: 'status', watch: false };
  for (let attempt = 1; ; attempt++) {
    const current = await readCurrent(ctx, budgets, t.namespace, name);
    if (!current) return {};
    const old = current.object as Budget;
    const next = decremented(old, pod.metadata?.name ?? '', timestamp(ctx.settings.now()));
    if (dryRun) return {};
    try {
      await writeUpdate(ctx, {
        t,
        old,
        next,
        modRevision: current.kv.modRevision,
        duplicates: [],
        opts: { dryRun: false, fieldValidation: 'Ignore', fieldManager: undefined, force: false },
      });
      return {};
    } catch (e) {
      if (!(isStatusError(e) && e.code === 409) || attempt === EVICTION_ATTEMPTS) throw e;
    }
  }
}

/** Upstream's 429 refusing an eviction, with the budget's reason as a DisruptionBudget cause. */
export function budgetRefusal(cause: string, retryAfterSeconds = 0): StatusError {
  return new StatusError({
    code: 429,
    reason: 'TooManyRequests',
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    details: { retryAfterSeconds, causes: [{ type: 'DisruptionBudget', message: cause }] },
  });
}

/** Upstream's answer for a budget whose status its controller has not written for the current generation. */
export function budgetNotProcessed(name: string): StatusError {
  return budgetRefusal(`The disruption budget ${name} is still being processed by the server.`, 10);
}

/** Upstream's checkAndDecrement: the budget with one disruption less and the pod recorded as disrupted, or the refusal. */
function decremented(budget: Budget, podName: string, now: string): Budget {
  const name = budget.metadata?.name ?? '';
  const status = budget.status ?? {};
  if ((status.observedGeneration ?? 0) < (budget.metadata?.generation ?? 0)) throw budgetNotProcessed(name);
  const allowed = status.disruptionsAllowed ?? 0;
  const policy = { group: 'policy', resource: 'poddisruptionbudget' };
  if (allowed < 0) throw forbidden(policy, name, 'pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS)
    throw forbidden(policy, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if (allowed === 0) {
    throw budgetRefusal(
      `The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`,
    );
  }
  const next = structuredClone(budget);
  const nextStatus = { ...status, disruptionsAllowed: allowed - 1, disruptedPods: { ...status.disruptedPods, [podName]: now } };
  if (nextStatus.disruptionsAllowed === 0)
    nextStatus.conditions = insufficientPods(status.conditions ?? [], status.observedGeneration, now);
  next.status = nextStatus;
  return next;
}

/** Upstream's UpdateDisruptionAllowedCondition with no disruption left: DisruptionAllowed=False, InsufficientPods. */
function insufficientPods(conditions: BudgetCondition[], observedGeneration: number | undefined, now: string): BudgetCondition[] {
  const old = conditions.find((c) => c.type === 'DisruptionAllowed');
  const condition: BudgetCondition = {
    type: 'DisruptionAllowed',
    status: 'False',
    ...(observedGeneration ? { observedGeneration } : {}),
    lastTransitionTime: old && old.status === 'False' && old.lastTransitionTime ? old.lastTransitionTime : now,
    reason: 'InsufficientPods',
    message: old?.message ?? '',
  };
  return old ? conditions.map((c) => (c === old ? condition : c)) : [...conditions, condition];
}

/** The namespace's budgets whose selector matches the pod's labels; a missing, empty or invalid selector matches nothing. */
async function coveringBudgets(
  ctx: RequestContext,
  budgets: Target['resource'],
  namespace: string | undefined,
  pod: Pod,
): Promise<Budget[]> {
  const { items } = await ctx.store.list(collectionPrefix(budgets, namespace));
  const labels = pod.metadata?.labels ?? {};
  return ((await decodeObjects(items, budgets)) as Budget[]).filter((b) => {
    try {
      const selector = labelSelectorFromObject(b.spec?.selector);
      return !selector.isEmpty() && selector.matches(labels);
    } catch {
      return false;
    }
  });
}

/** Upstream's IsPodReady: the Ready condition is True. */
function isReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}
