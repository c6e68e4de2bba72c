import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKubectl } from '../kubectl.testing.js';
import { type TestServer, startTestServer } from '../testing/index.js';

/**
 * RBAC escalation prevention as upstream's: bob may write roles and bindings in `default`, yet may
 * grant only what he holds, unless he may `escalate` (roles) or `bind` (bindings).
 */
const RBAC = 'rbac.authorization.svc.io';
const ROLES = `/apis/${RBAC}/v1/namespaces/default/roles`;
const BINDINGS = `/apis/${RBAC}/v1/namespaces/default/rolebindings`;
let server: TestServer;

async function call(user: string, method: string, path: string, body?: unknown, contentType = 'application/json') {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token(user)}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const role = (name: string, rules: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'Role',
  metadata: { name },
  rules,
  ...extra,
});
const CLUSTER_ROLES = `/apis/${RBAC}/v1/clusterroles`;
const clusterRole = (name: string, fields: Record<string, unknown>) => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRole',
  metadata: { name },
  ...fields,
});
const gathering = { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { gather: 'me' } }] } };
const binding = (name: string, roleRef: { kind: string; name: string }, user = 'carol') => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'RoleBinding',
  metadata: { name },
  roleRef: { apiGroup: RBAC, ...roleRef },
  subjects: [{ kind: 'User', apiGroup: RBAC, name: user }],
});

