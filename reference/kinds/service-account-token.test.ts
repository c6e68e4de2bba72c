/**
 * The token subresource of service accounts and the tokens it issues, end to end over HTTP on a
 * real server (the test server: RBAC, the server's own authenticator chain, its clock): create
 * with defaults, the validation and lookup errors in upstream's words, bound objects, and that a
 * token authenticates as its service account (RBAC applies to that identity) only while it is
 * unexpired, for the API server's audience, signed by the server, and its account and bound
 * object still exist.
 */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/index.js';
import { Auditor, AuditPolicy, MemoryAuditBackend } from '../../runtime/audit/index.js';
import { startServer } from '../../runtime/server/server.testing.js';

const NS = 'tokens';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

let server: TestServer;
let adminToken: string;

type Json = any;

async function call(
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<{ status: number; json: Json; headers: Headers }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json, headers: res.headers };
}

const admin = (method: string, path: string, body?: unknown) => call(method, path, adminToken, body);
const tokenPath = (name: string, ns = NS) => `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`;
const tokenRequest = (spec: Json = {}, metadata: Json = {}) => ({
  apiVersion: 'authentication.svc.io/v1',
  kind: 'TokenRequest',
  metadata,
  spec,
});

async function createServiceAccount(name: string): Promise<Json> {
  const r = await admin('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name },
  });
  expect(r.status).toBe(201);
  return r.json;
}

