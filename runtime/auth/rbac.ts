/**
 * The RBAC authorizer over Role, ClusterRole, RoleBinding and ClusterRoleBinding objects
 * (`rbac.authorization.svc.io/v1`, shaped as the real system's `rbac.authorization.k8s.io/v1`).
 * RBAC only adds permissions: it allows, or has no opinion, and never denies, so that a later
 * authorizer (a webhook) can still allow what RBAC does not grant.
 *
 * The walk: ClusterRoleBindings first (they grant everywhere), then the RoleBindings of the
 * request's namespace (a RoleBinding grants only in its own namespace, whether it references a
 * Role or a ClusterRole). A binding whose role does not exist grants nothing and is reported.
 * ClusterRole aggregation (aggregationRule) is resolved by the controller that fills `rules` in
 * the real system; here `rules` is read as stored.
 */
import type { AuthorizationRequest, Authorizer, AuthorizerResult, RuleList } from './authorize.js';
import type { UserInfo } from './user.js';
import { type LabelSelectorObject, labelSelectorFromObject } from '../api/index.js';
import { describeSubject, type PolicyRule, ruleAllows, type Subject, subjectMatches } from './rbac-rules.js';

export const RBAC_GROUP = 'rbac.authorization.svc.io';

interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

export interface RoleRef {
  readonly apiGroup: string;
  readonly kind: 'Role' | 'ClusterRole' | string;
  readonly name: string;
}

export interface RoleObject {
  readonly metadata: ObjectMeta;
  readonly rules?: readonly PolicyRule[] | null;
  /** ClusterRoles only: gather the rules of the ClusterRoles these selectors match. */
  readonly aggregationRule?: { readonly clusterRoleSelectors?: readonly LabelSelectorObject[] } | null;
}

export interface BindingObject {
  readonly metadata: ObjectMeta;
  readonly subjects?: readonly Subject[] | null;
  readonly roleRef: RoleRef;
}

/** Where RBAC objects come from: the server's store, or a fixed list (StaticRbacLister). */
export interface RbacLister {
  clusterRoleBindings(): Promise<readonly BindingObject[]> | readonly BindingObject[];
  roleBindings(namespace: string): Promise<readonly BindingObject[]> | readonly BindingObject[];
  clusterRole(name: string): Promise<RoleObject | undefined> | RoleObject | undefined;
  role(namespace: string, name: string): Promise<RoleObject | undefined> | RoleObject | undefined;
  /** Every ClusterRole; needed only to resolve aggregation. */
  clusterRoles?(): Promise<readonly RoleObject[]> | readonly RoleObject[];
}

/** A lister over objects given up front, keyed by kind. */
export class StaticRbacLister implements RbacLister {
  constructor(
    private readonly objects: {
      readonly roles?: readonly RoleObject[];
      readonly clusterRoles?: readonly RoleObject[];
      readonly roleBindings?: readonly BindingObject[];
      readonly clusterRoleBindings?: readonly BindingObject[];
    },
  ) {}
  clusterRoleBindings() {
    return this.objects.clusterRoleBindings ?? [];
  }
  roleBindings(namespace: string) {
    return (this.objects.roleBindings ?? []).filter((b) => b.metadata.namespace === namespace);
  }
  clusterRole(name: string) {
    return (this.objects.clusterRoles ?? []).find((r) => r.metadata.name === name);
  }
  clusterRoles() {
    return this.objects.clusterRoles ?? [];
  }
  role(namespace: string, name: string) {
    return (this.objects.roles ?? []).find((r) => r.metadata.namespace === namespace && r.metadata.name === name);
  }
}

/**
 * The ClusterRoles an aggregated role gathers, as upstream's aggregation controller orders them:
 * selector by selector, the matching roles by name, the role itself and repeats left out.
 */
export function aggregatedRoles(role: RoleObject, clusterRoles: readonly RoleObject[]): RoleObject[] {
  const byName = [...clusterRoles].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  const out: RoleObject[] = [];
  for (const selector of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const matches = labelSelectorFromObject(selector);
    for (const other of byName) {
      if (other.metadata.name !== role.metadata.name && !out.includes(other) && matches.matches(other.metadata.labels)) out.push(other);
    }
  }
  return out;
}

/** A rule with where it came from: the role itself, or an aggregated ClusterRole. */
interface SourcedRule {
  readonly rule: PolicyRule;
  readonly index: number;
  readonly from?: string;
}

export class RbacAuthorizer implements Authorizer {
  constructor(
    private readonly lister: RbacLister,
    readonly name = 'rbac',
  ) {}

  /**
   * The role's rules and those its aggregationRule gathers, through aggregated roles in turn (`edit`
   * joins `admin` with what it gathers itself, as upstream's aggregation controller writes it).
   */
  private async rulesOf(role: RoleObject, seen = new Set<string>()): Promise<SourcedRule[]> {
    const own = (role.rules ?? []).map((rule, index) => ({ rule, index }));
    if (!role.aggregationRule?.clusterRoleSelectors?.length || !this.lister.clusterRoles) return own;
    seen.add(role.metadata.name);
    const gathered: SourcedRule[] = [];
    for (const other of aggregatedRoles(role, await this.lister.clusterRoles())) {
      if (seen.has(other.metadata.name)) continue;
      for (const r of await this.rulesOf(other, seen)) gathered.push({ rule: r.rule, index: r.index, from: r.from ?? other.metadata.name });
    }
    return [...own, ...gathered];
  }

