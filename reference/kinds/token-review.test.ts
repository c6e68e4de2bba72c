/**
 * TokenReview over HTTP on a test server with identities: the server's own authenticators judge a
 * token (a user's, a service account's, a bad one), the reviewer needs `create tokenreviews`
 * (`system:auth-delegator`), and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/index.js';

const REVIEWS = '/apis/authentication.svc.io/v1/tokenreviews';
const RBAC = 'rbac.authorization.svc.io';
let server: TestServer;

async function call(user: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token(user)}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const review = (token: string | undefined, audiences?: string[]) => ({
  apiVersion: 'authentication.svc.io/v1',
  kind: 'TokenReview',
  spec: { ...(token === undefined ? {} : { token }), ...(audiences ? { audiences } : {}) },
});

beforeAll(async () => {
  server = await startTestServer({ users: { proxy: [], alice: ['devs'] } });
  await server.install([
    {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'proxy-delegates' },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'system:auth-delegator' },
      subjects: [{ kind: 'User', apiGroup: RBAC, name: 'proxy' }],
    },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'metrics-reader', namespace: 'default' } },
  ]);
});
afterAll(() => server.close());

describe('TokenReview', () => {
  it("authenticates a user's token as the server would, with the user's groups", async () => {
    const res = await call('proxy', 'POST', REVIEWS, review(server.token('alice')));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.status).toMatchObject({ authenticated: true, user: { username: 'alice', groups: ['devs', 'system:authenticated'] } });
    expect(res.body.metadata?.creationTimestamp).toBeUndefined();
  });

  it("authenticates a service account's token, for the API server's audience", async () => {
    const token = await server.serviceAccountToken('default', 'metrics-reader');
    const res = await call('proxy', 'POST', REVIEWS, review(token));
    expect(res.body.status).toMatchObject({
      authenticated: true,
      user: {
        username: 'system:serviceaccount:default:metrics-reader',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
    const other = await call('proxy', 'POST', REVIEWS, review(token, ['https://vault.example.com']));
    expect(other.body.status.authenticated).toBe(false);
    expect(other.body.status.error).toContain('is invalid for the target audiences ["https://vault.example.com"]');
  });

  it('checks a service-account token against the audiences the review names, as a relying party asks', async () => {
    const vault = 'https://vault.example.com';
    const token = await server.serviceAccountToken('default', 'metrics-reader', { audiences: [vault, 'other'] });
    const res = await call('proxy', 'POST', REVIEWS, review(token, [vault]));
    expect(res.body.status).toMatchObject({ authenticated: true, audiences: [vault] });
    expect(res.body.status.user.username).toBe('system:serviceaccount:default:metrics-reader');
    // Not for the API server: without audiences the review asks for the server's.
    expect((await call('proxy', 'POST', REVIEWS, review(token))).body.status.authenticated).toBe(false);
    // A token that names no audience counts for the server's audiences only.
    const user = await call('proxy', 'POST', REVIEWS, review(server.token('alice'), [vault]));
    expect(user.body.status).toMatchObject({
      authenticated: false,
      error:
        'token audiences ["https://kubernetes.default.svc.cluster.local"] is invalid for the target audiences ["https://vault.example.com"]',
    });
  });

  it('answers unauthenticated, with the reason, for a token nobody issued', async () => {
    const res = await call('proxy', 'POST', REVIEWS, review('not-a-token'));
    expect(res.status).toBe(201);
    expect(res.body.status.authenticated).toBe(false);
    expect(res.body.status.user).toBeUndefined();
  });

  it('is 400 without a token, and 403 for a user who may not create reviews', async () => {
    const empty = await call('proxy', 'POST', REVIEWS, review(undefined));
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe('token is required for TokenReview in authentication');
    const forbidden = await call('alice', 'POST', REVIEWS, review(server.token('proxy')));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toContain('User "alice" cannot create resource "tokenreviews" in API group "authentication.svc.io"');
  });
});
