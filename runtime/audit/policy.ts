/**
 * The audit policy (`audit.svc.io/v1` Policy), compiled once and asked once per request: which
 * level to record at, which stages to leave out, whether to drop managedFields. Mirrors upstream's
 * `k8s.io/apiserver/pkg/audit/policy` checker: rules are tried in order, the first that matches
 * decides, and a request no rule matches is not recorded (level None).
 */
import { type FieldError, fieldErrorMessage } from '../api/index.js';
import type { RequestAttributes, UserInfo } from '../auth/index.js';

export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];

export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type Stage = (typeof STAGES)[number];

/** `GroupResources` as the policy file writes it. */
export interface GroupResourcesInput {
  group?: string;
  resources?: readonly string[];
  resourceNames?: readonly string[];
}

/** `PolicyRule` as the policy file writes it. */
export interface PolicyRuleInput {
  level: string;
  users?: readonly string[];
  userGroups?: readonly string[];
  verbs?: readonly string[];
  resources?: readonly GroupResourcesInput[];
  namespaces?: readonly string[];
  nonResourceURLs?: readonly string[];
  omitStages?: readonly string[];
  omitManagedFields?: boolean;
}

/** `Policy` as the policy file writes it (already checked against its schema by the caller). */
export interface PolicyInput {
  rules?: readonly PolicyRuleInput[];
  omitStages?: readonly string[];
  omitManagedFields?: boolean;
}

/** What the policy decides for one request. */
export interface AuditDecision {
  level: Level;
  omitStages: ReadonlySet<Stage>;
  omitManagedFields: boolean;
}

/** The request as the policy sees it: who, and the attributes `runtime/auth` derives from the path. */
export interface PolicySubject {
  /** Undefined for a request whose authentication failed: rules naming users or groups do not match it. */
  user: UserInfo | undefined;
  attributes: RequestAttributes;
}

/** A policy that cannot be used, with every problem found (`rules[0].level: Unsupported value: ...`). */
export class AuditPolicyError extends Error {
  override readonly name = 'AuditPolicyError';
  constructor(readonly errors: readonly FieldError[]) {
    super(errors.map(fieldErrorMessage).join('; '));
  }
}

export function isAuditPolicyError(e: unknown): e is AuditPolicyError {
  return e instanceof AuditPolicyError;
}

/** A compiled policy. */
export class AuditPolicy {
  private constructor(
    private readonly rules: readonly PolicyRuleInput[],
    private readonly omitStages: ReadonlySet<Stage>,
    private readonly omitManagedFields: boolean,
  ) {}

  /** Checks and compiles a policy; AuditPolicyError names every problem (zero rules is one). */
  static compile(input: PolicyInput): AuditPolicy {
    const errors = checkPolicy(input);
    if (errors.length > 0) throw new AuditPolicyError(errors);
    return new AuditPolicy(input.rules ?? [], new Set((input.omitStages ?? []) as Stage[]), input.omitManagedFields ?? false);
  }

  /** A policy of one catch-all rule (tests, benchmarks). */
  static everything(level: Level, options: Omit<PolicyRuleInput, 'level'> = {}): AuditPolicy {
    return AuditPolicy.compile({ rules: [{ level, ...options }] });
  }

  /** The first matching rule's level; policy-level omitStages are added to the rule's; the rule's omitManagedFields wins over the policy's. */
  evaluate(subject: PolicySubject): AuditDecision {
    for (const rule of this.rules) {
      if (!ruleMatches(rule, subject)) continue;
      const omitStages = new Set<Stage>(this.omitStages);
      for (const s of rule.omitStages ?? []) omitStages.add(s as Stage);
      return { level: rule.level as Level, omitStages, omitManagedFields: rule.omitManagedFields ?? this.omitManagedFields };
    }
    return { level: 'None', omitStages: this.omitStages, omitManagedFields: this.omitManagedFields };
  }
}

/** Whether `level` records at least what `atLeast` records. */
export function levelAtLeast(level: Level, atLeast: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(atLeast);
}

function ruleMatches(rule: PolicyRuleInput, { user, attributes: a }: PolicySubject): boolean {
  const groups = rule.userGroups;
  if (nonEmpty(rule.users) && (!user || !rule.users.includes(user.username))) return false;
  if (nonEmpty(groups) && !user?.groups.some((g) => groups.includes(g))) return false;
  if (nonEmpty(rule.verbs) && !rule.verbs.includes(a.verb)) return false;
  if (nonEmpty(rule.namespaces) || nonEmpty(rule.resources)) return resourceMatches(rule, a);
  if (nonEmpty(rule.nonResourceURLs)) return !a.isResourceRequest && rule.nonResourceURLs.some((u) => pathMatches(a.path, u));
  return true;
}

