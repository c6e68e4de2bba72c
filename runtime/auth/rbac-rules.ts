/**
 * Does one RBAC policy rule cover a request, and does one subject name a user: the matching
 * semantics of the real system's rbac rule helpers, kept apart from the walk over bindings so they
 * can be tested as a table.
 */
import type { RequestAttributes } from './attributes.js';
import { serviceAccountUsername, type UserInfo } from './user.js';

export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

export interface Subject {
  readonly kind: 'User' | 'Group' | 'ServiceAccount' | string;
  readonly name: string;
  readonly namespace?: string;
  readonly apiGroup?: string;
}

const ALL = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === ALL || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || g === group);
}

/**
 * `*` matches every resource and subresource; `pods` matches only `pods` (not `pods/status`);
 * `pods/status` matches that subresource; `* /status` (written without the space) matches the
 * status subresource of every resource.
 */
export function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combinedResource) return true;
    if (subresource !== '' && r === `*/${subresource}`) return true;
  }
  return false;
}

/**
 * Empty resourceNames match any name. Otherwise the request's name must be listed, so requests
 * without a name (list, watch, create, deletecollection) never match a rule with resourceNames.
 */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  return names.includes(name);
}

/** Exact paths, `*` for all, and a trailing `*` as a prefix match (`/healthz/*`). */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** Whether `rule` allows the request. Resource rules never cover non-resource paths and back. */
export function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (a.isResourceRequest) {
    const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return (
      verbMatches(rule, a.verb) &&
      apiGroupMatches(rule, a.apiGroup) &&
      resourceMatches(rule, combined, a.subresource) &&
      resourceNameMatches(rule, a.name)
    );
  }
  return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
}

/**
 * Whether a binding subject names the user. A ServiceAccount subject without a namespace takes the
 * binding's namespace (so a RoleBinding can say "the SA `builder` of this namespace").
 */
export function subjectMatches(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.username === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      if (!ns) return false;
      return user.username === serviceAccountUsername(ns, subject.name);
    }
    default:
      return false;
  }
}

/** `User "alice"`, `ServiceAccount "ns/builder"`: how an explanation names a subject. */
export function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount')
    return `ServiceAccount ${JSON.stringify(`${subject.namespace || bindingNamespace}/${subject.name}`)}`;
  return `${subject.kind} ${JSON.stringify(subject.name)}`;
}
