import { afterEach, describe, expect, it } from 'vitest';
import { AuditPolicy, Auditor, MemoryAuditBackend } from '../audit/index.js';
import { generateSigningKey, ServiceAccountIssuer } from '../auth/index.js';
import { type Stage, compose } from './chain.js';
import type { RequestContext } from './context.js';
import { type Harness, startServer } from './server.testing.js';
import { defaultStages } from './stages/index.js';

describe('the handler chain', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('runs the stages in one visible order', () => {
    expect(defaultStages({}).map((s) => s.name)).toEqual([
      'metrics',
      'kubectl-names',
      'audit-failed-authentication',
      'authenticate',
      'negotiate',
      'audit',
      'impersonate',
      'authorize',
      'explain',
      'rate-limit',
    ]);
    // A server that issues service-account tokens serves its issuer's discovery documents after authorization.
    const issuer = new ServiceAccountIssuer({ issuers: ['https://issuer.example'], signingKey: generateSigningKey() });
    expect(defaultStages({ serviceAccountIssuer: issuer }).map((s) => s.name)).toContain('issuer-discovery');
    const names = defaultStages({ serviceAccountIssuer: issuer }).map((s) => s.name);
    expect(names.indexOf('issuer-discovery')).toBeGreaterThan(names.indexOf('authorize'));
  });

  it('composes stages: each may act before and after the rest, or answer itself', async () => {
    const seen: string[] = [];
    const stage = (name: string): Stage => ({
      name,
      async handle(_ctx, next) {
        seen.push(`${name} in`);
        const reply = await next();
        seen.push(`${name} out`);
        return reply;
      },
    });
    const run = compose([stage('a'), stage('b')], async () => {
      seen.push('end');
      return { status: 200, body: 'ok' };
    });
    expect(await run({} as RequestContext)).toEqual({ status: 200, body: 'ok' });
    expect(seen).toEqual(['a in', 'b in', 'end', 'b out', 'a out']);
  });

  it('takes policies without touching the verb handlers: a denying authorizer is a 403, the audit sink sees the anonymous user', async () => {
    const backend = new MemoryAuditBackend();
    h = await startServer({
      createNamespace: false,
      server: {
        chain: {
          audit: new Auditor(AuditPolicy.everything('Metadata', { omitStages: ['RequestReceived'] }), backend),
          authorizer: {
            authorize: async ({ attributes: a }) => ({
              allowed: a.verb === 'list' || a.verb === 'get' || (a.verb === 'create' && a.resource === 'subjectaccessreviews'),
              reason: 'read-only for the test',
            }),
          },
        },
      },
    });
    expect((await h.get('/api/v1/namespaces')).status).toBe(200);
    const denied = await h.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(
      'namespaces is forbidden: User "system:anonymous" cannot create resource "namespaces" in API group "" at the cluster scope: read-only for the test',
    );
    expect(backend.events().map((e) => `${e.user.username} ${e.verb} ${e.requestURI} ${e.responseStatus?.code}`)).toEqual([
      'system:anonymous list /api/v1/namespaces 200',
      'system:anonymous create /api/v1/namespaces 403',
    ]);
  });

  it('answers access reviews with the same authorizer the authorize stage asks', async () => {
    h = await startServer({
      createNamespace: false,
      server: {
        chain: {
          authorizer: {
            authorize: async ({ user, attributes: a }) => ({
              allowed: a.verb !== 'delete' || user.username === 'admin',
              reason: `${a.verb} ${a.resource} by ${user.username || 'anyone'}`,
            }),
          },
        },
      },
    });
    const review = (user: string, verb: string) => ({
      apiVersion: 'authorization.svc.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user, resourceAttributes: { verb, resource: 'pods', namespace: 'x' } },
    });
    const sar = '/apis/authorization.svc.io/v1/subjectaccessreviews';
    expect((await h.post(sar, review('bob', 'delete'))).body.status).toEqual({
      allowed: false,
      denied: true,
      reason: 'delete pods by bob',
    });
    expect((await h.post(sar, review('admin', 'delete'))).body.status).toEqual({ allowed: true, reason: 'delete pods by admin' });
  });

  it('without an authorization policy, allows every request and every review, and says why', async () => {
    h = await startServer({ createNamespace: false });
    const res = await h.post('/apis/authorization.svc.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.svc.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'bob', nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toEqual({
      allowed: true,
      reason: 'the svckit reference server has no authorization policy: every request is allowed',
    });
  });
});
