import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuthorizationConfiguration, WebhookConfiguration } from '../../generated/apiserver.svc.io/v1alpha1/index.js';
import { requestAttributes } from './attributes.js';
import { AuthorizerChain } from './authorize.js';
import { loadAuthorizerChain, loadAuthorizers } from './authorizers.js';
import { AuthConfigError } from './cel-support.js';
import { RbacAuthorizer, StaticRbacLister } from './rbac.js';
import { createTestCa, type TestCa } from './testing/pki.testing.js';
import { allow, deny, startTestWebhook, type TestWebhook } from './testing/webhook-server.testing.js';
import type { UserInfo } from './user.js';
import type { WebhookAuthorizer } from './webhook.js';

let ca: TestCa;
let hook: TestWebhook;
let dir: string;
let clock = 0;

const alice: UserInfo = {
  username: 'alice',
  uid: 'u1',
  groups: ['devs', 'system:authenticated'],
  extra: { 'example.svc.io/scopes': ['a', 'b'] },
};
const podsInNs = requestAttributes('GET', '/api/v1/namespaces/ns/pods/p1');
const healthz = requestAttributes('GET', '/healthz');

function clientConfig(name: string, caPem: string, url = hook.url): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: hook',
      '  cluster:',
      `    server: ${url}`,
      `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
      'users:',
      '- name: server',
      '  user: {}',
      'contexts:',
      '- name: default',
      '  context: {cluster: hook, user: server}',
      'current-context: default',
      '',
    ].join('\n'),
  );
  return path;
}

function webhookConfig(overrides: Partial<WebhookConfiguration> = {}): WebhookConfiguration {
  return {
    authorizedTTL: '60s',
    unauthorizedTTL: '10s',
    timeout: '2s',
    subjectAccessReviewVersion: 'v1',
    matchConditionSubjectAccessReviewVersion: 'v1',
    failurePolicy: 'Deny',
    connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: clientConfig('default', ca.cert) },
    matchConditions: [],
    ...overrides,
  };
}

function load(webhook: WebhookConfiguration, name = 'hook'): WebhookAuthorizer {
  const doc: AuthorizationConfiguration = {
    apiVersion: 'apiserver.svc.io/v1alpha1',
    kind: 'AuthorizationConfiguration',
    authorizers: [{ type: 'Webhook', name, webhook }],
  };
  return loadAuthorizers(doc, {
    now: () => clock,
    sleep: async () => {},
    retry: { attempts: 3, initialDelayMs: 1, factor: 2, jitter: 0 },
  })[0] as WebhookAuthorizer;
}

beforeAll(async () => {
  ca = createTestCa();
  hook = await startTestWebhook(ca.issueServer());
  dir = mkdtempSync(join(tmpdir(), 'svckit-webhook-'));
});
afterAll(async () => {
  await hook.close();
  ca.dispose();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  hook.reviews.length = 0;
  hook.respond = () => allow('ok');
  clock = 1_000_000;
});

describe('webhook authorizer against a real HTTPS webhook', () => {
  it('POSTs a v1 SubjectAccessReview for a resource request and allows with the reason', async () => {
    const w = load(webhookConfig());
    expect(await w.authorize({ user: alice, attributes: podsInNs })).toEqual({ decision: 'Allow', reason: 'ok' });
    expect(hook.reviews).toEqual([
      {
        apiVersion: 'authorization.svc.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          resourceAttributes: { namespace: 'ns', verb: 'get', version: 'v1', resource: 'pods', name: 'p1' },
          user: 'alice',
          groups: ['devs', 'system:authenticated'],
          extra: { 'example.svc.io/scopes': ['a', 'b'] },
          uid: 'u1',
        },
      },
    ]);
  });

  it('sends the v1beta1 shape (group, not groups) and non-resource attributes', async () => {
    const w = load(webhookConfig({ subjectAccessReviewVersion: 'v1beta1' }));
    await w.authorize({ user: alice, attributes: healthz });
    expect(hook.reviews[0]).toEqual({
      apiVersion: 'authorization.svc.io/v1beta1',
      kind: 'SubjectAccessReview',
      spec: {
        nonResourceAttributes: { path: '/healthz', verb: 'get' },
        user: 'alice',
        group: ['devs', 'system:authenticated'],
        extra: { 'example.svc.io/scopes': ['a', 'b'] },
        uid: 'u1',
      },
    });
  });

  it('maps denied to Deny and not-allowed-not-denied to NoOpinion', async () => {
    hook.respond = () => deny('policy says no');
    expect(await load(webhookConfig()).authorize({ user: alice, attributes: podsInNs })).toEqual({
      decision: 'Deny',
      reason: 'policy says no',
    });
    hook.respond = () => deny('', false);
    expect(await load(webhookConfig()).authorize({ user: alice, attributes: podsInNs })).toEqual({
      decision: 'NoOpinion',
      reason: 'webhook "hook" has no opinion',
    });
  });

  it('caches an allow for authorizedTTL and a deny for unauthorizedTTL', async () => {
    const w = load(webhookConfig({ authorizedTTL: '60s', unauthorizedTTL: '10s' }));
    hook.respond = (review) => ((review.spec as { user: string }).user === 'alice' ? allow() : deny());
    const bob: UserInfo = { username: 'bob', groups: [], extra: {} };
    await w.authorize({ user: alice, attributes: podsInNs });
    await w.authorize({ user: bob, attributes: podsInNs });
    expect(hook.reviews).toHaveLength(2);
    await w.authorize({ user: alice, attributes: podsInNs });
    await w.authorize({ user: bob, attributes: podsInNs });
    expect(hook.reviews).toHaveLength(2);
    clock += 11_000; // the deny expired, the allow did not
    expect((await w.authorize({ user: alice, attributes: podsInNs })).decision).toBe('Allow');
    expect((await w.authorize({ user: bob, attributes: podsInNs })).decision).toBe('Deny');
    expect(hook.reviews).toHaveLength(3);
    clock += 50_000; // now the allow expired too
    await w.authorize({ user: alice, attributes: podsInNs });
    expect(hook.reviews).toHaveLength(4);
    // Another request of the same user is a different cache key.
    await w.authorize({ user: alice, attributes: healthz });
    expect(hook.reviews).toHaveLength(5);
  });

  it('does not cache requests with very long attributes', async () => {
    const w = load(webhookConfig());
    const long = requestAttributes('GET', `/api/v1/namespaces/ns/configmaps/${'x'.repeat(6000)}`);
    await w.authorize({ user: alice, attributes: long });
    await w.authorize({ user: alice, attributes: long });
    expect(hook.reviews).toHaveLength(2);
  });

  it('fails closed on an answer that is both allowed and denied', async () => {
    hook.respond = () => ({ body: { kind: 'SubjectAccessReview', status: { allowed: true, denied: true, reason: 'confused' } } });
    const r = await load(webhookConfig({ failurePolicy: 'NoOpinion' })).authorize({ user: alice, attributes: podsInNs });
    expect(r).toEqual({ decision: 'Deny', reason: 'confused', error: 'the webhook answered both allowed and denied' });
  });

  it('does not cache with a zero TTL', async () => {
    const w = load(webhookConfig({ authorizedTTL: '0s' }));
    await w.authorize({ user: alice, attributes: podsInNs });
    await w.authorize({ user: alice, attributes: podsInNs });
    expect(hook.reviews).toHaveLength(2);
  });

  it('retries on 500 and 429, then uses the answer', async () => {
    hook.respond = (_r, i) => (i === 0 ? { status: 500, body: { message: 'busy' } } : i === 1 ? { status: 429 } : allow('third time'));
    const w = load(webhookConfig());
    expect(await w.authorize({ user: alice, attributes: podsInNs })).toEqual({ decision: 'Allow', reason: 'third time' });
    expect(hook.reviews).toHaveLength(3);
    expect(w.calls).toBe(3);
  });

  it('applies the failure policy when retries run out, and does not cache the failure', async () => {
    hook.respond = () => ({ status: 503 });
    const w = load(webhookConfig({ failurePolicy: 'Deny' }));
    expect(await w.authorize({ user: alice, attributes: podsInNs })).toEqual({
      decision: 'Deny',
      reason: 'webhook "hook" failed, failurePolicy Deny applies',
      error: 'webhook answered 503 (after 3 attempts)',
    });
    expect(hook.reviews).toHaveLength(3);
    hook.respond = () => allow();
    expect((await w.authorize({ user: alice, attributes: podsInNs })).decision).toBe('Allow');
  });

  it('retries a refused connection, then applies the failure policy', async () => {
    const probe = await import('node:net');
    const port = await new Promise<number>((resolve) => {
      const srv = probe.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const url = `https://127.0.0.1:${port}/authorize`;
    const w = load(
      webhookConfig({
        failurePolicy: 'NoOpinion',
        connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: clientConfig('refused', ca.cert, url) },
      }),
    );
    const r = await w.authorize({ user: alice, attributes: podsInNs });
    expect(r.decision).toBe('NoOpinion');
    expect(r.error).toMatch(/ECONNREFUSED.*\(after 3 attempts\)/);
    expect(w.calls).toBe(3);
  });

  it('does not retry a 4xx other than 429', async () => {
    hook.respond = () => ({ status: 400 });
    const w = load(webhookConfig({ failurePolicy: 'NoOpinion' }));
    expect(await w.authorize({ user: alice, attributes: podsInNs })).toMatchObject({
      decision: 'NoOpinion',
      error: 'webhook answered 400',
    });
    expect(hook.reviews).toHaveLength(1);
  });

  it('applies the failure policy on a timeout, without retrying', async () => {
    hook.respond = () => ({ ...allow(), delayMs: 1000 });
    const w = load(webhookConfig({ timeout: '100ms', failurePolicy: 'NoOpinion' }));
    const r = await w.authorize({ user: alice, attributes: podsInNs });
    expect(r).toMatchObject({ decision: 'NoOpinion', reason: 'webhook "hook" failed, failurePolicy NoOpinion applies' });
    expect(r.error).toMatch(/timed out after 100ms/);
    expect(w.calls).toBe(1);
  });

  it('applies the failure policy on a malformed answer', async () => {
    hook.respond = () => ({ body: { kind: 'SubjectAccessReview', status: { allowed: 'yes' } } });
    const r = await load(webhookConfig()).authorize({ user: alice, attributes: podsInNs });
    expect(r).toMatchObject({ decision: 'Deny', error: 'malformed webhook response: the response has no boolean status.allowed' });
  });

  it('does not trust a webhook certificate from another CA', async () => {
    const other = createTestCa('other');
    try {
      const w = load(webhookConfig({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: clientConfig('other-ca', other.cert) } }));
      const r = await w.authorize({ user: alice, attributes: podsInNs });
      expect(r.decision).toBe('Deny');
      expect(r.error).toMatch(/certificate/i);
      expect(hook.reviews).toHaveLength(0);
    } finally {
      other.dispose();
    }
  });
});