async function asAdmin(method: string, path: string, body: unknown): Promise<void> {
  const res = await call('admin', method, path, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
}

beforeAll(async () => {
  server = await startTestServer({ users: { bob: ['devs'], carol: [], frank: [] } });
  await asAdmin(
    'POST',
    ROLES,
    role('rbac-writer', [
      { apiGroups: [RBAC], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'patch', 'get'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    ]),
  );
  await asAdmin('POST', BINDINGS, binding('bob-writes-rbac', { kind: 'Role', name: 'rbac-writer' }, 'bob'));
});
afterAll(() => server.close());

describe('a role written by a user who lacks escalate', () => {
  it('is created when the user holds every rule it grants', async () => {
    expect((await call('bob', 'POST', ROLES, role('pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]))).status).toBe(
      201,
    );
  });

  it("is 403 naming the rules the user does not hold, in upstream's words", async () => {
    const res = await call(
      'bob',
      'POST',
      ROLES,
      role('pod-deleter', [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete', 'deletecollection'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
      ]),
    );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', details: { name: 'pod-deleter', kind: 'roles', group: RBAC } });
    expect(res.body.message).toBe(
      `roles.${RBAC} "pod-deleter" is forbidden: user "bob" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n` +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "deletecollection"]}',
    );
    expect((await call('admin', 'GET', `${ROLES}/pod-deleter`)).status).toBe(404);
  });

  it('is created once the user may escalate roles', async () => {
    await asAdmin('POST', ROLES, role('escalator', [{ apiGroups: [RBAC], resources: ['roles'], verbs: ['escalate'] }]));
    await asAdmin('POST', BINDINGS, binding('bob-escalates', { kind: 'Role', name: 'escalator' }, 'bob'));
    const res = await call('bob', 'POST', ROLES, role('secret-reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await call('admin', 'DELETE', `${BINDINGS}/bob-escalates`);
  });

  it('may change only owner references and finalizers of a role granting more than the user holds', async () => {
    await asAdmin('POST', ROLES, role('everything', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
    const gc = await call(
      'bob',
      'PATCH',
      `${ROLES}/everything`,
      { metadata: { finalizers: ['example.com/hold'] } },
      'application/merge-patch+json',
    );
    expect(gc.status, JSON.stringify(gc.body)).toBe(200);
    const label = await call('bob', 'PATCH', `${ROLES}/everything`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
    expect(label.status).toBe(403);
    expect(label.body.message).toContain('is attempting to grant RBAC permissions not currently held');
    await call('admin', 'PATCH', `${ROLES}/everything`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
  });
});

describe('a binding written by a user who lacks bind', () => {
  it('is created when the user holds every rule of the role it references', async () => {
    expect((await call('bob', 'POST', BINDINGS, binding('carol-reads', { kind: 'Role', name: 'pod-reader' }))).status).toBe(201);
  });

  it('is 403 when the referenced role grants more than the user holds', async () => {
    const res = await call('bob', 'POST', BINDINGS, binding('carol-admin', { kind: 'ClusterRole', name: 'cluster-admin' }));
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(
      new RegExp(
        `^rolebindings\\.${RBAC.replace(/\./g, '\\.')} "carol-admin" is forbidden: user "bob" .* is attempting to grant RBAC permissions not currently held:\\n`,
      ),
    );
    expect(res.body.message).toContain('{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}');
  });

  it('is 403 naming the missing role when the reference does not resolve', async () => {
    const res = await call('bob', 'POST', BINDINGS, binding('carol-missing', { kind: 'Role', name: 'missing' }));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(`rolebindings.${RBAC} "carol-missing" is forbidden: role.${RBAC} "missing" not found`);
  });

  it('is created once the user may bind that role', async () => {
    for (const name of ['viewer', 'editor']) {
      await asAdmin('POST', `/apis/${RBAC}/v1/clusterroles`, {
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRole',
        metadata: { name },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }],
      });
    }
    await call('admin', 'POST', `/apis/${RBAC}/v1/clusterroles`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'binds-view' },
      rules: [{ apiGroups: [RBAC], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['viewer'] }],
    });
    await asAdmin('POST', BINDINGS, binding('bob-binds-view', { kind: 'ClusterRole', name: 'binds-view' }, 'bob'));
    expect((await call('bob', 'POST', BINDINGS, binding('carol-view', { kind: 'ClusterRole', name: 'viewer' }))).status).toBe(201);
    // bind names one role: another granting the same still needs the rules.
    const edit = await call('bob', 'POST', BINDINGS, binding('carol-edit', { kind: 'ClusterRole', name: 'editor' }));
    expect(edit.status).toBe(403);
    expect(edit.body.message).toContain('{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}');
  });
});

describe("the namespace's admin (the bootstrap `admin` role)", () => {
  it('may bind `view` and `edit` in the namespace, which it holds through aggregation, and not cluster-admin', async () => {
    await asAdmin('POST', BINDINGS, binding('frank-admin', { kind: 'ClusterRole', name: 'admin' }, 'frank'));
    for (const role of ['view', 'edit']) {
      const res = await call('frank', 'POST', BINDINGS, binding(`carol-${role}-by-frank`, { kind: 'ClusterRole', name: role }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    expect((await call('frank', 'POST', BINDINGS, binding('carol-root', { kind: 'ClusterRole', name: 'cluster-admin' }))).status).toBe(403);
  });
});

describe('a cluster role with an aggregationRule', () => {
  it('needs every permission to be written, as it may gather anything', async () => {
    await call('admin', 'POST', `/apis/${RBAC}/v1/clusterroles`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'clusterrole-writer' },
      rules: [
        { apiGroups: [RBAC], resources: ['clusterroles'], verbs: ['create'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      ],
    });
    await call('admin', 'POST', `/apis/${RBAC}/v1/clusterrolebindings`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'bob-writes-clusterroles' },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'clusterrole-writer' },
      subjects: [{ kind: 'User', apiGroup: RBAC, name: 'bob' }],
    });
    const aggregated = await call('bob', 'POST', CLUSTER_ROLES, clusterRole('gathers', gathering));
    expect(aggregated.status).toBe(403);
    expect(aggregated.body.message).toBe(
      `clusterroles.${RBAC} "gathers" is forbidden: must have cluster-admin privileges to use the aggregationRule`,
    );
    const plain = await call(
      'bob',
      'POST',
      CLUSTER_ROLES,
      clusterRole('reads-pods', { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }),
    );
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
  });

  it('is written by a member of system:masters whatever it grants', async () => {
    const res = await call('admin', 'POST', CLUSTER_ROLES, clusterRole('admin-gathers', gathering));
    expect(res.status).toBe(201);
  });
});

describe('kubectl against the real group names', () => {
  it('reports the refusal of `kubectl create role` by a user without the rules', async () => {
    const real = await startTestServer({ users: { dave: [] }, groupSuffix: 'k8s.io', tls: true });
    try {
      const group = 'rbac.authorization.k8s.io';
      await real.install([
        {
          apiVersion: `${group}/v1`,
          kind: 'Role',
          metadata: { name: 'role-maker' },
          rules: [{ apiGroups: [group], resources: ['roles'], verbs: ['create'] }],
        },
        {
          apiVersion: `${group}/v1`,
          kind: 'RoleBinding',
          metadata: { name: 'dave-makes-roles' },
          roleRef: { apiGroup: group, kind: 'Role', name: 'role-maker' },
          subjects: [{ kind: 'User', apiGroup: group, name: 'dave' }],
        },
      ]);
      const kubeconfig = real.as('dave').configFile;
      const refused = await runKubectl(['--kubeconfig', kubeconfig, 'create', 'role', 'deleter', '--verb=delete', '--resource=pods']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(
        'roles.rbac.authorization.k8s.io "deleter" is forbidden: user "dave" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
      );
      const allowed = await runKubectl([
        '--kubeconfig',
        kubeconfig,
        'create',
        'role',
        'maker',
        `--verb=create`,
        `--resource=roles.${group}`,
      ]);
      expect(allowed.code, allowed.stderr).toBe(0);
    } finally {
      await real.close();
    }
  });
});

describe('aggregated ClusterRoles', () => {
  it('carry the gathered rules in `rules`, following the labelled roles as they change', async () => {
    const read = async (name: string) => (await call('admin', 'GET', `${CLUSTER_ROLES}/${name}`)).body;
    await server.settle();
    const view = await read('view');
    expect(view.aggregationRule).toBeDefined();
    expect(view.rules).toContainEqual({ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] });
    // admin gathers edit, which gathers view.
    expect((await read('admin')).rules).toContainEqual({ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] });

    const extra = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] };
    await asAdmin('POST', CLUSTER_ROLES, {
      ...clusterRole('widget-viewer', { rules: [extra] }),
      metadata: { name: 'widget-viewer', labels: { [`${RBAC}/aggregate-to-view`]: 'true' } },
    });
    await server.settle();
    expect((await read('view')).rules).toContainEqual(extra);
    expect((await read('admin')).rules).toContainEqual(extra);
    await call('admin', 'DELETE', `${CLUSTER_ROLES}/widget-viewer`);
    await server.settle();
    expect((await read('view')).rules).not.toContainEqual(extra);
    expect((await read('admin')).rules).not.toContainEqual(extra);
  });
});
