/**
 * Upstream's clusterrole-aggregation controller: a ClusterRole with an `aggregationRule` has as
 * `rules` the rules of the ClusterRoles its selectors match (in selector order, roles by name,
 * repeats left out), kept up to date as roles come, go and change labels; so `kubectl get
 * clusterrole admin -o yaml` shows what `admin` grants. RBAC also gathers them when it reads a
 * role, so a grant holds from the next request, before this controller has written it.
 */
import type { JsonApiObject } from '../../runtime/api/index.js';
import { type PolicyRule, type RoleObject, aggregatedRoles } from '../../runtime/auth/index.js';
import { canonicalJson } from '../../runtime/json/index.js';
import { isStoreConflictError } from '../../runtime/store/index.js';
import { decodeObjects, encodeObject, type HookHost, type KindHook, objectKey, StoreFollower } from '../../runtime/server/index.js';

export function clusterRoleAggregation({ context, declaring }: HookHost): KindHook {
  let queue: Promise<void> = Promise.resolve();
  let pending = false;
  const aggregate = async (): Promise<void> => {
    pending = false;
    const { items } = await context.store.list(declaring.storagePrefix);
    const objects = await decodeObjects(items, declaring);
    const roles = objects as unknown as RoleObject[];
    for (const [i, role] of roles.entries()) {
      if (!role.aggregationRule?.clusterRoleSelectors?.length) continue;
      const rules = gathered(role, roles);
      if (canonicalJson(rules) === canonicalJson(role.rules ?? [])) continue;
      const next: JsonApiObject = { ...objects[i]!, rules } as JsonApiObject;
      try {
        await context.store.update(objectKey(declaring, undefined, role.metadata.name), await encodeObject(next, declaring), {
          expectedModRevision: items[i]!.modRevision,
        });
      } catch (e) {
        // Changed meanwhile: its own event runs the aggregation again.
        if (!isStoreConflictError(e)) throw e;
      }
    }
  };
  // One pass at a time, and at most one waiting: every pass reads every role anew.
  const schedule = (): void => {
    if (pending) return;
    pending = true;
    queue = queue.then(aggregate).catch((e: unknown) => {
      process.stderr.write(`clusterrole aggregation: ${String(e)}\n`);
    });
  };
  const follower = new StoreFollower(context.store, declaring.storagePrefix, {
    listed: async () => {
      schedule();
      await queue;
    },
    changed: schedule,
    settle: () => queue,
  });
  return {
    resume: () => follower.start(),
    // Until no pass is waiting: a pass's own writes schedule the next (a role gathered in turn).
    idle: async () => {
      for (let seen = queue; ; seen = queue) {
        await seen;
        if (seen === queue) return;
      }
    },
    close: () => follower.stop(),
  };
}

/** The rules of the roles an aggregated role gathers, each once, as upstream writes them. */
function gathered(role: RoleObject, all: readonly RoleObject[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const other of aggregatedRoles(role, all)) {
    for (const rule of other.rules ?? []) {
      const key = canonicalJson(rule);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(rule);
      }
    }
  }
  return out;
}
