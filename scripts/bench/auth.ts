import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { certificateAuthority, MASTERS_GROUP, type TokenTable } from '../../runtime/auth/index.js';
import { prepareSecureServing, startReferenceServer } from '../../reference/index.js';
import { type BenchCase, runCases } from './harness.js';
import { inParallel } from './requests.js';

const RBAC = '/apis/rbac.authorization.svc.io/v1';
const TARGET = '/api/v1/namespaces/bench/configmaps/target';

/**
 * What access control costs a read: the same get against the reference server with the chain on
 * (a bearer token or a client certificate, then RBAC finding the user's RoleBinding among 100
 * others and 20 ClusterRoleBindings) and off (no authentication, every request allowed). "ours"
 * is the server with access control, "peer" the one without: the ratio is the chain's cost.
 */
export async function benchAuth(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-bench-auth-'));
  const secure = prepareSecureServing(dir, '127.0.0.1');
  const admin = 'bench-admin-token';
  const tokens: TokenTable = {
    users: new Map([
      [admin, { username: 'bench-admin', groups: [MASTERS_GROUP], extra: {} }],
      ['bench-reader-token', { username: 'reader', groups: [], extra: {} }],
    ]),
    warnings: [],
  };
  const plain = await startReferenceServer({ store: 'memory' });
  const guarded = await startReferenceServer({ store: 'memory', access: { tokens, authorizationModes: ['RBAC'] } });
  const tlsOpen = await startReferenceServer({ store: 'memory', access: { tls: { cert: secure.tls.cert, key: secure.tls.key } } });
  const tlsGuarded = await startReferenceServer({ store: 'memory', access: { tls: secure.tls, authorizationModes: ['RBAC'] } });
  const http = new Agent({ connections: 16, pipelining: 1 });
  const https = new Agent({ connections: 16, pipelining: 1, connect: { ca: secure.ca } });
  const httpsAdmin = new Agent({ connections: 16, pipelining: 1, connect: { ca: secure.ca, ...secure.admin } });
  // A client certificate for `reader` from the same CA, so that RBAC decides (not system:masters).
  const reader = certificateAuthority(dir).issue('reader', { subject: { cn: 'reader' }, usage: 'clientAuth' });
  const httpsReader = new Agent({ connections: 16, pipelining: 1, connect: { ca: secure.ca, ...reader } });
  try {
    for (const [url, agent, token] of [
      [plain.url, http, undefined],
      [guarded.url, http, admin],
      [tlsOpen.url, https, undefined],
      [tlsGuarded.url, httpsAdmin, undefined],
    ] as const) {
      await setUp(url, agent, token);
    }
    const get = (url: string, agent: Agent, token?: string) => () =>
      inParallel(2000, 16, async () => {
        const res = await request(url + TARGET, { dispatcher: agent, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`GET ${TARGET}: ${res.statusCode}`);
      });
    const cases: BenchCase[] = [
      {
        name: 'get x2000, HTTP: bearer token + RBAC',
        ours: get(guarded.url, http, 'bench-reader-token'),
        peer: { name: 'no access control', run: get(plain.url, http) },
      },
      {
        name: 'get x2000, HTTPS: client certificate + RBAC',
        ours: get(tlsGuarded.url, httpsReader),
        peer: { name: 'HTTPS, no access control', run: get(tlsOpen.url, https) },
      },
    ];
    await runCases('Access control on vs off (authentication + RBAC among 120 bindings), 16 in flight', cases);
  } finally {
    await Promise.all([http.close(), https.close(), httpsAdmin.close(), httpsReader.close()]);
    await Promise.all([plain.close(), guarded.close(), tlsOpen.close(), tlsGuarded.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The namespace, the object read, the reader's RoleBinding and 120 bindings that do not match it. */
async function setUp(url: string, agent: Agent, token: string | undefined): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const res = await request(url + path, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    await res.body.dump();
    if (res.statusCode !== 201) throw new Error(`POST ${path}: ${res.statusCode}`);
  };
  await post('/api/v1/namespaces', { metadata: { name: 'bench' } });
  await post('/api/v1/namespaces/bench/configmaps', { metadata: { name: 'target' }, data: { key: 'x'.repeat(200) } });
  const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.svc.io', kind, name });
  const user = (name: string) => [{ kind: 'User', apiGroup: 'rbac.authorization.svc.io', name }];
  await post(`${RBAC}/clusterroles`, {
    metadata: { name: 'cm-reader' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
  });
  for (let i = 0; i < 20; i++)
    await post(`${RBAC}/clusterrolebindings`, {
      metadata: { name: `other-${i}` },
      roleRef: ref('ClusterRole', 'cm-reader'),
      subjects: user(`other-${i}`),
    });
  for (let i = 0; i < 100; i++)
    await post(`${RBAC}/namespaces/bench/rolebindings`, {
      metadata: { name: `other-${i}` },
      roleRef: ref('ClusterRole', 'cm-reader'),
      subjects: user(`other-${i}`),
    });
  await post(`${RBAC}/namespaces/bench/rolebindings`, {
    metadata: { name: 'reader' },
    roleRef: ref('ClusterRole', 'cm-reader'),
    subjects: user('reader'),
  });
}
