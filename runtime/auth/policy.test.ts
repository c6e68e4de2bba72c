import { once } from 'node:events';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlwaysDenyAuthorizer } from './authorize.js';
import { formatExplanation } from './explain.js';
import { AuthPolicy } from './policy.js';
import { RbacAuthorizer, StaticRbacLister } from './rbac.js';
import { createTestCa, type KeyPair, type TestCa } from './testing/pki.testing.js';
import { TokenFileAuthenticator } from './token-file.js';
import { ClientCertificateAuthenticator } from './x509.js';

const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.svc.io', kind, name });
const rbac = new RbacAuthorizer(
  new StaticRbacLister({
    clusterRoles: [
      { metadata: { name: 'reader' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] },
      { metadata: { name: 'health' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] },
    ],
    clusterRoleBindings: [
      { metadata: { name: 'ops-read' }, subjects: [{ kind: 'Group', name: 'ops' }], roleRef: ref('ClusterRole', 'reader') },
      {
        metadata: { name: 'public-health' },
        subjects: [{ kind: 'Group', name: 'system:unauthenticated' }],
        roleRef: ref('ClusterRole', 'health'),
      },
    ],
    roleBindings: [
      {
        metadata: { name: 'alice-read', namespace: 'team' },
        subjects: [{ kind: 'User', name: 'alice' }],
        roleRef: ref('ClusterRole', 'reader'),
      },
    ],
  }),
);

const policy = new AuthPolicy({
  authenticators: [new ClientCertificateAuthenticator(), TokenFileAuthenticator.fromText('alice-token,alice,u1\n')],
  anonymous: true,
  authorizers: [rbac, new AlwaysDenyAuthorizer('closed')],
});

let ca: TestCa;
let server: https.Server;
let port: number;

/** A server whose handler chain is just the two stages, as the reference server will wire them. */
beforeAll(async () => {
  ca = createTestCa();
  server = https.createServer({ ...ca.issueServer(), ca: ca.cert, requestCert: true, rejectUnauthorized: false }, async (req, res) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const authn = await policy.authenticate(req);
    if (!authn.authenticated) {
      res.writeHead(authn.status, { 'content-type': 'application/json' }).end(JSON.stringify({ message: authn.message }));
      return;
    }
    const decision = await policy.authorize(
      authn.user,
      authn.explanation,
      req.method ?? 'GET',
      decodeURIComponent(url.pathname),
      url.search,
    );
    const status = decision.allowed ? 200 : decision.status;
    res.writeHead(status, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        ...(decision.allowed ? {} : { message: decision.message }),
        explanation: decision.explanation,
        text: formatExplanation(decision.explanation),
      }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
  ca.dispose();
});

function request(path: string, options: { token?: string; client?: KeyPair } = {}): Promise<{ status: number; body: Record<string, any> }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'GET',
        ca: ca.cert,
        agent: false,
        ...(options.client ?? {}),
        headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('AuthPolicy as the authenticate and authorize stages of a real HTTPS server', () => {
  it('a client certificate in group ops may list pods anywhere, and the explanation says why', async () => {
    const r = await request('/api/v1/namespaces/any/pods', { client: ca.issueClient({ cn: 'carol', o: ['ops'] }) });
    expect(r.status).toBe(200);
    expect(r.body.explanation).toMatchObject({
      user: 'carol',
      groups: ['ops', 'system:authenticated'],
      authenticatedBy: 'x509',
      request: 'list pods in API group "" in namespace "any"',
      allowed: true,
      decidedBy: 'rbac',
      reason: 'RBAC: allowed by ClusterRoleBinding "ops-read" of ClusterRole "reader" (rule 0) to Group "ops"',
    });
  });

  it('a token user may read only in its namespace; elsewhere the 403 names the deciding authorizer', async () => {
    expect((await request('/api/v1/namespaces/team/pods/p', { token: 'alice-token' })).status).toBe(200);
    const r = await request('/api/v1/namespaces/other/pods/p', { token: 'alice-token' });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe(
      'User "alice" cannot get resource "pods" in API group "" in the namespace "other": AlwaysDeny denies every request',
    );
    expect(r.body.explanation.steps.map((s: { authorizer: string; decision: string }) => `${s.authorizer}=${s.decision}`)).toEqual([
      'rbac=NoOpinion',
      'closed=Deny',
    ]);
    expect(r.body.text).toContain('forbidden: get pods "p" in API group "" in namespace "other" by closed');
  });

  it('no credentials: anonymous may read /healthz and nothing else', async () => {
    const ok = await request('/healthz');
    expect(ok.status).toBe(200);
    expect(ok.body.explanation).toMatchObject({ user: 'system:anonymous', authenticatedBy: 'anonymous' });
    expect((await request('/api/v1/pods')).status).toBe(403);
  });

  it('a bad token is a 401 even though anonymous could read /healthz', async () => {
    const r = await request('/healthz', { token: 'wrong' });
    expect(r.status).toBe(401);
  });

  it('a certificate from an untrusted CA is a 401', async () => {
    const other = createTestCa('untrusted');
    try {
      const r = await request('/healthz', { client: other.issueClient({ cn: 'mallory', o: ['ops'] }) });
      expect(r.status).toBe(401);
      expect(r.body.message).toMatch(/x509: client certificate not verified by the TLS layer/);
    } finally {
      other.dispose();
    }
  });
});
