/**
 * The reference server with access control, end to end over HTTPS: the certificates `--secure`
 * makes, client certificates verified by the TLS layer, a static token file, anonymous requests,
 * RBAC over objects created through the API (a new binding takes effect for the next request),
 * upstream's 401 and 403 bodies, the dry-run and apply-creates rules, impersonation, the access
 * reviews and the explain endpoint. Real TLS peers throughout; nothing is mocked.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertificateAuthority, certificateAuthority, parseTokenFile } from '../runtime/auth/index.js';
import type { AccessControlOptions } from './access-control.js';
import { type RunningServer, startReferenceServer } from './reference-server.js';
import { prepareSecureServing, type SecureServing } from './secure-serving.js';

const TOKENS = 'alice-token,alice,1001,devs\nbob-token,bob,1002\n';
const RBAC = '/apis/rbac.authorization.svc.io/v1';

interface Identity {
  token?: string;
  cert?: { cert: string; key: string };
  headers?: Record<string, string | string[]>;
}

let dir: string;
let secure: SecureServing;
let server: RunningServer;
/** A CA the server does not trust. */
let other: CertificateAuthority;

async function call(who: Identity, method: string, path: string, body?: unknown) {
  const agent = new Agent({ connect: { ca: secure.ca, ...(who.cert ?? {}) } });
  try {
    const res = await request(`${server.url}${path}`, {
      method: method as 'GET',
      dispatcher: agent,
      headers: {
        ...(body !== undefined ? { 'content-type': method === 'PATCH' ? 'application/apply-patch+yaml' : 'application/json' } : {}),
        ...(who.token ? { authorization: `Bearer ${who.token}` } : {}),
        ...who.headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.body.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.statusCode, body: json };
  } finally {
    await agent.close();
  }
}

const admin = (): Identity => ({ cert: secure.admin });
const alice: Identity = { token: 'alice-token' };
const anonymous: Identity = {};

function role(namespace: string, name: string, rules: unknown[]) {
  return { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'Role', metadata: { name, namespace }, rules };
}
function roleBinding(namespace: string, name: string, roleName: string, user: string) {
  return {
    apiVersion: 'rbac.authorization.svc.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'Role', name: roleName },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.svc.io', name: user }],
  };
}

