/**
 * `--authentication-config` and `--authorization-config` end to end: the flag values go through
 * `serveAccess` (read, defaulted and validated as `svckit validate` does, loaded into the chains)
 * into the reference server, which is then asked over HTTPS. A real local OIDC issuer signs the
 * tokens (JWKS over HTTPS) and a real local webhook answers SubjectAccessReviews; nothing is mocked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestIssuer, type TestIssuer } from '../../runtime/auth/testing/oidc-issuer.testing.js';
import { createTestCa, type TestCa } from '../../runtime/auth/testing/pki.testing.js';
import { parsePrometheusText, samples } from '../../runtime/metrics/prometheus-text.testing.js';
import { allow, deny, startTestWebhook, type TestWebhook } from '../../runtime/auth/testing/webhook-server.testing.js';
import { type RunningServer, startReferenceServer } from '../../reference/index.js';
import { serveAccess } from './serve-access.js';
import { UsageError } from './usage-error.js';

let dir: string;
let ca: TestCa;
let issuer: TestIssuer;
let webhook: TestWebhook;
let server: RunningServer;
let agent: Agent;

async function call(token: string | undefined, method: string, path: string, body?: unknown) {
  const res = await request(`${server.url}${path}`, {
    method: method as 'GET',
    dispatcher: agent,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

const now = () => Math.floor(Date.now() / 1000);
const token = (claims: Record<string, unknown>) => issuer.sign({ iss: issuer.url, aud: 'svckit', iat: now(), exp: now() + 600, ...claims });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-serve-access-'));
  ca = createTestCa();
  issuer = await startTestIssuer(ca.issueServer());
  webhook = await startTestWebhook(ca.issueServer());
  writeFileSync(
    join(dir, 'authn.yaml'),
    stringify({
      apiVersion: 'apiserver.svc.io/v1alpha1',
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: { url: issuer.url, audiences: ['svckit'], certificateAuthority: ca.cert },
          claimMappings: { username: { claim: 'sub', prefix: 'oidc:' }, groups: { claim: 'groups', prefix: 'oidc:' } },
        },
      ],
    }),
  );
  writeFileSync(
    join(dir, 'webhook.conf'),
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'hook', cluster: { server: webhook.url, 'certificate-authority-data': Buffer.from(ca.cert).toString('base64') } }],
      contexts: [{ name: 'hook', context: { cluster: 'hook', user: 'hook' } }],
      users: [{ name: 'hook', user: {} }],
      'current-context': 'hook',
    }),
  );
  writeFileSync(
    join(dir, 'authz.yaml'),
    stringify({
      apiVersion: 'apiserver.svc.io/v1alpha1',
      kind: 'AuthorizationConfiguration',
      authorizers: [
        {
          type: 'Webhook',
          name: 'hook',
          webhook: {
            timeout: '3s',
            authorizedTTL: '5m',
            unauthorizedTTL: '30s',
            subjectAccessReviewVersion: 'v1',
            matchConditionSubjectAccessReviewVersion: 'v1',
            failurePolicy: 'NoOpinion',
            connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: join(dir, 'webhook.conf') },
            matchConditions: [{ expression: "has(request.resourceAttributes) && request.resourceAttributes.resource == 'configmaps'" }],
          },
        },
        { type: 'RBAC', name: 'rbac' },
      ],
    }),
  );
  const serving = ca.issueServer();
  writeFileSync(join(dir, 'tls.crt'), serving.cert);
  writeFileSync(join(dir, 'tls.key'), serving.key);
  const { access } = serveAccess(
    {
      'tls-cert-file': join(dir, 'tls.crt'),
      'tls-private-key-file': join(dir, 'tls.key'),
      'authentication-config': join(dir, 'authn.yaml'),
      'authorization-config': join(dir, 'authz.yaml'),
      'anonymous-auth': 'true',
    },
    '127.0.0.1',
    'memory',
  );
  server = await startReferenceServer({ store: 'memory', port: 0, ...(access ? { access } : {}) });
  agent = new Agent({ connect: { ca: ca.cert } });
});

afterAll(async () => {
  await agent?.close();
  await server?.close();
  await webhook?.close();
  await issuer?.close();
  ca?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('--authentication-config: JWT from a local OIDC issuer', () => {
  it('maps claims to the user (prefixes), adds system:authenticated; a bad token is 401', async () => {
    webhook.respond = (review) => {
      const spec = review.spec as { user: string; groups: string[] };
      return spec.user === 'oidc:alice' ? allow('alice may') : deny('not alice', false);
    };
    const alice = await token({ sub: 'alice', groups: ['devs'] });
    const r = await call(alice, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(r.status).toBe(200);
    expect(webhook.reviews.at(-1)?.spec).toMatchObject({ user: 'oidc:alice', groups: ['oidc:devs', 'system:authenticated'] });
    expect((await call(await token({ sub: 'alice', aud: 'someone-else' }), 'GET', '/healthz')).status).toBe(401);
    expect((await call(await token({ sub: 'alice', exp: now() - 120 }), 'GET', '/healthz')).status).toBe(401);
  });
});

describe('--authorization-config: a webhook (match conditions, TTL cache) before RBAC', () => {
  it('asks the webhook only when its conditions match, and caches its answer for authorizedTTL', async () => {
    const alice = await token({ sub: 'alice', groups: ['devs'] });
    const before = webhook.reviews.length;
    expect((await call(alice, 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    // The same request again within authorizedTTL: answered from the cache.
    expect(webhook.reviews.length).toBe(before);
    // Secrets do not match the condition: the webhook is not asked, RBAC has no binding, 403.
    const secrets = await call(alice, 'GET', '/api/v1/namespaces/default/secrets');
    expect(secrets.status).toBe(403);
    expect(secrets.body.message).toContain('User "oidc:alice" cannot list resource "secrets"');
    expect(webhook.reviews.length).toBe(before);
    // bob: the webhook has no opinion (allowed false, denied false); RBAC has none either.
    const bob = await token({ sub: 'bob' });
    expect((await call(bob, 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(403);
    expect(webhook.reviews.length).toBe(before + 1);
    // Every call the webhook answered is observed in the server's metrics, by authorizer name.
    const m = parsePrometheusText((await server.server.context.metrics!.render()).text);
    const calls = samples(m, 'apiserver_authorization_webhook_duration_seconds_count', { name: 'hook', result: 'success' });
    expect(calls.map((x) => x.value)).toEqual([webhook.reviews.length]);
  });

  it('a rules review is incomplete: a webhook cannot list its rules', async () => {
    const alice = await token({ sub: 'alice' });
    const r = await call(alice, 'POST', '/apis/authorization.svc.io/v1/selfsubjectrulesreviews', {
      apiVersion: 'authorization.svc.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'default' },
    });
    expect(r.status).toBe(201);
    expect(r.body.status.incomplete).toBe(true);
    expect(r.body.status.evaluationError).toContain('hook: cannot list rules');
  });
});

describe('configuration mistakes are usage errors', () => {
  it('an authorizer configuration that does not load names the field', () => {
    const file = join(dir, 'bad-authz.yaml');
    writeFileSync(
      file,
      stringify({
        apiVersion: 'apiserver.svc.io/v1alpha1',
        kind: 'AuthorizationConfiguration',
        authorizers: [{ type: 'RBAC', name: 'Not_A_Label' }],
      }),
    );
    expect(() => serveAccess({ 'authorization-config': file, 'anonymous-auth': 'true' }, '127.0.0.1', 'memory')).toThrow(UsageError);
    expect(() => serveAccess({ 'authorization-config': file, 'anonymous-auth': 'true' }, '127.0.0.1', 'memory')).toThrow(
      /authorizers\[0\]\.name/,
    );
  });
});

describe('off loopback, the server starts only when anonymous requests are refused', () => {
  const tokens = () => {
    const file = join(dir, 'tokens.csv');
    writeFileSync(file, 'secret-token,alice,1\n');
    return file;
  };
  const refused: { why: string; values: Record<string, string> }[] = [
    { why: 'nothing configured', values: {} },
    { why: 'a token file, authorization AlwaysAllow', values: { 'token-auth-file': 'TOKENS' } },
    { why: 'a token file, AlwaysAllow after RBAC', values: { 'token-auth-file': 'TOKENS', 'authorization-mode': 'RBAC,AlwaysAllow' } },
    { why: 'explicit AlwaysAllow', values: { 'authorization-mode': 'AlwaysAllow' } },
  ];
  const started: { why: string; values: Record<string, string> }[] = [
    { why: 'RBAC', values: { 'token-auth-file': 'TOKENS', 'authorization-mode': 'RBAC' } },
    { why: 'anonymous authentication off', values: { 'token-auth-file': 'TOKENS', 'anonymous-auth': 'false' } },
    { why: 'AlwaysDeny', values: { 'authorization-mode': 'AlwaysDeny' } },
  ];
  const withFiles = (values: Record<string, string>) =>
    Object.fromEntries(Object.entries({ 'anonymous-auth': 'true', ...values }).map(([k, v]) => [k, v === 'TOKENS' ? tokens() : v]));

  it.each(refused)('refused on 0.0.0.0 and ::: $why', ({ values }) => {
    for (const host of ['0.0.0.0', '::', '192.0.2.10'])
      expect(() => serveAccess(withFiles(values), host, 'memory')).toThrow(/is not a loopback address and .*--allow-insecure-non-loopback/);
  });

  it.each(started)('started on 0.0.0.0: $why', ({ values }) => {
    expect(() => serveAccess(withFiles(values), '0.0.0.0', 'memory')).not.toThrow();
  });

  it('loopback hosts and --allow-insecure-non-loopback start with anything', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1']) expect(() => serveAccess(withFiles({}), host, 'memory')).not.toThrow();
    expect(() => serveAccess({ ...withFiles({}), 'allow-insecure-non-loopback': true }, '0.0.0.0', 'memory')).not.toThrow();
  });
});
