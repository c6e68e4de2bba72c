import type { JsonApiObject, ObjectMeta } from '../api/index.js';
import type { Target } from './context.js';

/**
 * The one status-subresource write policy (update, patch and apply all use it), as upstream's
 * strategies: a write through `/status` changes only the status (plus the metadata fields named
 * in `fromRequest`, such as the managed fields apply recorded); a write to the main resource of a
 * kind with a status subresource leaves the status as it was; a write through a pod's
 * `ephemeralcontainers` changes only `spec.ephemeralContainers`; any other write stores what was asked.
 */
export function nextForWrite(
  t: Target,
  old: JsonApiObject,
  requested: JsonApiObject,
  fromRequest: readonly (keyof ObjectMeta)[] = [],
): JsonApiObject {
  if (t.subresource === 'status') {
    const next = structuredClone(old);
    if (requested.status === undefined) delete next.status;
    else next.status = requested.status;
    const metadata: ObjectMeta = { ...next.metadata };
    for (const key of fromRequest) (metadata as Record<string, unknown>)[key] = requested.metadata?.[key];
    next.metadata = metadata;
    return next;
  }
  if (t.subresource === 'ephemeralcontainers') {
    // Upstream's ephemeral-containers strategy: the stored pod with the request's ephemeral containers.
    const next = structuredClone(old) as JsonApiObject & { spec?: Record<string, unknown> };
    const containers = (requested.spec as Record<string, unknown> | undefined)?.ephemeralContainers;
    next.spec = { ...next.spec };
    if (containers === undefined) delete next.spec.ephemeralContainers;
    else next.spec.ephemeralContainers = containers;
    next.metadata = { ...next.metadata, resourceVersion: requested.metadata?.resourceVersion };
    return next;
  }
  if (!t.resource.subresources.has('status')) return requested;
  const next = { ...requested };
  if (old.status === undefined) delete next.status;
  else next.status = old.status;
  return next;
}
