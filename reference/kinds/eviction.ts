import { type JsonApiObject, badRequest, internalError, isStatusError, notFound, successStatus } from '../../runtime/api/index.js';
import {
  deleteObject,
  deleteOptions,
  type DeleteOptions,
  readCurrent,
  type SubresourceHandler,
  writeOptions,
} from '../../runtime/server/index.js';
import {
  EVICTION_ATTEMPTS,
  type EvictionClearance,
  budgetNotProcessed,
  clearEviction,
  deleteAtVersionRead,
  ignoresBudgets,
} from './disruption-budget.js';

/**
 * `<resource>/<name>/eviction`: an Eviction for that object deletes it with the Eviction's delete
 * options, as upstream's pod eviction: a pod that is not terminal, pending or being deleted is
 * evicted only as far as the PodDisruptionBudget covering it allows (disruption-budget.ts).
 */
export const evict: SubresourceHandler = {
  methods: ['POST'],
  async handle(ctx, t, body) {
    // Checked and admitted by the server as the subresource's declared kind (policy/v1 Eviction),
    // as upstream admits a CREATE of the eviction subresource; the delete it causes is not admitted again.
    const eviction = body!.object;
    const name = eviction.metadata?.name;
    if (name !== undefined && name !== t.name)
      throw badRequest(`name in URL does not match name in Eviction object (${t.name} != ${name})`);
    // The eviction's own options (its query) say whether it is a dry run; its DeleteOptions the rest.
    const opts = { ...deleteOptions(eviction.deleteOptions ?? {}, new URLSearchParams()) };
    opts.dryRun ||= writeOptions(ctx.req.query, ctx.req.method).dryRun;
    const target = { ...t, subresource: undefined };
    for (let attempt = 1; ; attempt++) {
      const current = await readCurrent(ctx, t.resource, t.namespace, t.name!);
      if (!current) throw notFound(t.resource, t.name!);
      const pod = current.object as JsonApiObject;
      const ignoring = ignoresBudgets(pod);
      const clearance: EvictionClearance = ignoring
        ? { resourceVersion: deleteAtVersionRead(pod) ? pod.metadata?.resourceVersion : undefined }
        : await clearEviction(ctx, t, pod, opts.dryRun);
      // A version the caller set is honoured as given; otherwise the pod is deleted as it was read,
      // so that it cannot have turned ready meanwhile.
      const atVersionRead = clearance.resourceVersion !== undefined && opts.preconditions?.resourceVersion === undefined;
      const deleting: DeleteOptions = atVersionRead
        ? { ...opts, preconditions: { ...opts.preconditions, resourceVersion: clearance.resourceVersion } }
        : opts;
      try {
        const reply = await deleteObject(ctx, target, { ...deleting, admitted: true });
        if (reply.status !== 200) throw internalError('eviction did not delete the object');
        break;
      } catch (e) {
        if (!(atVersionRead && isStatusError(e) && e.code === 409)) throw e;
        // The unready pod changed after the budget was consulted: the client is asked to try again.
        if (clearance.budget !== undefined) throw budgetNotProcessed(clearance.budget);
        // A pod that ignored budgets changed meanwhile: read again, as upstream's EvictionsRetry.
        if (!ignoring || attempt === EVICTION_ATTEMPTS) throw e;
      }
    }
    return { status: 201, body: successStatus({ code: 201 }) };
  },
};