  async authorize({ user, attributes }: AuthorizationRequest): Promise<AuthorizerResult> {
    const problems: string[] = [];

    const grant = async (binding: BindingObject, bindingKind: 'ClusterRoleBinding' | 'RoleBinding'): Promise<string | undefined> => {
      const ns = bindingKind === 'RoleBinding' ? (binding.metadata.namespace ?? '') : '';
      const subject = (binding.subjects ?? []).find((s) => subjectMatches(s, user, ns));
      if (!subject) return undefined;
      const ref = binding.roleRef;
      let role: RoleObject | undefined;
      if (ref.kind === 'ClusterRole') role = await this.lister.clusterRole(ref.name);
      else if (ref.kind === 'Role' && bindingKind === 'RoleBinding') role = await this.lister.role(ns, ref.name);
      const bindingName = ns ? `${ns}/${binding.metadata.name}` : binding.metadata.name;
      if (!role) {
        problems.push(
          `${bindingKind} ${JSON.stringify(bindingName)} references ${ref.kind} ${JSON.stringify(ref.name)}, which does not exist`,
        );
        return undefined;
      }
      const match = (await this.rulesOf(role)).find((r) => ruleAllows(r.rule, attributes));
      if (!match) return undefined;
      const rule = match.from ? `rule ${match.index} aggregated from ClusterRole ${JSON.stringify(match.from)}` : `rule ${match.index}`;
      return `RBAC: allowed by ${bindingKind} ${JSON.stringify(bindingName)} of ${ref.kind} ${JSON.stringify(ref.name)} (${rule}) to ${describeSubject(subject, ns)}`;
    };

    for (const b of await this.lister.clusterRoleBindings()) {
      const reason = await grant(b, 'ClusterRoleBinding');
      if (reason) return { decision: 'Allow', reason };
    }
    if (attributes.isResourceRequest && attributes.namespace !== '') {
      for (const b of await this.lister.roleBindings(attributes.namespace)) {
        const reason = await grant(b, 'RoleBinding');
        if (reason) return { decision: 'Allow', reason };
      }
    }
    return {
      decision: 'NoOpinion',
      // Upstream's RBAC gives no reason when no rule matched; svckit's account is for explain only.
      reason: '',
      explanation: 'RBAC: no binding grants the request',
      ...(problems.length > 0 ? { error: problems.join('; ') } : {}),
    };
  }

  /**
   * The rules a binding's roleRef grants in `namespace` (aggregated ones included), or why it
   * grants none, in upstream's words (`role.rbac.authorization.k8s.io "x" not found`).
   */
  async roleReferenceRules(ref: RoleRef, namespace: string, rbacGroup: string): Promise<{ rules: PolicyRule[] } | { error: string }> {
    let role: RoleObject | undefined;
    if (ref.kind === 'ClusterRole') role = await this.lister.clusterRole(ref.name);
    else if (ref.kind === 'Role') role = await this.lister.role(namespace, ref.name);
    else return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
    if (!role) return { error: `${ref.kind.toLowerCase()}.${rbacGroup} ${JSON.stringify(ref.name)} not found` };
    return { rules: (await this.rulesOf(role)).map((r) => r.rule) };
  }

  /** The rules of every binding that names `user`: cluster-wide ones, and those of `namespace`'s RoleBindings. */
  async rulesFor(user: UserInfo, namespace: string): Promise<RuleList> {
    const resourceRules: RuleList['resourceRules'][number][] = [];
    const nonResourceRules: RuleList['nonResourceRules'][number][] = [];
    const errors: string[] = [];
    const collect = async (binding: BindingObject, ns: string) => {
      if (!(binding.subjects ?? []).some((s) => subjectMatches(s, user, ns))) return;
      const ref = binding.roleRef;
      const role =
        ref.kind === 'ClusterRole' ? await this.lister.clusterRole(ref.name) : ns ? await this.lister.role(ns, ref.name) : undefined;
      if (!role) {
        errors.push(`${ref.kind} ${JSON.stringify(ref.name)} not found`);
        return;
      }
      for (const { rule } of await this.rulesOf(role)) {
        if (rule.nonResourceURLs && rule.nonResourceURLs.length > 0) {
          // Non-resource rules only take effect through cluster-wide bindings.
          if (!ns) nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceURLs] });
          continue;
        }
        resourceRules.push({
          verbs: [...rule.verbs],
          ...(rule.apiGroups ? { apiGroups: [...rule.apiGroups] } : {}),
          ...(rule.resources ? { resources: [...rule.resources] } : {}),
          ...(rule.resourceNames && rule.resourceNames.length > 0 ? { resourceNames: [...rule.resourceNames] } : {}),
        });
      }
    };
    for (const b of await this.lister.clusterRoleBindings()) await collect(b, '');
    if (namespace) for (const b of await this.lister.roleBindings(namespace)) await collect(b, namespace);
    return {
      resourceRules,
      nonResourceRules,
      incomplete: errors.length > 0,
      ...(errors.length > 0 ? { evaluationError: errors.join('; ') } : {}),
    };
  }
}
