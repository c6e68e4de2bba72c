/**
 * The reference server's service-account keys and flags: the generated key is kept beside the
 * SQLite database (kept-signing-key.test.ts checks where and how), so a token outlives a restart on the same SQLite file; a signing key file (RSA here) signs
 * instead, and `--service-account-key-file` (a certificate) keeps the tokens of the previous key
 * valid after a rotation; `--service-account-max-token-expiration` shortens a request with
 * upstream's warning; an issuer that is not an https URL has no discovery documents; an OIDC
 * relying party (svckit's own JWT authenticator) verifies the tokens through the server's real
 * discovery endpoints over HTTPS. Every bad flag is a UsageError naming it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { Agent, request } from 'undici';
import { certificateAuthority, loadJwtAuthenticators, parseTokenFile } from '../runtime/auth/index.js';
import { serviceAccountsFromFlags } from './commands/serve-service-accounts.js';
import { UsageError } from './commands/usage-error.js';
import { type ReferenceServerOptions, type RunningServer, startReferenceServer } from '../reference/index.js';

let dir: string;
const ADMIN = 'admin-token';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-service-accounts-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

type Json = any;

/** A server with the admin token and RBAC (so tokens authenticate and are authorized). */
function start(options: Partial<ReferenceServerOptions> = {}): Promise<RunningServer> {
  return startReferenceServer({
    store: 'memory',
    access: { tokens: parseTokenFile(`${ADMIN},admin,1,system:masters\n`, 'tokens.csv'), authorizationModes: ['RBAC'] },
    ...options,
  });
}

async function call(s: RunningServer, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text.startsWith('{') ? (JSON.parse(text) as Json) : text, headers: res.headers };
}

/** Creates the service account `robot` in `default` (unless it exists) and returns a token for it. */
async function tokenFor(s: RunningServer, spec: Json = {}): Promise<{ token: string; response: Awaited<ReturnType<typeof call>> }> {
  await call(s, 'POST', '/api/v1/namespaces/default/serviceaccounts', ADMIN, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'robot' },
  });
  const response = await call(s, 'POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', ADMIN, {
    apiVersion: 'authentication.svc.io/v1',
    kind: 'TokenRequest',
    spec,
  });
  expect(response.status, JSON.stringify(response.json)).toBe(201);
  return { token: response.json.status.token, response };
}

/** 403 (authenticated as the service account, not allowed) or 401 (refused). */
async function authenticates(s: RunningServer, token: string): Promise<boolean> {
  const r = await call(s, 'GET', '/api/v1/namespaces/default/configmaps', token);
  expect([401, 403]).toContain(r.status);
  if (r.status === 403) expect(r.json.message).toContain('User "system:serviceaccount:default:robot"');
  return r.status === 403;
}

describe('the service-account signing key', () => {
  it('is generated once and kept beside the database: a token outlives a restart on the same file', async () => {
    const store = `sqlite:${join(dir, 'kept.db')}`;
    const first = await start({ store });
    const { token } = await tokenFor(first);
    const jwks = (await call(first, 'GET', '/openid/v1/jwks', ADMIN)).json;
    await first.close();
    const second = await start({ store });
    try {
      expect(await authenticates(second, token)).toBe(true);
      expect((await call(second, 'GET', '/openid/v1/jwks', ADMIN)).json).toEqual(jwks);
    } finally {
      await second.close();
    }
    const elsewhere = await start();
    try {
      // Another store, another key: the token is not this server's.
      expect((await call(elsewhere, 'GET', '/openid/v1/jwks', ADMIN)).json).not.toEqual(jwks);
    } finally {
      await elsewhere.close();
    }
  });

  it('comes from --service-account-signing-key-file (RSA: RS256), and --service-account-key-file keeps the old key verifying after a rotation', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    writeFileSync(join(dir, 'sa-rsa.key'), rsa);
    mkdirSync(join(dir, 'ca'));
    const ca = certificateAuthority(join(dir, 'ca'));
    const next = ca.issue('sa-next', { subject: { cn: 'service-accounts' }, usage: 'clientAuth' });
    const store = `sqlite:${join(dir, 'rotated.db')}`;

    const before = await start({ store, ...serviceAccountsFromFlags({ 'service-account-signing-key-file': join(dir, 'sa-rsa.key') }) });
    const { token } = await tokenFor(before);
    expect(decodeProtectedHeader(token).alg).toBe('RS256');
    expect((await call(before, 'GET', '/openid/v1/jwks', ADMIN)).json.keys.map((k: Json) => k.alg)).toEqual(['RS256']);
    await before.close();

    // The new key signs; the old key's file (upstream reads a private key file's public half) and
    // the new key's certificate verify.
    writeFileSync(join(dir, 'sa-next.key'), next.key);
    const rotated = await start({
      store,
      ...serviceAccountsFromFlags({
        'service-account-signing-key-file': join(dir, 'sa-next.key'),
        'service-account-key-file': [join(dir, 'sa-rsa.key'), join(dir, 'ca', 'sa-next.crt')],
      }),
    });
    try {
      expect(await authenticates(rotated, token)).toBe(true);
      const fresh = (await tokenFor(rotated)).token;
      expect(decodeProtectedHeader(fresh).kid).not.toBe(decodeProtectedHeader(token).kid);
      expect(await authenticates(rotated, fresh)).toBe(true);
      const keys = (await call(rotated, 'GET', '/openid/v1/jwks', ADMIN)).json.keys as Json[];
      // The certificate is the signing key's own public key: listed once.
      expect(keys.map((k) => k.kid).sort()).toEqual([decodeProtectedHeader(token).kid, decodeProtectedHeader(fresh).kid].sort());
    } finally {
      await rotated.close();
    }
    const withoutOld = await start({
      store,
      ...serviceAccountsFromFlags({ 'service-account-signing-key-file': join(dir, 'sa-next.key') }),
    });
    try {
      expect(await authenticates(withoutOld, token)).toBe(false);
    } finally {
      await withoutOld.close();
    }
  });
});