function resourceMatches(rule: PolicyRuleInput, a: RequestAttributes): boolean {
  if (!a.isResourceRequest) return false;
  // A cluster-scoped request has the empty namespace, which `""` in the list matches.
  if (nonEmpty(rule.namespaces) && !rule.namespaces.includes(a.namespace)) return false;
  if (!nonEmpty(rule.resources)) return true;
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  for (const gr of rule.resources) {
    if ((gr.group ?? '') !== a.apiGroup) continue;
    if (!nonEmpty(gr.resources)) return true;
    if (nonEmpty(gr.resourceNames) && !gr.resourceNames.includes(a.name)) continue;
    for (const r of gr.resources) {
      if (r === '*' || r === combined) return true;
      if (a.subresource !== '' && r.startsWith('*/') && r.slice(2) === a.subresource) return true;
      if (r.endsWith('/*') && r.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}

/** `*` matches every path, `/apis*` every path that starts with `/apis`, anything else itself. */
function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function nonEmpty<T>(list: readonly T[] | undefined): list is readonly T[] {
  return list !== undefined && list.length > 0;
}

/** The checks of upstream's policy validation, beyond what the schema checks. */
function checkPolicy(input: PolicyInput): FieldError[] {
  const errors: FieldError[] = [];
  const rules = input.rules ?? [];
  if (rules.length === 0)
    errors.push({
      type: 'FieldValueRequired',
      field: 'rules',
      detail: 'a policy needs at least one rule (a policy of no rules would record nothing)',
    });
  checkStages(input.omitStages, 'omitStages', errors);
  rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (!(LEVELS as readonly string[]).includes(rule.level))
      errors.push({
        type: 'FieldValueNotSupported',
        field: `${at}.level`,
        badValue: rule.level,
        detail: `supported values: ${LEVELS.map((l) => `"${l}"`).join(', ')}`,
      });
    checkStages(rule.omitStages, `${at}.omitStages`, errors);
    const hasResources = nonEmpty(rule.resources) || nonEmpty(rule.namespaces);
    if (hasResources && nonEmpty(rule.nonResourceURLs))
      errors.push({
        type: 'FieldValueInvalid',
        field: `${at}.nonResourceURLs`,
        badValue: rule.nonResourceURLs,
        detail: 'rules cannot apply to both regular resources and non-resource URLs',
      });
    (rule.nonResourceURLs ?? []).forEach((u, j) => {
      const f = `${at}.nonResourceURLs[${j}]`;
      if (u !== '*' && !u.startsWith('/'))
        errors.push({ type: 'FieldValueInvalid', field: f, badValue: u, detail: 'non-resource URL rules must begin with "/" (or be "*")' });
      else if (u.slice(0, -1).includes('*'))
        errors.push({ type: 'FieldValueInvalid', field: f, badValue: u, detail: 'a wildcard "*" is allowed only at the end' });
    });
    (rule.resources ?? []).forEach((gr, j) => checkGroupResources(gr, `${at}.resources[${j}]`, errors));
  });
  return errors;
}

function checkStages(stages: readonly string[] | undefined, field: string, errors: FieldError[]): void {
  (stages ?? []).forEach((s, i) => {
    if (!(STAGES as readonly string[]).includes(s))
      errors.push({
        type: 'FieldValueNotSupported',
        field: `${field}[${i}]`,
        badValue: s,
        detail: `supported values: ${STAGES.map((x) => `"${x}"`).join(', ')}`,
      });
  });
}

function checkGroupResources(gr: GroupResourcesInput, at: string, errors: FieldError[]): void {
  const resources = gr.resources ?? [];
  if (nonEmpty(gr.resourceNames) && resources.length === 0)
    errors.push({
      type: 'FieldValueInvalid',
      field: `${at}.resourceNames`,
      badValue: gr.resourceNames,
      detail: 'using resourceNames requires at least one resource',
    });
  resources.forEach((r, i) => {
    const f = `${at}.resources[${i}]`;
    const [res, sub, ...more] = r.split('/');
    if (more.length > 0 || res === '' || sub === '')
      errors.push({
        type: 'FieldValueInvalid',
        field: f,
        badValue: r,
        detail: 'must be <resource>, <resource>/<subresource>, <resource>/*, */<subresource> or *',
      });
    else if (r === '*/*' || (res === '*' && sub === undefined && resources.length > 1) || (res !== '*' && res!.includes('*')))
      errors.push({
        type: 'FieldValueInvalid',
        field: f,
        badValue: r,
        detail: 'a wildcard must not overlap other resources: use "*" alone, "<resource>/*" or "*/<subresource>"',
      });
    if (res === '*' && nonEmpty(gr.resourceNames))
      errors.push({
        type: 'FieldValueInvalid',
        field: `${at}.resourceNames`,
        badValue: gr.resourceNames,
        detail: 'resourceNames cannot be used with a "*" resource',
      });
  });
}