async function createPod(name: string, serviceAccountName: string, nodeName?: string): Promise<Json> {
  const r = await admin('POST', `/api/v1/namespaces/${NS}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { serviceAccountName, ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }] },
  });
  expect(r.status).toBe(201);
  return r.json;
}

async function issue(name: string, spec: Json = {}): Promise<{ token: string; body: Json }> {
  const r = await admin('POST', tokenPath(name), tokenRequest(spec));
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return { token: r.json.status.token, body: r.json };
}

/** Lists the test namespace's pods with `token`: 200, 403 (authenticated, not allowed) or 401. */
async function whoCanListPods(token: string): Promise<{ status: number; json: Json }> {
  return call('GET', `/api/v1/namespaces/${NS}/pods`, token);
}

beforeAll(async () => {
  server = await startTestServer({ users: { alice: ['devs'] } });
  adminToken = server.token('admin');
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  await server.reset();
  expect((await admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).toBe(201);
});

describe('POST serviceaccounts/<name>/token', () => {
  it('answers 201 with a signed token, defaulting the audiences, the lifetime and the metadata', async () => {
    const sa = await createServiceAccount('robot');
    const before = server.clock.ms();
    const { token, body } = await issue('robot');
    expect(body.kind).toBe('TokenRequest');
    expect(body.apiVersion).toBe('authentication.svc.io/v1');
    expect(body.metadata).toMatchObject({ name: 'robot', namespace: NS });
    expect(body.spec).toEqual({ audiences: [ISSUER], expirationSeconds: 3600 });
    const exp = Date.parse(body.status.expirationTimestamp);
    expect(exp).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3600_000);
    expect(exp).toBeLessThanOrEqual(server.clock.ms() + 3600_000);

    const header = decodeProtectedHeader(token);
    expect(header.alg).toBe('ES256');
    expect(typeof header.kid).toBe('string');
    const claims = decodeJwt(token) as Json;
    expect(claims).toMatchObject({ iss: ISSUER, sub: `system:serviceaccount:${NS}:robot`, aud: [ISSUER] });
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims.nbf).toBe(claims.iat);
    expect(claims.exp * 1000).toBe(exp);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims['kubernetes.io']).toEqual({ namespace: NS, serviceaccount: { name: 'robot', uid: sa.metadata.uid } });
  });

  it('keeps the audiences and lifetime asked for', async () => {
    await createServiceAccount('robot');
    const { token, body } = await issue('robot', { audiences: ['vault', 'other'], expirationSeconds: 7200 });
    expect(body.spec).toMatchObject({ audiences: ['vault', 'other'], expirationSeconds: 7200 });
    const claims = decodeJwt(token);
    expect(claims.aud).toEqual(['vault', 'other']);
    expect(claims.exp! - claims.iat!).toBe(7200);
  });

  it('refuses a lifetime under 10 minutes or over 2^32 seconds with 422 in upstream words', async () => {
    await createServiceAccount('robot');
    const short = await admin('POST', tokenPath('robot'), tokenRequest({ expirationSeconds: 60 }));
    expect(short.status).toBe(422);
    expect(short.json.message).toBe(
      'TokenRequest.authentication.svc.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    expect(short.json.details.causes[0]).toMatchObject({ field: 'spec.expirationSeconds', reason: 'FieldValueInvalid' });
    const long = await admin('POST', tokenPath('robot'), tokenRequest({ expirationSeconds: 2 ** 32 + 1 }));
    expect(long.status).toBe(422);
    expect(long.json.message).toContain('may not specify a duration larger than 2^32 seconds');
    // A value of the wrong type is not a TokenRequest at all: 400, as for any body.
    const typed = await admin('POST', tokenPath('robot'), tokenRequest({ expirationSeconds: 'an hour' }));
    expect(typed.status).toBe(400);
    expect(typed.json.message).toContain('cannot be handled as a TokenRequest');
    expect(typed.json.message).toContain('spec.expirationSeconds');
    const notObject = await admin('POST', tokenPath('robot'), { ...tokenRequest(), spec: 'soon' });
    expect(notObject.status).toBe(400);
  });

  it('refuses a body naming another account or namespace (422), and a body of another kind (400)', async () => {
    await createServiceAccount('robot');
    const other = await admin('POST', tokenPath('robot'), tokenRequest({}, { name: 'someone' }));
    expect(other.status).toBe(422);
    expect(other.json.message).toBe(
      'TokenRequest.authentication.svc.io "robot" is invalid: metadata.name: Invalid value: "someone": must match the service account name if specified',
    );
    const elsewhere = await admin('POST', tokenPath('robot'), tokenRequest({}, { namespace: 'default' }));
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.json.message).toContain(
      'metadata.namespace: Invalid value: "default": must match the service account namespace if specified',
    );
    const wrongKind = await admin('POST', tokenPath('robot'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });
    expect(wrongKind.status).toBe(400);
    const otherGroup = await admin('POST', tokenPath('robot'), { ...tokenRequest(), apiVersion: 'authentication.example.io/v1' });
    expect(otherGroup.status).toBe(400);
    expect(otherGroup.json.message).toBe(
      'the API version in the data (authentication.example.io/v1) does not match the expected API version (authentication.svc.io/v1)',
    );
    // kubectl's compiled-in name is accepted and answered in kind, so `kubectl create token` works here too.
    const kubectlName = await admin('POST', tokenPath('robot'), { ...tokenRequest(), apiVersion: 'authentication.k8s.io/v1' });
    expect(kubectlName.status).toBe(201);
    expect(kubectlName.json.apiVersion).toBe('authentication.k8s.io/v1');
  });

  it('answers 404 for a missing service account', async () => {
    const r = await admin('POST', tokenPath('ghost'), tokenRequest());
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'serviceaccounts "ghost" not found' });
  });

  it('takes only POST', async () => {
    await createServiceAccount('robot');
    expect((await admin('GET', tokenPath('robot'))).status).toBe(405);
  });

  it('binds a token to a pod running as the account (with its node) or a secret, checking that they exist and their UID', async () => {
    await createServiceAccount('robot');
    const node = await admin('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
    expect(node.status).toBe(201);
    const pod = await createPod('web', 'robot', 'node-1');
    const { token } = await issue('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: pod.metadata.uid } });
    expect((decodeJwt(token) as Json)['kubernetes.io']).toMatchObject({
      pod: { name: 'web', uid: pod.metadata.uid },
      node: { name: 'node-1', uid: node.json.metadata.uid },
    });

    const secret = await admin('POST', `/api/v1/namespaces/${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    const bySecret = await issue('robot', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's' } });
    expect((decodeJwt(bySecret.token) as Json)['kubernetes.io'].secret).toEqual({ name: 's', uid: secret.json.metadata.uid });

    const missing = await admin(
      'POST',
      tokenPath('robot'),
      tokenRequest({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nope' } }),
    );
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('pods "nope" not found');
    const staleUid = await admin(
      'POST',
      tokenPath('robot'),
      tokenRequest({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: 'not-the-uid' } }),
    );
    expect(staleUid.status).toBe(409);
    expect(staleUid.json.message).toBe(
      'Operation cannot be fulfilled on Pod "web": the UID in the bound object reference (not-the-uid) does not match the UID in record. The object might have been deleted and then recreated',
    );
    await createServiceAccount('other');
    await createPod('runs-as-other', 'other');
    const foreign = await admin(
      'POST',
      tokenPath('robot'),
      tokenRequest({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runs-as-other' } }),
    );
    expect(foreign.status).toBe(400);
    expect(foreign.json.message).toBe('cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name.');
    const unsupported = await admin(
      'POST',
      tokenPath('robot'),
      tokenRequest({ boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'd' } }),
    );
    expect(unsupported.status).toBe(400);
    expect(unsupported.json.message).toBe('cannot bind token to object of type apps/v1, Kind=Deployment');
  });

  it('is authorized as create on serviceaccounts/token', async () => {
    await createServiceAccount('robot');
    const alice = server.token('alice');
    const refused = await call('POST', tokenPath('robot'), alice, tokenRequest());
    expect(refused.status).toBe(403);
    expect(refused.json.message).toContain('cannot create resource "serviceaccounts/token" in API group "" in the namespace "tokens"');
    await grant(
      'token-minter',
      { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
      { kind: 'User', name: 'alice' },
    );
    expect((await call('POST', tokenPath('robot'), alice, tokenRequest())).status).toBe(201);
  });
});