describe('issuer, audiences and lifetime flags', () => {
  it('--service-account-max-token-expiration shortens a longer request, with upstream warning', async () => {
    const s = await start(serviceAccountsFromFlags({ 'service-account-max-token-expiration': '2h' }));
    try {
      const { token, response } = await tokenFor(s, { expirationSeconds: 86_400 });
      expect(response.headers.get('warning')).toBe('299 - "requested expiration of 86400 seconds shortened to 7200 seconds"');
      expect(response.json.spec.expirationSeconds).toBe(7200);
      const claims = decodeJwt(token);
      expect(claims.exp! - claims.iat!).toBe(7200);
    } finally {
      await s.close();
    }
  });

  it('issues with the first --service-account-issuer, accepts every one, and checks --api-audiences', async () => {
    const s = await start(
      serviceAccountsFromFlags({
        'service-account-issuer': ['https://new.example', 'https://old.example'],
        'api-audiences': ['api,https://new.example'],
        'service-account-jwks-uri': 'https://keys.example/jwks',
      }),
    );
    try {
      const { token, response } = await tokenFor(s);
      expect(decodeJwt(token).iss).toBe('https://new.example');
      expect(response.json.spec.audiences).toEqual(['api', 'https://new.example']);
      expect(await authenticates(s, token)).toBe(true);
      expect(await authenticates(s, (await tokenFor(s, { audiences: ['api'] })).token)).toBe(true);
      expect(await authenticates(s, (await tokenFor(s, { audiences: ['elsewhere'] })).token)).toBe(false);
      const config = (await call(s, 'GET', '/.well-known/openid-configuration', ADMIN)).json;
      expect(config).toMatchObject({ issuer: 'https://new.example', jwks_uri: 'https://keys.example/jwks' });
    } finally {
      await s.close();
    }
  });

  it('an issuer that is not an https URL still issues tokens, but has no discovery documents (as upstream)', async () => {
    const s = await start(serviceAccountsFromFlags({ 'service-account-issuer': ['svckit'] }));
    try {
      const { token } = await tokenFor(s);
      expect(await authenticates(s, token)).toBe(true);
      const r = await call(s, 'GET', '/.well-known/openid-configuration', ADMIN);
      expect(r.status).toBe(404);
      expect(r.json.message).toContain('the service-account issuer "svckit" is not a URL');
    } finally {
      await s.close();
    }
  });
});