/** Polls until `check` holds (no timing assumptions: the condition decides). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never: ${what}`);
}

async function start(access: Partial<AccessControlOptions> = {}): Promise<RunningServer> {
  return startReferenceServer({
    store: 'memory',
    port: 0,
    access: { tls: secure.tls, tokens: parseTokenFile(TOKENS), authorizationModes: ['RBAC'], ...access },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-access-'));
  secure = prepareSecureServing(dir, '127.0.0.1');
  mkdirSync(join(dir, 'other'));
  other = certificateAuthority(join(dir, 'other'), { name: 'another CA' });
  server = await start();
  const ns = await call(admin(), 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  expect(ns.status).toBe(201);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('authentication', () => {
  it('serves HTTPS; the admin certificate (O=system:masters) may do anything', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const r = await call(admin(), 'GET', '/api/v1/namespaces');
    expect(r.status).toBe(200);
    expect(r.body.items.map((n: any) => n.metadata.name)).toContain('default');
  });

  it('a request without credentials is system:anonymous: public paths only, everything else 403 naming the user', async () => {
    expect((await call(anonymous, 'GET', '/healthz')).status).toBe(200);
    expect((await call(anonymous, 'GET', '/version')).status).toBe(200);
    const r = await call(anonymous, 'GET', '/api/v1/namespaces/team/pods');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403, details: { kind: 'pods' } });
    expect(r.body.message).toMatch(
      /^pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "team"/,
    );
    // Discovery is for authenticated users only (system:discovery).
    expect((await call(anonymous, 'GET', '/apis')).status).toBe(403);
    expect((await call(alice, 'GET', '/apis')).status).toBe(200);
  });

  it('authentication comes before everything else: a bad credential with an unacceptable Accept is 401, not 406', async () => {
    const r = await call({ token: 'not-a-token', headers: { accept: 'application/x-nothing' } }, 'GET', '/api/v1/namespaces');
    expect(r.status).toBe(401);
    expect((await call({ ...admin(), headers: { accept: 'application/x-nothing' } }, 'GET', '/api/v1/namespaces')).status).toBe(406);
  });

  it('a presented but invalid credential is 401 even though anonymous requests are allowed', async () => {
    const r = await call({ token: 'not-a-token' }, 'GET', '/healthz');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    // A certificate from a CA the server does not trust: the TLS layer's verdict, then 401.
    const stranger = other.issue('mallory', { subject: { cn: 'mallory', o: ['system:masters'] }, usage: 'clientAuth' });
    expect((await call({ cert: stranger }, 'GET', '/api/v1/namespaces')).status).toBe(401);
  });

  it('a client certificate of the trusted CA without the clientAuth usage is refused', async () => {
    const serverUsage = certificateAuthority(dir).issue('not-client', {
      subject: { cn: 'eve', o: ['system:masters'] },
      usage: 'serverAuth',
    });
    const r = await call({ cert: serverUsage }, 'GET', '/api/v1/namespaces');
    expect(r.status).toBe(401);
    // Node's TLS layer checks the purpose already (INVALID_PURPOSE); the authenticator would refuse it too.
    expect(r.body.message).toMatch(/INVALID_PURPOSE|clientAuth/);
  });

  it('with --anonymous-auth=false a request without credentials is 401, even for /healthz', async () => {
    const closed = await start({ anonymous: false });
    try {
      const agent = new Agent({ connect: { ca: secure.ca } });
      const res = await request(`${closed.url}/healthz`, { dispatcher: agent });
      expect(res.statusCode).toBe(401);
      await res.body.dump();
      await agent.close();
    } finally {
      await closed.close();
    }
  });

  it('authenticated users are in system:authenticated, with the token file groups', async () => {
    const r = await call(alice, 'GET', '/debug/svckit/explain?path=/version');
    // alice may not read the explain endpoint; the 403 names her.
    expect(r.status).toBe(403);
    const e = await call(admin(), 'GET', '/debug/svckit/explain?path=/api/v1/namespaces/team/pods&user=alice&group=devs');
    expect(e.body.groups).toEqual(['devs', 'system:authenticated']);
  });
});

describe('authorization by RBAC objects created through the API', () => {
  it('a RoleBinding takes effect for the next request, in its own namespace only', async () => {
    expect((await call(alice, 'GET', '/api/v1/namespaces/team/configmaps')).status).toBe(403);
    const reader = role('team', 'cm-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
    expect((await call(admin(), 'POST', `${RBAC}/namespaces/team/roles`, reader)).status).toBe(201);
    expect(
      (await call(admin(), 'POST', `${RBAC}/namespaces/team/rolebindings`, roleBinding('team', 'alice-reads', 'cm-reader', 'alice')))
        .status,
    ).toBe(201);
    await eventually(async () => (await call(alice, 'GET', '/api/v1/namespaces/team/configmaps')).status === 200, 'alice lists configmaps');
    expect((await call(alice, 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(403);
    // pods/status is not pods, and configmaps is not secrets.
    expect((await call(alice, 'GET', '/api/v1/namespaces/team/secrets')).status).toBe(403);
  });

  it('a dry-run needs the same permission as the real request', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } };
    const r = await call(alice, 'POST', '/api/v1/namespaces/team/configmaps?dryRun=All', cm);
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/User "alice" cannot create resource "configmaps" in API group "" in the namespace "team"/);
  });

  it('apply that would create the object needs create, not only patch', async () => {
    const patcher = role('team', 'cm-patcher', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['patch'] }]);
    await call(admin(), 'POST', `${RBAC}/namespaces/team/roles`, patcher);
    await call(admin(), 'POST', `${RBAC}/namespaces/team/rolebindings`, roleBinding('team', 'alice-patches', 'cm-patcher', 'alice'));
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '1' } };
    const path = '/api/v1/namespaces/team/configmaps/applied?fieldManager=alice';
    await eventually(async () => (await call(alice, 'PATCH', path, cm)).status === 403, 'apply-create refused');
    const refused = await call(alice, 'PATCH', path, cm);
    expect(refused.body.message).toMatch(/User "alice" cannot create resource "configmaps"/);
    expect((await call(admin(), 'GET', '/api/v1/namespaces/team/configmaps/applied')).status).toBe(404);
    // Once the object exists, patch is enough.
    expect((await call(admin(), 'POST', '/api/v1/namespaces/team/configmaps', cm)).status).toBe(201);
    const updated = await call(alice, 'PATCH', `${path}&force=true`, { ...cm, data: { a: '2' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ a: '2' });
  });
});

describe('impersonation', () => {
  it('needs the impersonate verb; with it the request is the impersonated user', async () => {
    const r = await call({ ...alice, headers: { 'impersonate-user': 'bob' } }, 'GET', '/api/v1/namespaces/team/configmaps');
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(
      /^users.authentication.svc.io "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "authentication.svc.io"/,
    );
    const as = await call({ ...admin(), headers: { 'impersonate-user': 'bob' } }, 'GET', '/api/v1/namespaces/team/configmaps');
    expect(as.status).toBe(403);
    expect(as.body.message).toMatch(/User "bob" cannot list resource "configmaps"/);
    const groupOnly = await call({ ...admin(), headers: { 'impersonate-group': 'devs' } }, 'GET', '/version');
    expect(groupOnly.status).toBe(400);
  });

  it('a service account gets its groups; extras need impersonate on userextras/<key>', async () => {
    const bot = { ...admin(), headers: { 'impersonate-user': 'system:serviceaccount:team:bot' } };
    expect((await call(bot, 'GET', '/api/v1/namespaces/team/services')).status).toBe(403);
    const viewer = role('team', 'svc-viewer', [{ apiGroups: [''], resources: ['services'], verbs: ['list'] }]);
    await call(admin(), 'POST', `${RBAC}/namespaces/team/roles`, viewer);
    const binding = {
      ...roleBinding('team', 'team-sas', 'svc-viewer', 'nobody'),
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.svc.io', name: 'system:serviceaccounts:team' }],
    };
    expect((await call(admin(), 'POST', `${RBAC}/namespaces/team/rolebindings`, binding)).status).toBe(201);
    await eventually(
      async () => (await call(bot, 'GET', '/api/v1/namespaces/team/services')).status === 200,
      'the service account group grants',
    );
    // alice may impersonate bob but not give him extras.
    const imp = {
      apiVersion: 'rbac.authorization.svc.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'impersonate-bob' },
      rules: [{ apiGroups: ['authentication.svc.io'], resources: ['users'], resourceNames: ['bob'], verbs: ['impersonate'] }],
    };
    await call(admin(), 'POST', `${RBAC}/clusterroles`, imp);
    await call(admin(), 'POST', `${RBAC}/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.svc.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'alice-impersonates-bob' },
      roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'impersonate-bob' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.svc.io', name: 'alice' }],
    });
    const asBob = { ...alice, headers: { 'impersonate-user': 'bob' } };
    await eventually(async () => (await call(asBob, 'GET', '/apis')).status === 200, 'alice impersonates bob');
    const withExtra = await call({ ...alice, headers: { 'impersonate-user': 'bob', 'impersonate-extra-scopes': 'all' } }, 'GET', '/apis');
    expect(withExtra.status).toBe(403);
    expect(withExtra.body.message).toMatch(/cannot impersonate resource "userextras\/scopes"/);
    expect((await call({ ...alice, headers: { 'impersonate-user': 'carol' } }, 'GET', '/apis')).status).toBe(403);
  });
});

describe('access reviews and the explain endpoint answer from the real chain', () => {
  it('SubjectAccessReview, SelfSubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview', async () => {
    const sar = await call(admin(), 'POST', '/apis/authorization.svc.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.svc.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'alice', resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: 'team' } },
    });
    expect(sar.body.status).toMatchObject({ allowed: true });
    expect(sar.body.status.reason).toMatch(/RoleBinding "team\/alice-reads" of Role "cm-reader"/);
    const self = await call(alice, 'POST', '/apis/authorization.svc.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.svc.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'delete', resource: 'configmaps', namespace: 'team' } },
    });
    expect(self.status).toBe(201);
    expect(self.body.status.allowed).toBe(false);
    expect(self.body.status.denied).toBeUndefined();
    const local = await call(admin(), 'POST', '/apis/authorization.svc.io/v1/namespaces/team/localsubjectaccessreviews', {
      apiVersion: 'authorization.svc.io/v1',
      kind: 'LocalSubjectAccessReview',
      spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default' } },
    });
    expect(local.status).toBe(422);
    const rules = await call(alice, 'POST', '/apis/authorization.svc.io/v1/selfsubjectrulesreviews', {
      apiVersion: 'authorization.svc.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'team' },
    });
    expect(rules.body.status.incomplete).toBe(false);
    expect(rules.body.status.resourceRules).toContainEqual({ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] });
    // kubectl's name of the group is answered in kubectl's apiVersion.
    const kubectlName = await call(alice, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: 'team' } },
    });
    expect(kubectlName.body).toMatchObject({ apiVersion: 'authorization.k8s.io/v1', status: { allowed: true } });
  });

  it('explains who the caller is and which binding allowed, or why every authorizer said no', async () => {
    const mine = await call(
      admin(),
      'GET',
      `/debug/svckit/explain?method=DELETE&path=${encodeURIComponent('/api/v1/namespaces/team/pods/web')}`,
    );
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ user: 'svckit-admin', authenticatedBy: 'x509', allowed: true, decidedBy: 'privileged-groups' });
    const hers = await call(admin(), 'GET', '/debug/svckit/explain?path=/api/v1/namespaces/team/secrets&user=alice');
    expect(hers.body.allowed).toBe(false);
    expect(hers.body.text).toContain('forbidden: list secrets in API group "" in namespace "team"');
    expect(hers.body.text).toContain('rbac: NoOpinion: RBAC: no binding grants the request');
  });
});