async function grant(name: string, rule: Json, subject: Json): Promise<void> {
  const rbac = '/apis/rbac.authorization.svc.io/v1';
  const role = await admin('POST', `${rbac}/namespaces/${NS}/roles`, {
    apiVersion: 'rbac.authorization.svc.io/v1',
    kind: 'Role',
    metadata: { name },
    rules: [rule],
  });
  expect(role.status).toBe(201);
  const binding = await admin('POST', `${rbac}/namespaces/${NS}/rolebindings`, {
    apiVersion: 'rbac.authorization.svc.io/v1',
    kind: 'RoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'Role', name },
    subjects: [{ apiGroup: subject.kind === 'ServiceAccount' ? undefined : 'rbac.authorization.svc.io', ...subject }],
  });
  expect(binding.status, JSON.stringify(binding.json)).toBe(201);
}

describe('a service-account token as a credential', () => {
  it('authenticates as the service account, and RBAC decides for that identity', async () => {
    await createServiceAccount('robot');
    const { token } = await issue('robot');
    const before = await whoCanListPods(token);
    expect(before.status).toBe(403);
    expect(before.json.message).toContain(`User "system:serviceaccount:${NS}:robot" cannot list resource "pods"`);
    await grant(
      'pod-reader',
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { kind: 'ServiceAccount', name: 'robot', namespace: NS },
    );
    expect((await whoCanListPods(token)).status).toBe(200);
    // The groups every service account is in: a binding to system:serviceaccounts:<ns> reaches it too.
    await grant(
      'secret-reader',
      { apiGroups: [''], resources: ['secrets'], verbs: ['list'] },
      { kind: 'Group', name: `system:serviceaccounts:${NS}` },
    );
    expect((await call('GET', `/api/v1/namespaces/${NS}/secrets`, token)).status).toBe(200);

    // A self-review answers for the token's identity: it may list pods, not delete them.
    const review = await call('POST', '/apis/authorization.svc.io/v1/selfsubjectaccessreviews', token, {
      apiVersion: 'authorization.svc.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: NS, verb: 'delete', resource: 'pods' } },
    });
    expect(review.status).toBe(201);
    expect(review.json.status.allowed).toBe(false);
  });

  it('carries upstream user info (uid, groups, credential id, bound pod), and the request that issued it is audited with its id', async () => {
    const memory = new MemoryAuditBackend();
    const audited = await startTestServer({
      users: {},
      audit: new Auditor(AuditPolicy.compile({ rules: [{ level: 'Metadata' }] }), memory),
    });
    try {
      const as = (token: string, method: string, path: string, body?: unknown) =>
        fetch(`${audited.url}${path}`, {
          method,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const root = audited.token('admin');
      const sa: Json = await (
        await as(root, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: 'robot' },
        })
      ).json();
      const pod: Json = await (
        await as(root, 'POST', '/api/v1/namespaces/default/pods', {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'web' },
          spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'busybox' }] },
        })
      ).json();
      const issued = await as(
        root,
        'POST',
        tokenPath('robot', 'default'),
        tokenRequest({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' } }),
      );
      expect(issued.status).toBe(201);
      const token = ((await issued.json()) as Json).status.token as string;
      const jti = decodeJwt(token).jti;
      const [issuing] = memory.events({ stage: 'ResponseComplete', requestURI: tokenPath('robot', 'default') });
      expect(issuing?.annotations?.['authentication.kubernetes.io/issued-credential-id']).toBe(`JTI=${jti}`);

      expect((await as(token, 'GET', '/api/v1/namespaces/default/pods/web')).status).toBe(403);
      const [used] = memory.events({ stage: 'ResponseComplete', requestURI: '/api/v1/namespaces/default/pods/web' });
      expect(used?.user).toEqual({
        username: 'system:serviceaccount:default:robot',
        uid: sa.metadata.uid,
        groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
        extra: {
          'authentication.kubernetes.io/credential-id': [`JTI=${jti}`],
          'authentication.kubernetes.io/pod-name': ['web'],
          'authentication.kubernetes.io/pod-uid': [pod.metadata.uid],
        },
      });
    } finally {
      await audited.close();
    }
  });

  it('is refused (401) once expired, by the server clock with upstream leeway of a minute', async () => {
    await createServiceAccount('robot');
    await grant(
      'pod-reader',
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { kind: 'ServiceAccount', name: 'robot', namespace: NS },
    );
    const { token } = await issue('robot', { expirationSeconds: 600 });
    expect((await whoCanListPods(token)).status).toBe(200);
    server.clock.advance(600_000 + 30_000);
    expect((await whoCanListPods(token)).status).toBe(200);
    server.clock.advance(31_000);
    const expired = await whoCanListPods(token);
    expect(expired.status).toBe(401);
    expect(expired.json.message).toContain('service account token has expired');
  });

  it('is refused (401) for an audience the API server does not have', async () => {
    await createServiceAccount('robot');
    const { token } = await issue('robot', { audiences: ['vault'] });
    const r = await whoCanListPods(token);
    expect(r.status).toBe(401);
    expect(r.json.message).toContain(`token audiences ["vault"] is invalid for the target audiences ["${ISSUER}"]`);
  });

  it('is refused (401) when forged: another key, or the payload changed under the signature', async () => {
    const sa = await createServiceAccount('robot');
    const { token } = await issue('robot');
    const claims = decodeJwt(token);
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forged = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: decodeProtectedHeader(token).kid! })
      .sign(createPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' })));
    const byOtherKey = await whoCanListPods(forged);
    expect(byOtherKey.status).toBe(401);
    expect(byOtherKey.json.message).toContain('no service-account key verifies its signature');

    const [h, , s] = token.split('.');
    const admin = Buffer.from(JSON.stringify({ ...claims, sub: `system:serviceaccount:${NS}:admin` })).toString('base64url');
    expect((await whoCanListPods(`${h}.${admin}.${s}`)).status).toBe(401);
    expect(sa.metadata.uid).toBeTruthy();
  });

  it('stops working when its service account is deleted, even if one of the same name is made again', async () => {
    await createServiceAccount('robot');
    await grant(
      'pod-reader',
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { kind: 'ServiceAccount', name: 'robot', namespace: NS },
    );
    const { token } = await issue('robot');
    expect((await whoCanListPods(token)).status).toBe(200);
    expect((await admin('DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/robot`)).status).toBe(200);
    const gone = await whoCanListPods(token);
    expect(gone.status).toBe(401);
    expect(gone.json.message).toContain('serviceaccounts "robot" not found');
    const again = await createServiceAccount('robot');
    const other = await whoCanListPods(token);
    expect(other.status).toBe(401);
    expect(other.json.message).toContain(`service account UID (${again.metadata.uid}) does not match claim`);
  });

  it('stops working when the pod or secret it is bound to is deleted', async () => {
    await createServiceAccount('robot');
    await grant(
      'pod-reader',
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { kind: 'ServiceAccount', name: 'robot', namespace: NS },
    );
    await createPod('web', 'robot');
    await admin('POST', `/api/v1/namespaces/${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    const byPod = (await issue('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' } })).token;
    const bySecret = (await issue('robot', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's' } })).token;
    expect((await whoCanListPods(byPod)).status).toBe(200);
    expect((await whoCanListPods(bySecret)).status).toBe(200);
    expect((await admin('DELETE', `/api/v1/namespaces/${NS}/pods/web?gracePeriodSeconds=0`)).status).toBe(200);
    const podGone = await whoCanListPods(byPod);
    expect(podGone.status).toBe(401);
    expect(podGone.json.message).toContain('service account token has been invalidated');
    expect((await whoCanListPods(bySecret)).status).toBe(200);
    expect((await admin('DELETE', `/api/v1/namespaces/${NS}/secrets/s`)).status).toBe(200);
    expect((await whoCanListPods(bySecret)).status).toBe(401);
  });
});

describe('the test server', () => {
  it('gives a service account token in one call, which authenticates as the account', async () => {
    await createServiceAccount('robot');
    const token = await server.serviceAccountToken(NS, 'robot', { expirationSeconds: 1200 });
    const claims = decodeJwt(token);
    expect(claims.exp! - claims.iat!).toBe(1200);
    const r = await whoCanListPods(token);
    expect(r.status).toBe(403);
    expect(r.json.message).toContain(`User "system:serviceaccount:${NS}:robot"`);
    // The server's refusal as the typed client's StatusError.
    await expect(server.serviceAccountToken(NS, 'ghost')).rejects.toMatchObject({
      code: 404,
      message: 'serviceaccounts "ghost" not found',
    });
  });
});

describe('service-account issuer discovery', () => {
  it('serves the OpenID configuration and the JWKS to service accounts, whose keys verify the tokens', async () => {
    await createServiceAccount('robot');
    const { token } = await issue('robot');
    const config = await call('GET', '/.well-known/openid-configuration', token);
    expect(config.status).toBe(200);
    expect(config.headers.get('content-type')).toBe('application/json');
    expect(config.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(config.json).toEqual({
      issuer: ISSUER,
      jwks_uri: `${server.url}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
    const jwks = await call('GET', '/openid/v1/jwks', token);
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('content-type')).toBe('application/jwk-set+json');
    expect(jwks.json.keys).toHaveLength(1);
    const [key] = jwks.json.keys;
    expect(key).toMatchObject({ use: 'sig', kty: 'EC', crv: 'P-256', alg: 'ES256', kid: decodeProtectedHeader(token).kid });
    expect(key.d).toBeUndefined();
    const { jwtVerify, createLocalJWKSet } = await import('jose');
    const verified = await jwtVerify(token, createLocalJWKSet(jwks.json), {
      issuer: ISSUER,
      audience: ISSUER,
      currentDate: server.clock.now(),
    });
    expect(verified.payload.sub).toBe(`system:serviceaccount:${NS}:robot`);
  });

  it('is not readable by a user outside system:serviceaccounts (upstream binds the role to service accounts only)', async () => {
    expect((await call('GET', '/openid/v1/jwks', server.token('alice'))).status).toBe(403);
    expect((await call('GET', '/openid/v1/jwks', adminToken)).status).toBe(200);
  });
});

describe('a bare ApiServer (no token issuer given)', () => {
  it('answers 404 for the token subresource and the discovery paths, as a server without a signing key has neither', async () => {
    const h = await startServer();
    try {
      await h.create(`/api/v1/namespaces/${h.ns}/serviceaccounts`, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'robot' },
      });
      const token = await h.post(`/api/v1/namespaces/${h.ns}/serviceaccounts/robot/token`, tokenRequest());
      expect(token.status).toBe(404);
      expect(token.body.message).toContain('this server issues no service-account tokens');
      expect((await h.get('/openid/v1/jwks')).status).toBe(404);
    } finally {
      await h.close();
    }
  });
});

describe('discovery of the token subresource under --group-suffix k8s.io', () => {
  it('lists serviceaccounts/token as upstream 1.30: authentication.k8s.io/v1 TokenRequest, verb create', async () => {
    const s = await startTestServer({ groupSuffix: 'k8s.io' });
    try {
      const list = (await (await fetch(`${s.url}/api/v1`)).json()) as { resources: { name: string }[] };
      expect(list.resources.find((r) => r.name === 'serviceaccounts/token')).toEqual({
        name: 'serviceaccounts/token',
        singularName: '',
        namespaced: true,
        group: 'authentication.k8s.io',
        version: 'v1',
        kind: 'TokenRequest',
        verbs: ['create'],
      });
      const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
      const aggregated = (await (await fetch(`${s.url}/api`, { headers: { accept } })).json()) as Json;
      const accounts = aggregated.items[0].versions[0].resources.find((r: Json) => r.resource === 'serviceaccounts');
      expect(accounts.subresources).toEqual([
        { subresource: 'token', responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] },
      ]);
    } finally {
      await s.close();
    }
  });
});
