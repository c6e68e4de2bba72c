/**
 * RBAC's escalation prevention, as upstream's rbac/validation: a user may grant through a role or
 * a binding only what the user already holds. The rules granted are broken down into single
 * verb/group/resource/name (or verb/URL) rules; each must be covered by one of the user's own.
 */
import { goQuote, goQuoteList } from '../api/index.js';
import type { PolicyRule } from './rbac-rules.js';
import type { RuleList } from './authorize.js';
import type { UserInfo } from './user.js';

/** Everything: what an aggregationRule may gather, so setting one needs it (upstream's fullAuthority). */
export const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** The user's rules as policy rules (a RuleList keeps resource and non-resource rules apart). */
export function policyRulesOf(list: RuleList): PolicyRule[] {
  return [...list.resourceRules, ...list.nonResourceRules];
}

/** The parts of `granted` that `owned` does not cover, compacted as upstream reports them; empty when covered. */
export function uncoveredRules(owned: readonly PolicyRule[], granted: readonly PolicyRule[]): PolicyRule[] {
  const missing = granted.flatMap(breakdown).filter((atom) => !owned.some((rule) => covers(rule, atom)));
  return compact(missing);
}

/**
 * Upstream's ConfirmNoEscalation message: `user "bob" (groups=["devs" "system:authenticated"]) is
 * attempting to grant RBAC permissions not currently held:` then one sorted line per missing rule.
 */
export function escalationMessage(user: UserInfo, missing: readonly PolicyRule[], resolutionError?: string): string {
  const lines = [...new Set(missing.map(compactString))].sort();
  const groups = goQuoteList(user.groups);
  const text = `user ${goQuote(user.username)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  return resolutionError ? `${text}; resolution errors: [${resolutionError}]` : text;
}

/** One rule per group, resource, verb and name (or URL and verb): upstream's BreakdownRule. */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

/** Whether `owner` covers every part of `sub` (upstream's ruleCovers). */
function covers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = owner.verbs.includes('*') || hasAll(owner.verbs, sub.verbs);
  const groups = (owner.apiGroups ?? []).includes('*') || hasAll(owner.apiGroups ?? [], sub.apiGroups ?? []);
  const resources = resourcesCover(owner.resources ?? [], sub.resources ?? []);
  const urls = (sub.nonResourceURLs ?? []).every((path) => (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, path)));
  const ownerNames = owner.resourceNames ?? [];
  const names = ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames ?? []);
  const namesMatch = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : names;
  return verbs && groups && resources && namesMatch && urls;
}

/** `*` covers every resource, `*\/status` every resource's status. */
function resourcesCover(owned: readonly string[], wanted: readonly string[]): boolean {
  if (owned.includes('*')) return true;
  return wanted.every((path) => {
    if (owned.includes(path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && owned.includes(`*/${path.slice(slash + 1)}`);
  });
}

function urlCovers(owner: string, path: string): boolean {
  return owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));
}

function hasAll(set: readonly string[], items: readonly string[]): boolean {
  return items.every((i) => set.includes(i));
}

/** Rules of one group, one resource and at most one name that differ only in verbs become one (upstream's CompactRules). */
function compact(rules: readonly PolicyRule[]): PolicyRule[] {
  const simple = new Map<string, { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }>();
  const out: PolicyRule[] = [];
  for (const rule of rules) {
    const isSimple =
      (rule.resourceNames ?? []).length <= 1 &&
      (rule.nonResourceURLs ?? []).length === 0 &&
      (rule.apiGroups ?? []).length === 1 &&
      (rule.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, rule.resourceNames ?? null]);
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...rule.verbs);
    else
      simple.set(key, {
        apiGroups: [...rule.apiGroups!],
        resources: [...rule.resources!],
        verbs: [...rule.verbs],
        ...(rule.resourceNames?.length ? { resourceNames: [...rule.resourceNames] } : {}),
      });
  }
  return [...out, ...simple.values()];
}

/** Upstream's CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`. */
function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${goQuoteList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${goQuoteList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoteList(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${goQuoteList(rule.resourceNames)}`);
  if (rule.verbs.length) parts.push(`Verbs:${goQuoteList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}