describe('match conditions', () => {
  const conditions = [
    { expression: "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'ns'" },
    { expression: "request.user != 'system:admin'" },
  ];

  it('calls the webhook when every condition is true', async () => {
    const w = load(webhookConfig({ matchConditions: conditions }));
    expect((await w.authorize({ user: alice, attributes: podsInNs })).decision).toBe('Allow');
    expect(hook.reviews).toHaveLength(1);
  });

  it('has no opinion, without a call, when a condition is false', async () => {
    const w = load(webhookConfig({ matchConditions: conditions }));
    const r = await w.authorize({ user: alice, attributes: healthz });
    expect(r).toEqual({
      decision: 'NoOpinion',
      reason: `matchConditions[0] ${JSON.stringify(conditions[0]?.expression)} is false; webhook not called`,
    });
    const admin: UserInfo = { username: 'system:admin', groups: [], extra: {} };
    expect((await w.authorize({ user: admin, attributes: podsInNs })).decision).toBe('NoOpinion');
    expect(hook.reviews).toHaveLength(0);
  });

  it('applies the failure policy, without a call, when a condition fails to evaluate', async () => {
    const w = load(
      webhookConfig({ failurePolicy: 'Deny', matchConditions: [{ expression: "request.resourceAttributes.namespace == 'ns'" }] }),
    );
    const r = await w.authorize({ user: alice, attributes: healthz });
    expect(r.decision).toBe('Deny');
    expect(r.error).toMatch(/^matchConditions\[0\] .*resourceAttributes/);
    expect(hook.reviews).toHaveLength(0);
  });

  it('sees the v1 spec even when v1beta1 is sent', async () => {
    const w = load(webhookConfig({ subjectAccessReviewVersion: 'v1beta1', matchConditions: [{ expression: "'devs' in request.groups" }] }));
    expect((await w.authorize({ user: alice, attributes: podsInNs })).decision).toBe('Allow');
    expect(hook.reviews).toHaveLength(1);
  });
});

