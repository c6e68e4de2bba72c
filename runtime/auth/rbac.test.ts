import { describe, expect, it } from 'vitest';
import { requestAttributes } from './attributes.js';
import { AuthorizerChain, forbiddenMessage } from './authorize.js';
import { bootstrapPolicy } from '../../reference/access/index.js';
import { RbacAuthorizer, StaticRbacLister, type BindingObject, type RoleObject } from './rbac.js';
import { type PolicyRule, ruleAllows, subjectMatches } from './rbac-rules.js';
import type { UserInfo } from './user.js';

/** Rows: a rule, a request (method, path[?query]) and whether the rule allows it. */
const RULE_TABLE: [string, PolicyRule, string, string, boolean][] = [
  ['exact verb, group, resource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, 'GET', '/api/v1/namespaces/ns/pods/p', true],
  ['another verb', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, 'DELETE', '/api/v1/namespaces/ns/pods/p', false],
  ['get does not cover list', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, 'GET', '/api/v1/namespaces/ns/pods', false],
  ['list', { verbs: ['list'], apiGroups: [''], resources: ['pods'] }, 'GET', '/api/v1/namespaces/ns/pods', true],
  [
    'list does not cover watch',
    { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
    'GET',
    '/api/v1/namespaces/ns/pods?watch=1',
    false,
  ],
  ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, 'DELETE', '/api/v1/namespaces/ns/pods', true],
  ['another group', { verbs: ['*'], apiGroups: ['apps.svc.io'], resources: ['pods'] }, 'GET', '/api/v1/namespaces/ns/pods/p', false],
  [
    'group *',
    { verbs: ['*'], apiGroups: ['*'], resources: ['deployments'] },
    'GET',
    '/apis/apps.svc.io/v1/namespaces/ns/deployments/d',
    true,
  ],
  ['no apiGroups matches nothing', { verbs: ['*'], resources: ['pods'] }, 'GET', '/api/v1/namespaces/ns/pods/p', false],
  [
    'resource does not cover its subresource',
    { verbs: ['*'], apiGroups: [''], resources: ['pods'] },
    'PUT',
    '/api/v1/namespaces/ns/pods/p/status',
    false,
  ],
  [
    'resource/subresource',
    { verbs: ['update'], apiGroups: [''], resources: ['pods/status'] },
    'PUT',
    '/api/v1/namespaces/ns/pods/p/status',
    true,
  ],
  [
    'resource/subresource does not cover the resource',
    { verbs: ['update'], apiGroups: [''], resources: ['pods/status'] },
    'PUT',
    '/api/v1/namespaces/ns/pods/p',
    false,
  ],
  [
    '*/subresource',
    { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] },
    'PUT',
    '/apis/apps.svc.io/v1/namespaces/ns/deployments/d/status',
    true,
  ],
  [
    '*/subresource does not cover another subresource',
    { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] },
    'PUT',
    '/apis/apps.svc.io/v1/namespaces/ns/deployments/d/scale',
    false,
  ],
  [
    '*/subresource does not cover the resource',
    { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] },
    'PUT',
    '/apis/apps.svc.io/v1/namespaces/ns/deployments/d',
    false,
  ],
  ['resource * covers subresources', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, 'GET', '/api/v1/namespaces/ns/pods/p/log', true],
  [
    'resourceNames match the name',
    { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
    'GET',
    '/api/v1/namespaces/ns/configmaps/a',
    true,
  ],
  [
    'resourceNames exclude other names',
    { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
    'GET',
    '/api/v1/namespaces/ns/configmaps/b',
    false,
  ],
  [
    'resourceNames never match list',
    { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
    'GET',
    '/api/v1/namespaces/ns/configmaps',
    false,
  ],
  [
    'resourceNames never match watch',
    { verbs: ['watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
    'GET',
    '/api/v1/namespaces/ns/configmaps?watch=true',
    false,
  ],
  [
    'resourceNames never match create',
    { verbs: ['create'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
    'POST',
    '/api/v1/namespaces/ns/configmaps',
    false,
  ],
  [
    'resourceNames never match deletecollection',
    { verbs: ['deletecollection'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
    'DELETE',
    '/api/v1/namespaces/ns/configmaps',
    false,
  ],
  [
    'resourceNames match a list pinned by a metadata.name field selector',
    { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
    'GET',
    '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Da',
    true,
  ],
  [
    'resourceNames match a subresource of the named object',
    { verbs: ['update'], apiGroups: [''], resources: ['pods/status'], resourceNames: ['p'] },
    'PUT',
    '/api/v1/namespaces/ns/pods/p/status',
    true,
  ],
  ['nonResourceURLs exact', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, 'GET', '/healthz', true],
  ['nonResourceURLs exact does not cover a sub-path', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, 'GET', '/healthz/ready', false],
  ['nonResourceURLs trailing * is a prefix', { verbs: ['get'], nonResourceURLs: ['/healthz*'] }, 'GET', '/healthz/ready', true],
  ['nonResourceURLs /* covers all paths', { verbs: ['get'], nonResourceURLs: ['/*'] }, 'GET', '/version', true],
  ['nonResourceURLs * covers all paths', { verbs: ['get'], nonResourceURLs: ['*'] }, 'GET', '/apis', true],
  ['nonResourceURLs verb is the lowercase method', { verbs: ['get'], nonResourceURLs: ['/metrics'] }, 'POST', '/metrics', false],
  ['nonResourceURLs post', { verbs: ['post'], nonResourceURLs: ['/metrics'] }, 'POST', '/metrics', true],
  ['resource rules do not cover non-resource paths', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, 'GET', '/healthz', false],
  ['non-resource rules do not cover resources', { verbs: ['*'], nonResourceURLs: ['*'] }, 'GET', '/api/v1/namespaces/ns/pods', false],
  [
    'cluster-scoped resource',
    { verbs: ['get'], apiGroups: ['rbac.authorization.svc.io'], resources: ['clusterroles'] },
    'GET',
    '/apis/rbac.authorization.svc.io/v1/clusterroles/admin',
    true,
  ],
];

function attrs(method: string, url: string) {
  const [path, query = ''] = url.split('?') as [string, string?];
  return requestAttributes(method, path, query);
}

describe('ruleAllows (rule semantics as a table)', () => {
  it.each(RULE_TABLE)('%s', (_name, rule, method, url, allowed) => {
    expect(ruleAllows(rule, attrs(method, url))).toBe(allowed);
  });
});

const alice: UserInfo = { username: 'alice', groups: ['devs', 'system:authenticated'], extra: {} };
const builder: UserInfo = { username: 'system:serviceaccount:ci:builder', groups: ['system:serviceaccounts'], extra: {} };

describe('subjectMatches', () => {
  it.each([
    [{ kind: 'User', name: 'alice' }, alice, '', true],
    [{ kind: 'User', name: 'bob' }, alice, '', false],
    [{ kind: 'Group', name: 'devs' }, alice, '', true],
    [{ kind: 'Group', name: 'alice' }, alice, '', false],
    [{ kind: 'ServiceAccount', name: 'builder', namespace: 'ci' }, builder, '', true],
    [{ kind: 'ServiceAccount', name: 'builder' }, builder, 'ci', true],
    [{ kind: 'ServiceAccount', name: 'builder' }, builder, '', false],
    [{ kind: 'ServiceAccount', name: 'builder', namespace: 'prod' }, builder, 'ci', false],
    [{ kind: 'User', name: 'system:serviceaccount:ci:builder' }, builder, '', true],
    [{ kind: 'Robot', name: 'alice' }, alice, '', false],
  ] as const)('%j for %j in namespace %j -> %j', (subject, user, ns, expected) => {
    expect(subjectMatches(subject, user, ns)).toBe(expected);
  });
});

const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.svc.io', kind, name });
const clusterRoles: RoleObject[] = [
  { metadata: { name: 'pod-reader' }, rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }] },
  { metadata: { name: 'health' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/healthz/*'] }] },
];
const roles: RoleObject[] = [
  {
    metadata: { name: 'deployer', namespace: 'ci' },
    rules: [{ verbs: ['*'], apiGroups: ['apps.svc.io'], resources: ['deployments', 'deployments/scale'] }],
  },
];
const clusterRoleBindings: BindingObject[] = [
  {
    metadata: { name: 'everyone-health' },
    subjects: [{ kind: 'Group', name: 'system:authenticated' }],
    roleRef: ref('ClusterRole', 'health'),
  },
  { metadata: { name: 'dangling' }, subjects: [{ kind: 'User', name: 'alice' }], roleRef: ref('ClusterRole', 'gone') },
];
const roleBindings: BindingObject[] = [
  {
    metadata: { name: 'devs-read-pods', namespace: 'dev' },
    subjects: [{ kind: 'Group', name: 'devs' }],
    roleRef: ref('ClusterRole', 'pod-reader'),
  },
  {
    metadata: { name: 'builder-deploys', namespace: 'ci' },
    subjects: [{ kind: 'ServiceAccount', name: 'builder' }],
    roleRef: ref('Role', 'deployer'),
  },
  {
    metadata: { name: 'cross-namespace-role', namespace: 'dev' },
    subjects: [{ kind: 'User', name: 'alice' }],
    roleRef: ref('Role', 'deployer'),
  },
];
const rbac = new RbacAuthorizer(new StaticRbacLister({ roles, clusterRoles, roleBindings, clusterRoleBindings }));

describe('RbacAuthorizer', () => {
  it('allows through a RoleBinding of a ClusterRole in its namespace and names binding, role and subject', async () => {
    const r = await rbac.authorize({ user: alice, attributes: attrs('GET', '/api/v1/namespaces/dev/pods') });
    expect(r).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by RoleBinding "dev/devs-read-pods" of ClusterRole "pod-reader" (rule 0) to Group "devs"',
    });
  });

  it('grants a RoleBinding only in its own namespace', async () => {
    expect((await rbac.authorize({ user: alice, attributes: attrs('GET', '/api/v1/namespaces/prod/pods') })).decision).toBe('NoOpinion');
    expect((await rbac.authorize({ user: alice, attributes: attrs('GET', '/api/v1/pods') })).decision).toBe('NoOpinion');
  });

  it('resolves a Role in the binding namespace for a service account', async () => {
    const r = await rbac.authorize({ user: builder, attributes: attrs('PUT', '/apis/apps.svc.io/v1/namespaces/ci/deployments/web/scale') });
    expect(r).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by RoleBinding "ci/builder-deploys" of Role "deployer" (rule 0) to ServiceAccount "ci/builder"',
    });
    expect(
      (await rbac.authorize({ user: builder, attributes: attrs('PUT', '/apis/apps.svc.io/v1/namespaces/ci/deployments/web/status') }))
        .decision,
    ).toBe('NoOpinion');
  });

  it('does not resolve a Role of another namespace', async () => {
    const r = await rbac.authorize({ user: alice, attributes: attrs('GET', '/apis/apps.svc.io/v1/namespaces/dev/deployments') });
    expect(r.decision).toBe('NoOpinion');
    expect(r.error).toContain('RoleBinding "dev/cross-namespace-role" references Role "deployer", which does not exist');
  });

  it('allows non-resource paths through ClusterRoleBindings', async () => {
    const r = await rbac.authorize({ user: alice, attributes: attrs('GET', '/healthz/ready') });
    expect(r).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "everyone-health" of ClusterRole "health" (rule 0) to Group "system:authenticated"',
    });
  });

  it('never denies, and reports bindings to missing roles', async () => {
    const r = await rbac.authorize({ user: alice, attributes: attrs('DELETE', '/api/v1/namespaces/dev/pods/p') });
    expect(r).toEqual({
      decision: 'NoOpinion',
      reason: '',
      explanation: 'RBAC: no binding grants the request',
      error:
        'ClusterRoleBinding "dangling" references ClusterRole "gone", which does not exist; RoleBinding "dev/cross-namespace-role" references Role "deployer", which does not exist',
    });
  });

  it('in a chain, explains each step and forbids when nobody allows', async () => {
    const chain = new AuthorizerChain([rbac]);
    const a = attrs('DELETE', '/api/v1/namespaces/dev/pods/p');
    const r = await chain.authorize({ user: alice, attributes: a });
    expect(r.allowed).toBe(false);
    expect(r.steps).toHaveLength(1);
    expect(forbiddenMessage(alice, a, r.reason)).toBe(
      'User "alice" cannot delete resource "pods" in API group "" in the namespace "dev": (ClusterRoleBinding "dangling" references ClusterRole "gone", which does not exist; RoleBinding "dev/cross-namespace-role" references Role "deployer", which does not exist)',
    );
    // A plain no-match gives no reason, as upstream's RBAC: the message ends with the scope.
    const other = attrs('DELETE', '/api/v1/namespaces/prod/pods/p');
    const plain = await new AuthorizerChain([new RbacAuthorizer(new StaticRbacLister({}))]).authorize({ user: alice, attributes: other });
    expect(forbiddenMessage(alice, other, plain.reason)).toBe(
      'User "alice" cannot delete resource "pods" in API group "" in the namespace "prod"',
    );
  });
});

describe('ClusterRole aggregation', () => {
  const lister = new StaticRbacLister({
    clusterRoles: [
      {
        metadata: { name: 'monitoring' },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.svc.io/aggregate-to-monitoring': 'true' } }] },
        rules: [],
      },
      {
        metadata: { name: 'metrics-reader', labels: { 'rbac.example.svc.io/aggregate-to-monitoring': 'true' } },
        rules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }],
      },
      {
        metadata: { name: 'pod-watcher', labels: { 'rbac.example.svc.io/aggregate-to-monitoring': 'false' } },
        rules: [{ verbs: ['watch'], apiGroups: [''], resources: ['pods'] }],
      },
    ],
    clusterRoleBindings: [
      { metadata: { name: 'mon' }, subjects: [{ kind: 'User', name: 'alice' }], roleRef: ref('ClusterRole', 'monitoring') },
    ],
  });
  const authorizer = new RbacAuthorizer(lister);

  it('grants the rules of the ClusterRoles the selectors match, naming where the rule came from', async () => {
    const r = await authorizer.authorize({ user: alice, attributes: attrs('GET', '/metrics') });
    expect(r).toEqual({
      decision: 'Allow',
      reason:
        'RBAC: allowed by ClusterRoleBinding "mon" of ClusterRole "monitoring" (rule 0 aggregated from ClusterRole "metrics-reader") to User "alice"',
    });
  });

  it('does not grant the rules of ClusterRoles the selectors do not match', async () => {
    expect((await authorizer.authorize({ user: alice, attributes: attrs('GET', '/api/v1/pods?watch=1') })).decision).toBe('NoOpinion');
  });
});

describe("upstream's user-facing roles in the bootstrap policy", () => {
  const policy = bootstrapPolicy();
  const clusterRoles = policy.filter((m) => m.kind === 'ClusterRole') as unknown as RoleObject[];
  const bound = (role: string) =>
    new RbacAuthorizer(
      new StaticRbacLister({
        clusterRoles,
        roleBindings: [
          { metadata: { name: 'b', namespace: 'team' }, subjects: [{ kind: 'User', name: 'alice' }], roleRef: ref('ClusterRole', role) },
        ],
      }),
    );
  const can = async (role: string, method: string, url: string) =>
    (await bound(role).authorize({ user: alice, attributes: attrs(method, url) })).decision === 'Allow';

  it.each([
    ['view', 'GET', '/api/v1/namespaces/team/pods', true],
    ['view', 'GET', '/apis/apps/v1/namespaces/team/deployments/d/scale', true],
    ['view', 'GET', '/api/v1/namespaces/team/secrets', false],
    ['view', 'POST', '/api/v1/namespaces/team/configmaps', false],
    ['edit', 'GET', '/api/v1/namespaces/team/secrets', true],
    ['edit', 'POST', '/apis/apps/v1/namespaces/team/deployments', true],
    ['edit', 'PUT', '/apis/coordination.svc.io/v1/namespaces/team/leases/l', true],
    // edit gathers view's rules through view joining it.
    ['edit', 'GET', '/apis/discovery.svc.io/v1/namespaces/team/endpointslices', true],
    ['edit', 'POST', '/apis/rbac.authorization.svc.io/v1/namespaces/team/roles', false],
    ['admin', 'POST', '/apis/rbac.authorization.svc.io/v1/namespaces/team/rolebindings', true],
    // admin gathers edit, which gathers view: two levels of aggregation.
    ['admin', 'POST', '/api/v1/namespaces/team/serviceaccounts/sa/token', true],
    ['admin', 'GET', '/api/v1/namespaces/team/pods/p/log', true],
    ['admin', 'DELETE', '/api/v1/nodes/n', false],
  ])('%s: %s %s is %s', async (role, method, url, allowed) => {
    expect(await can(role, method, url)).toBe(allowed);
  });

  it('names the groups under the server suffix', () => {
    const view = bootstrapPolicy('k8s.io').find((m) => m.metadata.name === 'system:aggregate-to-view') as unknown as RoleObject;
    expect(view.metadata.labels).toMatchObject({ 'rbac.authorization.k8s.io/aggregate-to-view': 'true' });
    expect(view.rules?.flatMap((r) => r.apiGroups ?? [])).toContain('discovery.k8s.io');
  });
});
