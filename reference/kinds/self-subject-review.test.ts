/**
 * SelfSubjectReview over HTTP (`kubectl auth whoami`): the answer is the caller's user as the
 * server authenticated it (or as impersonated), never stored, with only a creation time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/index.js';

const REVIEWS = '/apis/authentication.svc.io/v1/selfsubjectreviews';
let server: TestServer;

async function review(user: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${REVIEWS}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token(user)}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ apiVersion: 'authentication.svc.io/v1', kind: 'SelfSubjectReview', metadata: { name: 'ignored' } }),
  });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

beforeAll(async () => {
  server = await startTestServer({ users: { alice: ['devs'] } });
});
afterAll(() => server.close());

describe('SelfSubjectReview', () => {
  it('answers the caller with its groups, any authenticated user may ask', async () => {
    const res = await review('alice');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      apiVersion: 'authentication.svc.io/v1',
      kind: 'SelfSubjectReview',
      status: { userInfo: { username: 'alice', groups: ['devs', 'system:authenticated'] } },
    });
    // A new review: the name sent is not echoed, the creation time is the server's.
    expect(res.body.metadata.name).toBeUndefined();
    expect(Date.parse(res.body.metadata.creationTimestamp)).not.toBeNaN();
  });

  it('answers the impersonated user, not the impersonator', async () => {
    const res = await review('admin', { 'impersonate-user': 'bob', 'impersonate-group': 'testers' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.status.userInfo).toEqual({ username: 'bob', groups: ['testers', 'system:authenticated'] });
  });

  it('is never stored: there is nothing to list', async () => {
    const res = await fetch(`${server.url}${REVIEWS}`, { headers: { authorization: `Bearer ${server.token('admin')}` } });
    expect(res.status).toBe(405);
  });
});