describe('loading an AuthorizationConfiguration', () => {
  function loadError(doc: AuthorizationConfiguration): AuthConfigError {
    try {
      loadAuthorizers(doc, {});
    } catch (e) {
      if (e instanceof AuthConfigError) return e;
      throw e;
    }
    throw new Error('expected an AuthConfigError');
  }
  const withWebhook = (w: Partial<WebhookConfiguration>): AuthorizationConfiguration => ({
    authorizers: [{ type: 'Webhook', name: 'hook', webhook: webhookConfig(w) }],
  });

  it.each([
    ['a timeout over 30s', () => withWebhook({ timeout: '31s' }), 'authorizers[0].webhook.timeout', /at most 30s/],
    ['a bad duration', () => withWebhook({ authorizedTTL: '5 minutes' }), 'authorizers[0].webhook.authorizedTTL', /invalid duration/],
    [
      'a bad failure policy',
      () => withWebhook({ failurePolicy: 'Allow' as 'Deny' }),
      'authorizers[0].webhook.failurePolicy',
      /Deny or NoOpinion/,
    ],
    [
      'a non-bool match condition',
      () => withWebhook({ matchConditions: [{ expression: 'true' }, { expression: 'request.user' }] }),
      'authorizers[0].webhook.matchConditions[1].expression',
      /must evaluate to bool, but evaluates to string/,
    ],
    [
      'an undeclared variable',
      () => withWebhook({ matchConditions: [{ expression: 'object.x == 1' }] }),
      'authorizers[0].webhook.matchConditions[0].expression',
      /Unknown variable: object/,
    ],
    [
      'a syntax error',
      () => withWebhook({ matchConditions: [{ expression: 'request.user ==' }] }),
      'authorizers[0].webhook.matchConditions[0].expression',
      /compilation failed/,
    ],
    [
      'a misspelled field',
      () => withWebhook({ matchConditions: [{ expression: "request.usr == 'a'" }] }),
      'authorizers[0].webhook.matchConditions[0].expression',
      /usr/,
    ],
    [
      '65 match conditions',
      () => withWebhook({ matchConditions: Array.from({ length: 65 }, (_, i) => ({ expression: `request.user != 'u${i}'` })) }),
      'authorizers[0].webhook.matchConditions',
      /at most 64/,
    ],
    [
      'a missing client config',
      () => withWebhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/nonexistent/config' } }),
      'authorizers[0].webhook.connectionInfo.kubeConfigFile',
      /ENOENT/,
    ],
    [
      'InClusterConfig',
      () => withWebhook({ connectionInfo: { type: 'InClusterConfig' } }),
      'authorizers[0].webhook.connectionInfo.type',
      /not supported/,
    ],
    ['a Webhook without webhook', () => ({ authorizers: [{ type: 'Webhook', name: 'hook' }] }), 'authorizers[0].webhook', /required/],
    [
      'webhook on another type',
      () => ({ authorizers: [{ type: 'AlwaysAllow', name: 'a', webhook: webhookConfig() }] }),
      'authorizers[0].webhook',
      /only allowed/,
    ],
    ['a bad name', () => ({ authorizers: [{ type: 'AlwaysAllow', name: 'Not_A_Label' }] }), 'authorizers[0].name', /RFC 1123 label/],
    [
      'a duplicate name',
      () => ({
        authorizers: [
          { type: 'AlwaysAllow', name: 'a' },
          { type: 'AlwaysDeny', name: 'a' },
        ],
      }),
      'authorizers[1].name',
      /duplicate/,
    ],
    ['RBAC without a lister', () => ({ authorizers: [{ type: 'RBAC', name: 'rbac' }] }), 'authorizers[0].type', /rbacLister/],
    ['Node', () => ({ authorizers: [{ type: 'Node', name: 'node' }] }), 'authorizers[0].type', /not supported/],
    ['no authorizers', () => ({ authorizers: [] }), 'authorizers', /at least one/],
  ] as [string, () => AuthorizationConfiguration, string, RegExp][])('rejects %s naming the field', (_name, doc, path, detail) => {
    const e = loadError(doc());
    expect(e.path).toBe(path);
    expect(e.detail).toMatch(detail);
  });

  it('builds a chain in order: RBAC has no opinion, the webhook decides, and the explanation shows both', async () => {
    hook.respond = () => allow('webhook says yes');
    const lister = new StaticRbacLister({});
    const chain = loadAuthorizerChain(
      {
        authorizers: [
          { type: 'RBAC', name: 'rbac' },
          { type: 'Webhook', name: 'policy', webhook: webhookConfig() },
          { type: 'AlwaysDeny', name: 'closed' },
        ],
      },
      { rbacLister: lister },
    );
    expect(chain).toBeInstanceOf(AuthorizerChain);
    const r = await chain.authorize({ user: alice, attributes: podsInNs });
    expect(r).toEqual({
      allowed: true,
      decision: 'Allow',
      authorizer: 'policy',
      reason: 'webhook says yes',
      steps: [
        { authorizer: 'rbac', decision: 'NoOpinion', reason: '', explanation: 'RBAC: no binding grants the request' },
        { authorizer: 'policy', decision: 'Allow', reason: 'webhook says yes' },
      ],
    });
    expect(new RbacAuthorizer(lister).name).toBe('rbac');
  });
});
