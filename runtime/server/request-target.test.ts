/**
 * The security audit's path findings, as a matrix: each resource and name spelled with
 * percent-encoding, mixed case, dot segments, double and trailing slashes, against an authorizer
 * and an audit policy that treat Secrets differently. One parse of the request feeds routing,
 * authorization and audit, so the decision, the audit record and the served object always agree;
 * `.` and `..` are names (a 400), never steps to a collection or a parent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type AuditEvent, AuditPolicy, Auditor, MemoryAuditBackend } from '../audit/index.js';
import type { RequestAttributes } from '../auth/index.js';
import type { RequestAuthorizer } from './context.js';
import { type Harness, type Json, type RawAnswer, rawRequest, startServer } from './server.testing.js';

const MARKER = 'dG9wLXNlY3JldC12YWx1ZQ=='; // base64 of the secret's value: must never leave the server but to an allowed reader
const NS = 'test';

/** A raw request to the harness's server. */
function send(h: Harness, method: string, target: string, body?: string): Promise<RawAnswer> {
  return rawRequest(h.url, method, target, body);
}

/** A server whose authorizer refuses Secrets (or allows everything) and records what it judged; audit Secrets at Metadata only. */
async function serve(refuseSecrets: boolean) {
  const judged: RequestAttributes[] = [];
  let settingUp = true;
  const authorizer: RequestAuthorizer = {
    async authorize({ attributes }) {
      judged.push(attributes);
      const secret = attributes.isResourceRequest && attributes.resource === 'secrets';
      return refuseSecrets && secret && !settingUp ? { allowed: false, reason: 'secrets are refused here' } : { allowed: true, reason: '' };
    },
  };
  const audit = new MemoryAuditBackend();
  const policy = AuditPolicy.compile({
    rules: [{ level: 'Metadata', resources: [{ group: '', resources: ['secrets'] }] }, { level: 'RequestResponse' }],
  });
  const h = await startServer({ server: { chain: { authorizer, audit: new Auditor(policy, audit) } } });
  const create = (path: string, object: Json) => send(h, 'POST', path, JSON.stringify(object));
  expect((await create(`/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 's1' }, data: { v: MARKER } })).status).toBe(201);
  for (const name of ['c1', 'c2'])
    expect((await create(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name }, data: { a: 'b' } })).status).toBe(201);
  settingUp = false;
  judged.length = 0;
  audit.clear();
  return { h, judged, audit };
}

/** Spellings of a path to the Secret s1 (or its collection); none may be served against the decision. */
const SECRET_SPELLINGS = [
  `/api/v1/namespaces/${NS}/secrets/s1`,
  `/api/v1/namespaces/${NS}/%73ecrets/s1`,
  `/api/v1/namespaces/${NS}/%73%65%63%72%65%74%73/s1`,
  `/api/v1/namespaces/${NS}/secret%73/%731`,
  `/api/v1/namespaces/${NS}/Secrets/s1`,
  `/api/v1/namespaces/${NS}/SECRETS/s1`,
  `/api/v1/namespaces/${NS}/secrets/s1/`,
  `/api/v1//namespaces/${NS}//secrets//s1`,
  `//api/v1/namespaces/${NS}/secrets/s1`,
  `/api/v1/namespaces/${NS}/configmaps/../secrets/s1`,
  `/api/v1/namespaces/${NS}/configmaps/%2E%2E/secrets/s1`,
  `/api/v1/namespaces/${NS}/./secrets/s1`,
  `/api/v1/namespaces/${NS}/%2e/secrets/s1`,
  `/api/v1/namespaces/${NS}/secrets/./s1`,
  `/api/%761/namespaces/${NS}/secrets/s1`,
  `/api/v1/namespaces/%74est/secrets/s1`,
  `/api/v1/namespaces/${NS}/secrets`,
  `/api/v1/namespaces/${NS}/%73ecrets`,
  `/api/v1/%73ecrets`,
  `/api/v1/namespaces/${NS}/secrets?watch=1&timeoutSeconds=1`,
  `/api/v1/watch/namespaces/${NS}/%73ecrets?timeoutSeconds=1`,
  `/api/v1/watch/namespaces/${NS}/secrets/s1?timeoutSeconds=1`,
  `/api/v1/namespaces/${NS}/secrets/s1?fieldSelector=metadata.name%3Ds1`,
  `/api/v1/namespaces/${NS}/%73ecrets?fieldSelector=metadata.name%3Ds1`,
];

describe('one parse of the request: routing, authorization and audit agree', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each(['GET', 'DELETE', 'PUT', 'PATCH'])(
    '%s of every spelling of a Secret path is refused where Secrets are, and never serves one',
    async (method) => {
      const s = await serve(true);
      h = s.h;
      for (const target of SECRET_SPELLINGS) {
        s.judged.length = 0;
        const body = method === 'PUT' || method === 'PATCH' ? JSON.stringify({ metadata: { name: 's1' }, data: { v: 'eA==' } }) : undefined;
        const answer = await send(s.h, method, target, body);
        const what = `${method} ${target} -> ${answer.status} ${answer.body.slice(0, 200)}`;
        expect(answer.status, what).toBeGreaterThanOrEqual(400);
        expect(answer.status, what).toBeLessThan(500);
        expect(answer.body, what).not.toContain(MARKER);
        // Whatever the authorizer was not shown as Secrets was not served as Secrets.
        if (answer.status !== 403)
          expect(
            s.judged.map((a) => a.resource),
            what,
          ).not.toContain('secrets');
      }
      // The Secret is still there, unchanged.
      const kept = JSON.parse((await send(s.h, 'GET', `/api/v1/namespaces/${NS}/configmaps/c1`)).body) as Json;
      expect(kept.metadata.name).toBe('c1');
    },
  );

  it('a Secret read through any spelling is audited as the Secret it served: Metadata level, no data in the record', async () => {
    const s = await serve(false);
    h = s.h;
    for (const target of SECRET_SPELLINGS) {
      s.audit.clear();
      const answer = await send(s.h, 'GET', target);
      if (!answer.body.includes(MARKER)) continue;
      const events = s.audit.events();
      const what = `GET ${target} -> ${answer.status}: ${JSON.stringify(events).slice(0, 300)}`;
      expect(events.length, what).toBeGreaterThan(0);
      for (const e of events as AuditEvent[]) {
        expect(e.level, what).toBe('Metadata');
        // Lists and watches carry no objectRef (the spec's Event); an object's names the Secret.
        if (e.objectRef) expect(e.objectRef.resource, what).toBe('secrets');
        expect(JSON.stringify(e), what).not.toContain(MARKER);
      }
    }
  });

  it('the attributes the authorizer sees name the object the router serves', async () => {
    const s = await serve(false);
    h = s.h;
    const answer = await send(s.h, 'GET', `/api/v1/namespaces/%74est/%63onfigmaps/%631`);
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.body) as Json).metadata.name).toBe('c1');
    expect(s.judged).toEqual([expect.objectContaining({ verb: 'get', namespace: NS, resource: 'configmaps', name: 'c1' })]);
  });
});