/** A port free a moment ago: the issuer URL must name the server's address before it listens. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', () => done()));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}

describe('an OIDC relying party', () => {
  it("verifies the server's tokens through its discovery documents, once RBAC lets it read them", async () => {
    mkdirSync(join(dir, 'oidc-pki'));
    const ca = certificateAuthority(join(dir, 'oidc-pki'));
    const serving = ca.issue('serving', { subject: { cn: '127.0.0.1' }, usage: 'serverAuth', sans: ['127.0.0.1'] });
    const port = await freePort();
    const issuerUrl = `https://127.0.0.1:${port}`;
    const s = await startReferenceServer({
      store: 'memory',
      port,
      access: { tls: serving, tokens: parseTokenFile(`${ADMIN},admin,1,system:masters\n`, 'tokens.csv'), authorizationModes: ['RBAC'] },
      serviceAccounts: { issuers: [issuerUrl] },
    });
    try {
      expect(s.url).toBe(issuerUrl);
      const call = (method: string, path: string, body?: unknown) => fetchJson(`${issuerUrl}${path}`, method, body, ca.cert);
      await call('POST', '/api/v1/namespaces/default/serviceaccounts', {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'robot' },
      });
      const issued = await call('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
        apiVersion: 'authentication.svc.io/v1',
        kind: 'TokenRequest',
        spec: { audiences: ['relying-party'] },
      });
      expect(issued.status).toBe(201);
      const token = issued.json.status.token as string;
      const relyingParty = () =>
        loadJwtAuthenticators(
          {
            jwt: [
              {
                issuer: { url: issuerUrl, audiences: ['relying-party'], certificateAuthority: ca.cert },
                claimMappings: { username: { claim: 'sub', prefix: '' } },
              },
            ],
          },
          { retryAfterFailureMs: 0 },
        )[0]!;
      // Upstream's bootstrap policy lets only service accounts read the documents: an anonymous
      // relying party is refused until an administrator opens them.
      const refused = await relyingParty().authenticate({ bearerToken: token });
      expect(refused).toMatchObject({ outcome: 'reject' });
      expect((refused as { reason: string }).reason).toContain('403');
      const opened = await call('POST', '/apis/rbac.authorization.svc.io/v1/clusterrolebindings', {
        apiVersion: 'rbac.authorization.svc.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'oidc-discovery-public' },
        roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'system:service-account-issuer-discovery' },
        subjects: [{ apiGroup: 'rbac.authorization.svc.io', kind: 'Group', name: 'system:unauthenticated' }],
      });
      expect(opened.status).toBe(201);
      expect(await relyingParty().authenticate({ bearerToken: token })).toMatchObject({
        outcome: 'user',
        user: { username: 'system:serviceaccount:default:robot' },
      });
    } finally {
      await s.close();
    }
  });
});

/** A JSON request over HTTPS trusting `ca`, as the admin. */
async function fetchJson(url: string, method: string, body: unknown, ca: string): Promise<{ status: number; json: Json }> {
  const res = await request(url, {
    method: method as 'GET',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    dispatcher: new Agent({ connect: { ca } }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text.startsWith('{') ? JSON.parse(text) : text };
}

describe('flag mistakes are usage errors naming the flag', () => {
  const refused = (values: Parameters<typeof serviceAccountsFromFlags>[0]) => {
    try {
      serviceAccountsFromFlags(values);
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      return (e as Error).message;
    }
    throw new Error('accepted');
  };

  it.each([
    [{ 'service-account-signing-key-file': '/nonexistent/sa.key' }, '--service-account-signing-key-file /nonexistent/sa.key: ENOENT'],
    [{ 'service-account-issuer': ['https://a.example', 'https://a.example'] }, 'is already specified'],
    [{ 'service-account-issuer': ['https//a:b c'] }, `contained a ':' but was not a valid URL`],
    [{ 'service-account-max-token-expiration': '30m' }, 'must be between 1 hour and 2^32 seconds'],
    [{ 'service-account-max-token-expiration': 'soon' }, '--service-account-max-token-expiration soon'],
    [{ 'service-account-jwks-uri': 'http://keys.example/jwks' }, 'requires an https URL'],
  ])('%j', (values, message) => {
    expect(refused(values)).toContain(message);
  });

  it('key files that hold no usable key', () => {
    writeFileSync(join(dir, 'garbage.pem'), 'not a key\n');
    expect(refused({ 'service-account-signing-key-file': join(dir, 'garbage.pem') })).toContain(
      `--service-account-signing-key-file ${join(dir, 'garbage.pem')}: not a PEM private key`,
    );
    expect(refused({ 'service-account-key-file': [join(dir, 'garbage.pem')] })).toContain(
      'no PEM public key, private key or certificate found',
    );
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    writeFileSync(join(dir, 'ed.key'), ed);
    expect(refused({ 'service-account-signing-key-file': join(dir, 'ed.key') })).toContain('must be RSA or ECDSA');
  });
});
