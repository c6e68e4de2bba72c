/**
 * RBAC's escalation prevention on roles and bindings (upstream's policy-based storage of
 * `rbac.authorization`): a write that would grant more than its author holds is 403, unless the
 * author is in `system:masters`, may `escalate` the role (roles), or may `bind` the referenced role
 * (bindings). What the author holds is what RBAC grants, as upstream's rule resolver reads it;
 * `escalate` and `bind` are asked of the whole authorizer chain. Writes that change only
 * finalizers and owner references (the garbage collector's) are never checked.
 */
import { type JsonApiObject, forbidden } from '../../runtime/api/index.js';
import {
  FULL_AUTHORITY,
  MASTERS_GROUP,
  type PolicyRule,
  RbacAuthorizer,
  type RoleRef,
  type UserInfo,
  escalationMessage,
  policyRulesOf,
  uncoveredRules,
} from '../../runtime/auth/index.js';
import { canonicalJson } from '../../runtime/json/index.js';
import type { HookHost, KindHook, RequestContext } from '../../runtime/server/index.js';
import { StoreRbacLister } from '../access/index.js';

export function rbacEscalation({ context, declaring }: HookHost): KindHook {
  const rbac = new RbacAuthorizer(new StoreRbacLister(() => context));
  const group = declaring.group;
  const resource = { group, resource: declaring.resource };
  const isRole = declaring.kind === 'Role' || declaring.kind === 'ClusterRole';
  return {
    async prepareWrite(object, old, ctx) {
      const user = ctx?.user;
      if (!ctx || !user || user.groups.includes(MASTERS_GROUP)) return;
      if (old && onlyGarbageCollectorFields(object, old)) return;
      const name = object.metadata?.name ?? '';
      const namespace = declaring.namespaced ? (object.metadata?.namespace ?? ctx.target?.namespace ?? '') : '';
      const refuse = (why: string) => forbidden(resource, name, why);
      if (isRole) {
        if (await allowed(ctx, user, { verb: 'escalate', group, resource: declaring.resource, namespace, name })) return;
        const aggregation = (object as { aggregationRule?: { clusterRoleSelectors?: unknown[] } }).aggregationRule;
        if (aggregation && (aggregation.clusterRoleSelectors ?? []).length > 0) {
          const missing = await missingRules(rbac, user, '', FULL_AUTHORITY);
          if (missing.rules.length > 0) throw refuse('must have cluster-admin privileges to use the aggregationRule');
        }
        const missing = await missingRules(rbac, user, namespace, ((object as { rules?: PolicyRule[] }).rules ?? []) as PolicyRule[]);
        if (missing.rules.length > 0) throw refuse(escalationMessage(user, missing.rules, missing.error));
        return;
      }
      const ref = (object as { roleRef?: RoleRef }).roleRef;
      if (!ref) return; // the validator refuses it
      const roles = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
      if (await allowed(ctx, user, { verb: 'bind', group: ref.apiGroup ?? group, resource: roles, namespace, name: ref.name })) return;
      const granted = await rbac.roleReferenceRules(ref, namespace, group);
      if ('error' in granted) throw refuse(granted.error);
      const missing = await missingRules(rbac, user, namespace, granted.rules);
      if (missing.rules.length > 0) throw refuse(escalationMessage(user, missing.rules, missing.error));
    },
  };
}

/** What of `granted` the user's RBAC rules in `namespace` do not cover, and why the rules may be incomplete. */
async function missingRules(
  rbac: RbacAuthorizer,
  user: UserInfo,
  namespace: string,
  granted: readonly PolicyRule[],
): Promise<{ rules: PolicyRule[]; error?: string }> {
  const own = await rbac.rulesFor(user, namespace);
  const rules = uncoveredRules(policyRulesOf(own), granted);
  return own.evaluationError ? { rules, error: own.evaluationError } : { rules };
}

/** Whether the authorizer chain allows `verb` on the named role (upstream asks with apiVersion `*`). */
async function allowed(
  ctx: RequestContext,
  user: UserInfo,
  a: { verb: string; group: string; resource: string; namespace: string; name: string },
): Promise<boolean> {
  const path = `/apis/${a.group}/*/${a.namespace ? `namespaces/${a.namespace}/` : ''}${a.resource}/${a.name}`;
  const decision = await ctx.authorizer.authorize({
    user,
    attributes: {
      isResourceRequest: true,
      path,
      verb: a.verb,
      apiPrefix: 'apis',
      apiGroup: a.group,
      apiVersion: '*',
      namespace: a.namespace,
      resource: a.resource,
      subresource: '',
      name: a.name,
    },
  });
  return decision.allowed;
}

/** Upstream's IsOnlyMutatingGCFields: the write changes nothing but owner references and finalizers. */
function onlyGarbageCollectorFields(object: JsonApiObject, old: JsonApiObject): boolean {
  const strip = (o: JsonApiObject) => {
    const { ownerReferences: _o, finalizers: _f, managedFields: _m, resourceVersion: _r, ...meta } = o.metadata ?? {};
    return canonicalJson({ ...o, metadata: meta });
  };
  return strip(object) === strip(old);
}
