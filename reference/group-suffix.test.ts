/**
 * `--group-suffix k8s.io`: the reference server serves every group under the real system's name,
 * so unmodified kubectl typed commands work: `kubectl create role` and `create rolebinding` post
 * to `rbac.authorization.k8s.io` with that apiVersion, and `kubectl auth can-i` answers from RBAC
 * for a user with a token. Real kubectl over HTTPS with a real token file; nothing is mocked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTokenFile } from '../runtime/auth/index.js';
import { admissionWebhook, deny, serveWebhook } from '../runtime/webhook/index.js';
import { type RunningServer, startReferenceServer } from './reference-server.js';
import { type KubectlResult, runKubectl } from './kubectl.testing.js';
import { prepareSecureServing, type SecureServing } from './secure-serving.js';

const TOKENS = 'admin-token,admin,1000,system:masters\nalice-token,alice,1001\n';

let dir: string;
let secure: SecureServing;
let server: RunningServer;

/** kubectl as `user` (a token of the token file); never throws on a non-zero exit. */
async function kubectl(user: 'admin' | 'alice', ...args: string[]): Promise<KubectlResult> {
  return runKubectl(['--kubeconfig', join(dir, 'config'), '--context', user, '--cache-dir', join(dir, 'cache'), ...args]);
}

async function get(path: string, accept = 'application/json') {
  const agent = new Agent({ connect: { ca: secure.ca } });
  try {
    const res = await request(`${server.url}${path}`, { dispatcher: agent, headers: { authorization: 'Bearer admin-token', accept } });
    return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
  } finally {
    await agent.close();
  }
}

