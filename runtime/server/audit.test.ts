import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forbidden } from '../api/index.js';
import {
  type AuditEvent,
  AuditPolicy,
  Auditor,
  LogFileAuditBackend,
  MemoryAuditBackend,
  type PolicyInput,
  unionBackend,
} from '../audit/index.js';
import { allKinds } from '../../generated/kinds.js';
import { Collector } from '../validate/index.js';
import { validatorOf } from '../schema/index.js';
import type { AdmissionPlugin } from './admission.js';
import { type Harness, type Json, startServer } from './server.testing.js';
import { ANONYMOUS } from './stages/index.js';

const EVENT_KIND = allKinds.find((k) => k.apiVersion === 'audit.svc.io/v1' && k.kind === 'Event')!;

const CMS = '/api/v1/namespaces/test/configmaps';
const cm = (name: string, data: Record<string, string> = { a: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('the audit stage', () => {
  let h: Harness | undefined;
  let memory: MemoryAuditBackend;
  afterEach(async () => {
    // Every event a test recorded is a valid audit.svc.io/v1 Event, with no field the kind lacks.
    for (const event of memory?.events() ?? []) {
      const c = new Collector();
      validatorOf(EVENT_KIND.schema)(event, '', c);
      expect({ errors: c.errors, unknown: c.unknownFields }, JSON.stringify(event)).toEqual({ errors: [], unknown: [] });
    }
    await h?.close();
    h = undefined;
  });

  /** A server recording with `policy` to memory (and `also`); the namespace is created before recording starts. */
  async function serve(policy: PolicyInput, options: { also?: LogFileAuditBackend; server?: Parameters<typeof startServer>[0] } = {}) {
    memory = new MemoryAuditBackend();
    const backend = options.also ? unionBackend([memory, options.also]) : memory;
    h = await startServer({
      ...options.server,
      server: {
        ...options.server?.server,
        chain: { ...options.server?.server?.chain, audit: new Auditor(AuditPolicy.compile(policy), backend) },
      },
    });
    memory.clear();
    return h;
  }

  /** The events of the request that answered with this Audit-ID, stage by stage. */
  const eventsOf = (res: { headers: Record<string, string> }): AuditEvent[] => {
    const id = res.headers['audit-id'];
    expect(id).toMatch(/./);
    return memory.events({ auditID: id });
  };

  it('records a create at RequestResponse: both stages, the body as sent, the stored object, objectRef from path and body', async () => {
    const s = await serve({ rules: [{ level: 'RequestResponse' }] });
    const res = await s.post(CMS, cm('c1')).set('user-agent', 'audit-test/1.0').set('x-forwarded-for', '10.0.0.7');
    expect(res.status).toBe(201);
    const events = eventsOf(res);
    expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    const [received, complete] = events as [AuditEvent, AuditEvent];
    expect(received.responseStatus).toBeUndefined();
    expect(received.requestObject).toBeUndefined(); // the body is read after RequestReceived
    expect(complete).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.svc.io/v1',
      level: 'RequestResponse',
      requestURI: CMS,
      verb: 'create',
      user: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
      sourceIPs: ['10.0.0.7', '127.0.0.1'],
      userAgent: 'audit-test/1.0',
      objectRef: { resource: 'configmaps', namespace: 'test', name: 'c1', apiGroup: '', apiVersion: 'v1' },
      responseStatus: { metadata: {}, status: 'Success', code: 201 },
      annotations: { 'authorization.svc.io/decision': 'allow' },
    });
    // Recorded before defaulting: exactly what the client sent.
    expect(complete.requestObject).toEqual(cm('c1'));
    expect(complete.responseObject).toEqual(res.body);
    expect((complete.responseObject as Json).metadata.uid).toMatch(/./);
    expect(complete.requestReceivedTimestamp).toBe(received.requestReceivedTimestamp);
    expect(complete.requestReceivedTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(complete.stageTimestamp >= complete.requestReceivedTimestamp).toBe(true);
  });

  it('keeps at Metadata only the metadata, and at Request the request object but not the response', async () => {
    const s = await serve({ rules: [{ level: 'Request', verbs: ['update'] }, { level: 'Metadata' }] });
    const created = (await s.post(CMS, cm('c1'))).body;
    const get = await s.get(`${CMS}/c1`);
    const [getDone] = eventsOf(get).filter((e) => e.stage === 'ResponseComplete') as [AuditEvent];
    expect(getDone).toMatchObject({ level: 'Metadata', verb: 'get', objectRef: { resource: 'configmaps', namespace: 'test', name: 'c1' } });
    expect(getDone.requestObject).toBeUndefined();
    expect(getDone.responseObject).toBeUndefined();

    const update = { ...created, data: { a: '2' } };
    const put = await s.put(`${CMS}/c1`, update);
    expect(put.status).toBe(200);
    const [putDone] = eventsOf(put).filter((e) => e.stage === 'ResponseComplete') as [AuditEvent];
    expect(putDone).toMatchObject({ level: 'Request', verb: 'update', requestObject: update, responseStatus: { code: 200 } });
    expect(putDone.objectRef).toMatchObject({ name: 'c1', uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion });
    expect(putDone.responseObject).toBeUndefined();
  });

  it('records no objectRef for a list, the patch as the request object of a patch, DeleteOptions for a delete', async () => {
    const s = await serve({ rules: [{ level: 'RequestResponse' }] });
    await s.post(CMS, cm('c1'));
    const list = await s.get(CMS);
    const listDone = eventsOf(list).at(-1)!;
    expect(listDone).toMatchObject({ verb: 'list', stage: 'ResponseComplete', responseObject: { kind: 'ConfigMapList' } });
    expect(listDone.objectRef).toBeUndefined();

    const patch = await s.patch(`${CMS}/c1`, { data: { b: '2' } });
    expect(patch.status).toBe(200);
    expect(eventsOf(patch).at(-1)).toMatchObject({
      verb: 'patch',
      objectRef: { name: 'c1' },
      requestObject: { data: { b: '2' } },
      responseObject: { data: { a: '1', b: '2' } },
    });

    const del = await s.delete(`${CMS}/c1`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
    expect(del.status).toBe(200);
    expect(eventsOf(del).at(-1)).toMatchObject({
      verb: 'delete',
      objectRef: { name: 'c1' },
      requestObject: { kind: 'DeleteOptions', propagationPolicy: 'Background' },
      responseStatus: { code: 200 },
    });
  });

  it('records a failed request with the bounded Status, and the Status as the response object', async () => {
    const s = await serve({ rules: [{ level: 'RequestResponse' }] });
    const res = await s.get(`${CMS}/missing`);
    expect(res.status).toBe(404);
    const done = eventsOf(res).at(-1)!;
    expect(done.responseStatus).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'configmaps "missing" not found',
      reason: 'NotFound',
      details: { name: 'missing', kind: 'configmaps' },
      code: 404,
    });
    expect(done.responseObject).toMatchObject({ kind: 'Status', code: 404 });
  });

  it('records a watch at ResponseStarted when its headers go out and at ResponseComplete when it ends', async () => {
    const s = await serve({ rules: [{ level: 'Metadata' }] });
    const watch = await s.watch(`${CMS}?watch=1`);
    await s.post(CMS, cm('w1'));
    await watch.nextChange();
    const started = memory.events({ verb: 'watch' });
    expect(started.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted']);
    expect(started[1]!.responseStatus).toEqual({ metadata: {}, code: 200 });
    expect(started[1]!.objectRef).toBeUndefined();
    watch.close();
    await expect
      .poll(() => memory.events({ verb: 'watch' }).map((e) => e.stage))
      .toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    // A short request never has a ResponseStarted.
    expect(memory.events({ verb: 'create', stage: 'ResponseStarted' })).toEqual([]);
  });

  it('omitManagedFields drops managedFields from the recorded objects only, items of lists too', async () => {
    const s = await serve({ rules: [{ level: 'RequestResponse', omitManagedFields: true }] });
    const created = await s.post(CMS, cm('c1'));
    expect(created.body.metadata.managedFields).toHaveLength(1); // the client still gets them
    const done = eventsOf(created).at(-1)!;
    expect((done.responseObject as Json).metadata).not.toHaveProperty('managedFields');
    expect((done.responseObject as Json).metadata.name).toBe('c1');
    const list = await s.get(CMS);
    expect(list.body.items[0].metadata.managedFields).toHaveLength(1);
    expect((eventsOf(list).at(-1)!.responseObject as Json).items[0].metadata).not.toHaveProperty('managedFields');
    // The same policy without the flag keeps them.
    const s2 = await serve({ rules: [{ level: 'RequestResponse' }] });
    const again = await s2.post(CMS, cm('c2'));
    expect((eventsOf(again).at(-1)!.responseObject as Json).metadata.managedFields).toHaveLength(1);
  });

  it('annotates a request to a deprecated version with svc.io/deprecated and the removal release', async () => {
    const s = await serve({ rules: [{ level: 'Metadata' }] });
    const deprecated = await s.get('/apis/flowcontrol.apiserver.svc.io/v1beta3/flowschemas');
    expect(deprecated.status).toBe(200);
    for (const e of eventsOf(deprecated))
      expect(e.annotations).toMatchObject({ 'svc.io/deprecated': 'true', 'svc.io/removed-release': '1.32' });
    const current = await s.get('/apis/flowcontrol.apiserver.svc.io/v1/flowschemas');
    expect(eventsOf(current)).toHaveLength(2);
    for (const e of eventsOf(current)) expect(e.annotations?.['svc.io/deprecated']).toBeUndefined();
  });

  it('records the annotations admission plugins add, on the final event, whether the write is admitted or denied', async () => {
    const noting: AdmissionPlugin = {
      name: 'Noting',
      async validate(request) {
        request.auditAnnotations['noting.example.io/seen'] = request.object?.metadata?.name ?? '';
        if (request.object?.metadata?.name === 'refused')
          throw forbidden({ group: '', resource: 'configmaps' }, 'refused', 'refused by Noting');
      },
    };
    const s = await serve({ rules: [{ level: 'Metadata' }] }, { server: { server: { admission: [noting] } } });
    const admitted = await s.post(CMS, cm('kept'));
    expect(admitted.status).toBe(201);
    const [received, complete] = eventsOf(admitted);
    expect(received?.annotations?.['noting.example.io/seen']).toBeUndefined();
    expect(complete?.annotations).toMatchObject({ 'noting.example.io/seen': 'kept' });
    const denied = await s.post(CMS, cm('refused'));
    expect(denied.status).toBe(403);
    expect(eventsOf(denied).at(-1)?.annotations).toMatchObject({ 'noting.example.io/seen': 'refused' });
  });

  it('leaves out omitted stages and requests at level None, yet gives every response an Audit-ID', async () => {
    const s = await serve({
      omitStages: ['RequestReceived'],
      rules: [{ level: 'None', nonResourceURLs: ['/healthz*'] }, { level: 'Metadata' }],
    });
    const health = await s.get('/healthz');
    expect(health.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(eventsOf(health)).toEqual([]);
    const version = await s.get('/version').set('audit-id', 'from-the-proxy');
    expect(version.headers['audit-id']).toBe('from-the-proxy');
    expect(eventsOf(version).map((e) => [e.stage, e.verb, e.objectRef, e.responseObject])).toEqual([
      ['ResponseComplete', 'get', undefined, undefined],
    ]);
    // The audit metrics count requests by level and the events sent (the namespace's creation
    // before this test's requests is one; this scrape's own event comes after the scrape).
    const metrics = (await s.get('/metrics')).text;
    expect(metrics).toMatch(/\napiserver_audit_level_total\{level="None"\} 1\n/);
    expect(metrics).toMatch(/\napiserver_audit_level_total\{level="Metadata"\} 3\n/);
    expect(metrics).toMatch(/\napiserver_audit_event_total 2\n/);
  });

  it('audits a request whose authentication failed, without a user, and a forbidden one with the decision', async () => {
    const s = await serve(
      { rules: [{ level: 'Metadata' }] },
      {
        server: {
          server: {
            chain: {
              authentication: {
                async authenticate(req) {
                  const auth = req.headers.authorization;
                  const explanation = { authenticator: 'test', rejections: [] };
                  if (auth === 'Bearer good')
                    return { authenticated: true, user: { username: 'jane', groups: ['dev'], extra: {} }, explanation };
                  if (auth) return { authenticated: false, status: 401, message: 'Unauthorized', explanation };
                  return { authenticated: true, user: ANONYMOUS, explanation };
                },
              },
              authorizer: {
                authorize: async ({ attributes: a }) => ({
                  allowed: a.verb !== 'delete',
                  reason: a.verb === 'delete' ? 'no deletes here' : '',
                }),
              },
            },
          },
        },
      },
    );
    const bad = await s.get(CMS).set('authorization', 'Bearer bad');
    expect(bad.status).toBe(401);
    expect(eventsOf(bad)).toEqual([
      expect.objectContaining({
        stage: 'ResponseStarted',
        user: {},
        verb: 'list',
        responseStatus: expect.objectContaining({ code: 401, reason: 'Unauthorized' }),
      }),
    ]);
    const denied = await s.delete(`${CMS}/x`).set('authorization', 'Bearer good');
    expect(denied.status).toBe(403);
    expect(eventsOf(denied).at(-1)).toMatchObject({
      stage: 'ResponseComplete',
      user: { username: 'jane', groups: ['dev'] },
      responseStatus: { code: 403, reason: 'Forbidden' },
      annotations: { 'authorization.svc.io/decision': 'forbid', 'authorization.svc.io/reason': 'no deletes here' },
    });
  });

  it('records the authenticated user as user and the impersonated one as impersonatedUser, after RequestReceived', async () => {
    const explanation = { authenticator: 'test', rejections: [] };
    const s = await serve(
      { rules: [{ level: 'Metadata' }] },
      {
        server: {
          server: {
            chain: {
              authentication: {
                authenticate: async () => ({ authenticated: true, user: { username: 'jane', groups: ['dev'], extra: {} }, explanation }),
              },
              authorizer: { authorize: async () => ({ allowed: true, reason: '' }) },
            },
          },
        },
      },
    );
    const res = await s.get(CMS).set('impersonate-user', 'bob');
    expect(res.status).toBe(200);
    const [received, complete] = eventsOf(res);
    expect(received).toMatchObject({ stage: 'RequestReceived', user: { username: 'jane' } });
    expect(received?.impersonatedUser).toBeUndefined();
    expect(complete).toMatchObject({
      stage: 'ResponseComplete',
      user: { username: 'jane', groups: ['dev'] },
      impersonatedUser: { username: 'bob', groups: ['system:authenticated'] },
    });
  });

  it('records an unexpected error as the Panic stage with a 500', async () => {
    const s = await serve(
      { rules: [{ level: 'Metadata' }] },
      {
        server: {
          createNamespace: false,
          server: { chain: { authorizer: { authorize: async () => Promise.reject(new Error('authorizer exploded')) } } },
        },
      },
    );
    const res = await s.get(CMS);
    expect(res.status).toBe(500);
    expect(eventsOf(res).map((e) => [e.stage, e.responseStatus?.code])).toEqual([
      ['RequestReceived', undefined],
      ['Panic', 500],
    ]);
    expect(eventsOf(res).at(-1)!.responseStatus?.message).toContain('authorizer exploded');
  });

  it('serves the request when the backend fails, and reports the failure', async () => {
    const failures: string[] = [];
    const broken = {
      process: () => {
        throw new Error('disk full');
      },
    };
    h = await startServer({
      server: {
        chain: { audit: new Auditor(AuditPolicy.everything('Metadata'), broken, { onError: (e) => failures.push((e as Error).message) }) },
      },
    });
    memory = new MemoryAuditBackend();
    const res = await h.get(CMS);
    expect(res.status).toBe(200);
    expect(failures.length).toBeGreaterThanOrEqual(2); // RequestReceived and ResponseComplete of this request at least
    expect(new Set(failures)).toEqual(new Set(['disk full']));
  });

  it('writes the same events to the log file, one JSON line each', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'svckit-audit-')), 'audit.log');
    const file = new LogFileAuditBackend(path);
    const s = await serve({ rules: [{ level: 'Request' }] }, { also: file });
    await s.post(CMS, cm('c1'));
    await s.get(`${CMS}/c1`);
    await s.delete(`${CMS}/c1`);
    file.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEvent);
    // The file also holds the namespace's creation, from before the memory backend was cleared.
    expect(lines.slice(-memory.events().length)).toEqual(memory.events());
    expect(memory.events().map((e) => `${e.verb} ${e.stage}`)).toEqual([
      'create RequestReceived',
      'create ResponseComplete',
      'get RequestReceived',
      'get ResponseComplete',
      'delete RequestReceived',
      'delete ResponseComplete',
    ]);
  });
});