describe('dot segments are names, refused with 400, and delete nothing', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const DOT_NAMES = ['.', '..', '%2E', '%2e', '%2E%2E', '.%2E', '%2e.'];

  it.each(['DELETE', 'GET', 'PUT', 'PATCH'])('%s of configmaps/<dot name>', async (method) => {
    const s = await serve(false);
    h = s.h;
    for (const dot of DOT_NAMES) {
      const body = method === 'PUT' || method === 'PATCH' ? JSON.stringify({ metadata: { name: 'c1' } }) : undefined;
      const answer = await send(s.h, method, `/api/v1/namespaces/${NS}/configmaps/${dot}`, body);
      const what = `${method} configmaps/${dot} -> ${answer.status} ${answer.body}`;
      expect(answer.status, what).toBe(400);
      const status = JSON.parse(answer.body) as Json;
      expect(status, what).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
      expect(status.message, what).toMatch(/^Name parameter invalid: "\.\.?": may not be '\.\.?'$/);
    }
    const list = JSON.parse((await send(s.h, 'GET', `/api/v1/namespaces/${NS}/configmaps`)).body) as Json;
    expect(list.items.map((i: Json) => i.metadata.name)).toEqual(['c1', 'c2']);
    expect((await send(s.h, 'GET', `/api/v1/namespaces/${NS}`)).status).toBe(200);
  });

  it('a namespace named by a dot segment is refused, and the namespace itself stays', async () => {
    const s = await serve(false);
    h = s.h;
    for (const target of [
      `/api/v1/namespaces/${NS}/configmaps/..`,
      `/api/v1/namespaces/..`,
      `/api/v1/namespaces/%2E`,
      `/api/v1/namespaces/./configmaps`,
    ]) {
      const answer = await send(s.h, 'DELETE', target);
      expect(answer.status, `${target} -> ${answer.body}`).toBe(400);
    }
    expect((await send(s.h, 'GET', `/api/v1/namespaces/${NS}`)).status).toBe(200);
    expect((await send(s.h, 'GET', `/api/v1/namespaces/${NS}/configmaps/c2`)).status).toBe(200);
  });

  it('an invalid escape in the path is a 400 Status, not a guess', async () => {
    const s = await serve(false);
    h = s.h;
    const answer = await send(s.h, 'GET', `/api/v1/namespaces/${NS}/configmaps/%ZZ`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', code: 400 });
  });
});