async function put(path: string, body: unknown) {
  const agent = new Agent({ connect: { ca: secure.ca } });
  try {
    const res = await request(`${server.url}${path}`, {
      method: 'PUT',
      dispatcher: agent,
      headers: { authorization: 'Bearer admin-token', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, body: (await res.body.json()) as any };
  } finally {
    await agent.close();
  }
}

async function getJson(path: string): Promise<any> {
  const res = await get(path);
  expect(res.status).toBe(200);
  return JSON.parse(res.body.toString('utf8'));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-group-suffix-'));
  secure = prepareSecureServing(join(dir, 'pki'), '127.0.0.1');
  server = await startReferenceServer({
    store: 'memory',
    port: 0,
    groupSuffix: 'k8s.io',
    access: { tls: secure.tls, tokens: parseTokenFile(TOKENS), authorizationModes: ['RBAC'] },
  });
  const ca = Buffer.from(secure.ca).toString('base64');
  writeFileSync(
    join(dir, 'config'),
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters:\n- name: svckit\n  cluster:\n    server: ${server.url}\n    certificate-authority-data: ${ca}`,
      'users:\n- name: admin\n  user:\n    token: admin-token\n- name: alice\n  user:\n    token: alice-token',
      'contexts:',
      ...['admin', 'alice'].map((u) => `- name: ${u}\n  context:\n    cluster: svckit\n    user: ${u}\n    namespace: default`),
      'current-context: admin',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('svckit serve --group-suffix k8s.io', () => {
  it("serves every spec group under the real system's name, in discovery and OpenAPI", async () => {
    const groups = ((await getJson('/apis')).groups as { name: string }[]).map((g) => g.name);
    for (const name of ['rbac.authorization.k8s.io', 'coordination.k8s.io', 'admissionregistration.k8s.io', 'apps', 'networking.k8s.io']) {
      expect(groups).toContain(name);
    }
    expect(groups.filter((g) => g.endsWith('svc.io'))).toEqual([]);
    const openapi = await getJson('/openapi/v3');
    expect(Object.keys(openapi.paths)).toContain('apis/rbac.authorization.k8s.io/v1');
    const doc = await getJson('/openapi/v3/apis/coordination.k8s.io/v1');
    expect(JSON.stringify(doc)).toContain('"group":"coordination.k8s.io"');
  });

  it("answers the real system's Protobuf media type, and names the served replacement of a deprecated version", async () => {
    const res = await get('/api/v1/namespaces/default/configmaps', 'application/vnd.kubernetes.protobuf, application/json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    expect([...res.body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    const old = await get('/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas');
    expect(old.status).toBe(200);
    expect(old.headers.warning).toContain('use flowcontrol.apiserver.k8s.io/v1 FlowSchema');
  });

  it('takes kubectl create role and create rolebinding, and answers kubectl auth can-i from RBAC', async () => {
    expect(await kubectl('alice', 'auth', 'can-i', 'list', 'pods')).toMatchObject({ code: 1, stdout: expect.stringMatching(/^no\b/) });
    const role = await kubectl('admin', 'create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods');
    expect(role.stderr).toBe('');
    expect(role.stdout).toBe('role.rbac.authorization.k8s.io/pod-reader created\n');
    const binding = await kubectl('admin', 'create', 'rolebinding', 'alice-reads', '--role=pod-reader', '--user=alice');
    expect(binding.stdout).toBe('rolebinding.rbac.authorization.k8s.io/alice-reads created\n');
    const stored = await getJson('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/alice-reads');
    expect(stored).toMatchObject({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
    });
    // The binding takes effect for the next request (the RBAC lister reads the store).
    let canList = await kubectl('alice', 'auth', 'can-i', 'list', 'pods');
    for (let i = 0; i < 100 && canList.stdout !== 'yes\n'; i++) canList = await kubectl('alice', 'auth', 'can-i', 'list', 'pods');
    expect(canList).toMatchObject({ code: 0, stdout: 'yes\n' });
    expect(await kubectl('alice', 'auth', 'can-i', 'create', 'deployments.apps')).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/^no\b/),
    });
    expect(await kubectl('alice', 'auth', 'can-i', 'list', 'pods', '-n', 'kube-system')).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/^no\b/),
    });
    const pods = await kubectl('alice', 'get', 'pods');
    expect(pods.code, pods.stderr).toBe(0);
    const denied = await kubectl('alice', 'create', 'deployment', 'web', '--image=nginx');
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('deployments.apps is forbidden: User "alice" cannot create resource "deployments" in API group "apps"');
  });

  it('approves and denies certificate signing requests with kubectl certificate (the approval subresource)', async () => {
    const csr = (name: string) =>
      `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: ${name}\nspec:\n  request: ${Buffer.from('-----BEGIN CERTIFICATE REQUEST-----').toString('base64')}\n  signerName: kubernetes.io/kube-apiserver-client\n  usages: [client auth]\n`;
    writeFileSync(join(dir, 'csr.yaml'), `${csr('alice-csr')}---\n${csr('mallory-csr')}`);
    expect((await kubectl('admin', 'create', '-f', join(dir, 'csr.yaml'))).code).toBe(0);
    const approved = await kubectl('admin', 'certificate', 'approve', 'alice-csr');
    expect(approved.stderr).toBe('');
    expect(approved.stdout).toBe('certificatesigningrequest.certificates.k8s.io/alice-csr approved\n');
    const denied = await kubectl('admin', 'certificate', 'deny', 'mallory-csr');
    expect(denied.stdout).toBe('certificatesigningrequest.certificates.k8s.io/mallory-csr denied\n');
    const alice = await getJson('/apis/certificates.k8s.io/v1/certificatesigningrequests/alice-csr');
    expect(alice.status.conditions).toMatchObject([{ type: 'Approved', status: 'True', reason: 'KubectlApprove' }]);
    expect(alice.spec.signerName).toBe('kubernetes.io/kube-apiserver-client');
    // The requestor is the user who created it, set by the server.
    expect(alice.spec).toMatchObject({ username: 'admin', uid: '1000', groups: ['system:masters', 'system:authenticated'] });
    // Approved and Denied exclude each other, as upstream's validation (kubectl checks it first; the server too).
    const deny = { type: 'Denied', status: 'True', reason: 'Test', lastUpdateTime: alice.status.conditions[0].lastUpdateTime };
    const both = await put('/apis/certificates.k8s.io/v1/certificatesigningrequests/alice-csr/approval', {
      ...alice,
      spec: { ...alice.spec, signerName: 'ignored.example/other' },
      status: { conditions: [...alice.status.conditions, deny] },
    });
    expect(both.status).toBe(422);
    expect(both.body.message).toContain('Approved and Denied conditions are mutually exclusive');
    // Only the conditions are taken from an approval: the spec stays as stored.
    const again = await put('/apis/certificates.k8s.io/v1/certificatesigningrequests/alice-csr/approval', {
      ...alice,
      spec: { ...alice.spec, signerName: 'ignored.example/other' },
    });
    expect(again.status).toBe(200);
    expect(again.body.spec.signerName).toBe('kubernetes.io/kube-apiserver-client');
    const table = await kubectl('admin', 'get', 'csr', '--no-headers');
    expect(table.stdout).toMatch(/^alice-csr\s+kubernetes\.io\/kube-apiserver-client\s+admin\s+Approved\s+\d+s$/m);
  });

  it('sends admission webhooks an admission.k8s.io AdmissionReview, configured through admissionregistration.k8s.io', async () => {
    const seen: string[] = [];
    const hook = await serveWebhook(async (body) => {
      seen.push(String((body as { apiVersion?: unknown }).apiVersion));
      return admissionWebhook((request) => (request.name === 'forbidden' ? deny('no configmap may be named forbidden') : undefined))(body);
    });
    try {
      const config = join(dir, 'webhook.yaml');
      writeFileSync(
        config,
        [
          'apiVersion: admissionregistration.k8s.io/v1',
          'kind: ValidatingWebhookConfiguration',
          'metadata:\n  name: names',
          'webhooks:',
          '- name: names.example.com',
          `  clientConfig:\n    url: ${hook.url}\n    caBundle: ${Buffer.from(hook.caBundle).toString('base64')}`,
          '  rules:\n  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}',
          '  sideEffects: None\n  admissionReviewVersions: [v1]',
          '',
        ].join('\n'),
      );
      expect((await kubectl('admin', 'apply', '-f', config)).code).toBe(0);
      let denied = await kubectl('admin', 'create', 'configmap', 'forbidden');
      // The configuration takes effect once the server has read it (no timing assumed: retried until it does).
      for (let i = 0; i < 50 && denied.code === 0; i++) {
        await kubectl('admin', 'delete', 'configmap', 'forbidden');
        denied = await kubectl('admin', 'create', 'configmap', 'forbidden');
      }
      expect(denied.code).toBe(1);
      expect(denied.stderr).toContain('admission webhook "names.example.com" denied the request: no configmap may be named forbidden');
      expect(seen.at(-1)).toBe('admission.k8s.io/v1');
      expect((await kubectl('admin', 'create', 'configmap', 'allowed')).code).toBe(0);
    } finally {
      await hook.close();
    }
  });

  it('creates a Lease in coordination.k8s.io with kubectl apply', async () => {
    const file = join(dir, 'lease.yaml');
    writeFileSync(
      file,
      'apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: leader\nspec:\n  holderIdentity: pod-a\n  leaseDurationSeconds: 15\n',
    );
    const applied = await kubectl('admin', 'apply', '-f', file);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toBe('lease.coordination.k8s.io/leader created\n');
    const lease = await getJson('/apis/coordination.k8s.io/v1/namespaces/default/leases/leader');
    expect(lease).toMatchObject({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec: { holderIdentity: 'pod-a' } });
  });
});
