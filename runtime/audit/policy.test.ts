import { describe, expect, it } from 'vitest';
import { type UserInfo, requestAttributes } from '../auth/index.js';
import { AuditPolicy, type PolicyInput, isAuditPolicyError } from './index.js';

const alice: UserInfo = { username: 'alice', groups: ['dev', 'system:authenticated'], extra: {} };
const bob: UserInfo = { username: 'bob', groups: ['ops'], extra: {} };

/** The level a policy decides for `METHOD path?query` by `user`. */
function levelOf(policy: AuditPolicy, request: string, user: UserInfo | null = alice): string {
  const [method, target] = request.split(' ') as [string, string];
  const [path, query = ''] = target.split('?') as [string, string?];
  return policy.evaluate({ user: user ?? undefined, attributes: requestAttributes(method, path, query) }).level;
}

const policy = (rules: PolicyInput['rules'], extra: Omit<PolicyInput, 'rules'> = {}) => AuditPolicy.compile({ rules, ...extra });

describe('the audit policy', () => {
  it('uses the first matching rule; a request no rule matches is not recorded', () => {
    const p = policy([
      { level: 'None', users: ['bob'] },
      { level: 'RequestResponse', verbs: ['create'] },
      { level: 'Metadata', verbs: ['get', 'create'] },
    ]);
    expect(levelOf(p, 'POST /api/v1/namespaces/a/pods', bob)).toBe('None');
    expect(levelOf(p, 'POST /api/v1/namespaces/a/pods')).toBe('RequestResponse');
    expect(levelOf(p, 'GET /api/v1/namespaces/a/pods/x')).toBe('Metadata');
    expect(levelOf(p, 'GET /api/v1/namespaces/a/pods')).toBe('None'); // list
  });

  it('matches users, any of the user groups, and never a request whose authentication failed', () => {
    const p = policy([
      { level: 'Request', userGroups: ['ops', 'qa'] },
      { level: 'Metadata', users: ['alice'] },
    ]);
    expect(levelOf(p, 'GET /version', bob)).toBe('Request');
    expect(levelOf(p, 'GET /version', alice)).toBe('Metadata');
    expect(levelOf(p, 'GET /version', null)).toBe('None');
  });

  it('matches resources with the subresource forms and resource names', () => {
    const p = policy([
      { level: 'RequestResponse', resources: [{ group: '', resources: ['pods/log'] }] },
      { level: 'Request', resources: [{ group: 'apps', resources: ['*/status'] }] },
      { level: 'Metadata', resources: [{ group: '', resources: ['services/*'] }] },
      { level: 'Request', resources: [{ group: '', resources: ['configmaps'], resourceNames: ['cfg'] }] },
      { level: 'None' },
    ]);
    expect(levelOf(p, 'GET /api/v1/namespaces/a/pods/x/log')).toBe('RequestResponse');
    expect(levelOf(p, 'GET /api/v1/namespaces/a/pods/x')).toBe('None');
    expect(levelOf(p, 'PUT /apis/apps/v1/namespaces/a/deployments/d/status')).toBe('Request');
    expect(levelOf(p, 'PUT /apis/apps/v1/namespaces/a/deployments/d')).toBe('None');
    expect(levelOf(p, 'PUT /api/v1/namespaces/a/pods/x/status')).toBe('None'); // */status is in group apps only
    expect(levelOf(p, 'GET /api/v1/namespaces/a/services/s/proxy')).toBe('Metadata');
    expect(levelOf(p, 'PUT /api/v1/namespaces/a/services/s/status')).toBe('Metadata');
    expect(levelOf(p, 'GET /api/v1/namespaces/a/services/s')).toBe('Metadata'); // services/* covers the resource too
    expect(levelOf(p, 'GET /api/v1/namespaces/a/configmaps/cfg')).toBe('Request');
    expect(levelOf(p, 'GET /api/v1/namespaces/a/configmaps/other')).toBe('None');
  });

  it('matches "*" resources and a group with no resources listed (every resource and subresource of it)', () => {
    const p = policy([{ level: 'Metadata', resources: [{ group: 'batch' }, { group: '', resources: ['*'] }] }]);
    expect(levelOf(p, 'GET /apis/batch/v1/namespaces/a/jobs/j/status')).toBe('Metadata');
    expect(levelOf(p, 'GET /api/v1/namespaces/a/pods/x/log')).toBe('Metadata');
    expect(levelOf(p, 'GET /apis/apps/v1/namespaces/a/deployments')).toBe('None');
    expect(levelOf(p, 'GET /healthz')).toBe('None'); // resource rules never match non-resource requests
  });

  it('matches namespaces, the empty string standing for cluster-scoped requests', () => {
    const p = policy([{ level: 'Metadata', namespaces: ['kube', ''] }]);
    expect(levelOf(p, 'GET /api/v1/namespaces/kube/pods')).toBe('Metadata');
    expect(levelOf(p, 'GET /api/v1/nodes/n1')).toBe('Metadata');
    expect(levelOf(p, 'GET /api/v1/namespaces/other/pods')).toBe('None');
  });

  it('matches non-resource URLs exactly or by a * suffix, never resource requests', () => {
    const p = policy([
      { level: 'None', nonResourceURLs: ['/healthz*', '/version'] },
      { level: 'Metadata', nonResourceURLs: ['*'] },
    ]);
    expect(levelOf(p, 'GET /healthz')).toBe('None');
    expect(levelOf(p, 'GET /healthz/ping')).toBe('None');
    expect(levelOf(p, 'GET /version')).toBe('None');
    expect(levelOf(p, 'GET /versions')).toBe('Metadata');
    expect(levelOf(p, 'GET /api/v1/pods')).toBe('None');
  });

  it('adds the policy omitStages to the rule ones; a rule omitManagedFields overrides the policy', () => {
    const p = policy(
      [{ level: 'Metadata', verbs: ['get'], omitStages: ['ResponseStarted'], omitManagedFields: false }, { level: 'Metadata' }],
      { omitStages: ['RequestReceived'], omitManagedFields: true },
    );
    const get = p.evaluate({ user: alice, attributes: requestAttributes('GET', '/api/v1/nodes/n') });
    expect([...get.omitStages].sort()).toEqual(['RequestReceived', 'ResponseStarted']);
    expect(get.omitManagedFields).toBe(false);
    const list = p.evaluate({ user: alice, attributes: requestAttributes('GET', '/api/v1/nodes') });
    expect([...list.omitStages]).toEqual(['RequestReceived']);
    expect(list.omitManagedFields).toBe(true);
  });

  it('refuses a policy of no rules and names every bad field', () => {
    const problems = (input: PolicyInput) => {
      try {
        AuditPolicy.compile(input);
        return 'accepted';
      } catch (e) {
        expect(isAuditPolicyError(e)).toBe(true);
        return (e as Error).message;
      }
    };
    expect(problems({ rules: [] })).toBe(
      'rules: Required value: a policy needs at least one rule (a policy of no rules would record nothing)',
    );
    expect(problems({})).toContain('rules: Required value');
    const message = problems({
      omitStages: ['Sent'],
      rules: [
        { level: 'Everything' },
        { level: 'None', nonResourceURLs: ['healthz', '/a*b'] },
        { level: 'None', namespaces: ['a'], nonResourceURLs: ['/x'] },
        { level: 'None', resources: [{ resourceNames: ['x'] }, { resources: ['*', 'pods'] }, { resources: ['pods/a/b'] }] },
      ],
    });
    expect(message.split('; ')).toEqual([
      'omitStages[0]: Unsupported value: "Sent": supported values: "RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"',
      'rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"',
      'rules[1].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with "/" (or be "*")',
      'rules[1].nonResourceURLs[1]: Invalid value: "/a*b": a wildcard "*" is allowed only at the end',
      'rules[2].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs',
      'rules[3].resources[0].resourceNames: Invalid value: []string{"x"}: using resourceNames requires at least one resource',
      'rules[3].resources[1].resources[0]: Invalid value: "*": a wildcard must not overlap other resources: use "*" alone, "<resource>/*" or "*/<subresource>"',
      'rules[3].resources[2].resources[0]: Invalid value: "pods/a/b": must be <resource>, <resource>/<subresource>, <resource>/*, */<subresource> or *',
    ]);
  });
});
