/**
 * Defects the fuzzer and an independent audit found, each as the request that showed it: the
 * client's mistake answered with 400 and a Status naming the field, never a 500 or a crash, and
 * an object's identity never changed by a write.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Harness,
  type RawAnswer,
  cronTabBody,
  crontab,
  crontabs,
  expectStatus,
  rawRequest,
  service,
  serviceBody,
  services,
  startServer,
} from './server.testing.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(() => h.close());

/** A raw request with any target, as a client that does not normalise its URL sends it. */
function raw(method: string, target: string): Promise<RawAnswer> {
  return rawRequest(h.url, method, target);
}

describe('metadata of the wrong type is a 400 naming the field, on every write verb', () => {
  for (const metadata of ['x', 5, true, ['a']]) {
    it(`metadata: ${JSON.stringify(metadata)}`, async () => {
      const post = expectStatus(await h.post(crontabs(h.ns), { ...cronTabBody('a'), metadata }), 400, 'BadRequest');
      expect(post.details.causes).toEqual([expect.objectContaining({ field: 'metadata' })]);
      await h.createCronTab('b');
      expectStatus(await h.put(crontab(h.ns, 'b'), { ...cronTabBody('b'), metadata }), 400, 'BadRequest');
      expectStatus(await h.patch(crontab(h.ns, 'b'), { metadata }), 400, 'BadRequest');
      expectStatus(await h.patch(crontab(h.ns, 'b'), [{ op: 'replace', path: '/metadata', value: metadata }], 'json'), 400, 'BadRequest');
      expect((await h.get(crontab(h.ns, 'b'))).body.metadata.name).toBe('b');
    });
  }

  it('metadata.generateName: 5 and metadata.name: {} are 400', async () => {
    const gen = expectStatus(await h.post(crontabs(h.ns), { ...cronTabBody(''), metadata: { generateName: 5 } }), 400, 'BadRequest');
    expect(gen.message).toContain('metadata.generateName: Invalid value: "integer": must be of type string, not integer');
    expectStatus(await h.post(crontabs(h.ns), { ...cronTabBody(''), metadata: { name: {} } }), 400, 'BadRequest');
  });
});

describe('nesting', () => {
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

  it('a body or patch nested thousands of levels deep is a 400, not a stack overflow', async () => {
    const body = `{"apiVersion":"stable.example.svc.io/v1","kind":"CronTab","metadata":{"name":"d"},"spec":${deep(5000)}}`;
    const res = await h.http.post(crontabs(h.ns)).set('content-type', 'application/json').send(body);
    expect(expectStatus(res, 400, 'BadRequest').message).toContain('nested deeper than 1000 levels');
    await h.createCronTab('p');
    expectStatus(await h.patch(crontab(h.ns, 'p'), `{"spec":${deep(5000)}}`), 400, 'BadRequest');
    expectStatus(await h.http.delete(crontab(h.ns, 'p')).set('content-type', 'application/json').send(deep(5000)), 400, 'BadRequest');
  });

  it('YAML and apply bodies nested thousands of levels deep are a 400 before the YAML parser sees them (it fails the process)', async () => {
    const flow = `{"metadata":{"name":"n"},"data":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const yaml = await h.http.post(crontabs(h.ns)).set('content-type', 'application/yaml').send(flow);
    expectStatus(yaml, 400, 'BadRequest');
    await h.createCronTab('q');
    const apply = await h.http
      .patch(`${crontab(h.ns, 'q')}?fieldManager=me`)
      .set('content-type', 'application/apply-patch+yaml')
      .send(flow);
    expect(expectStatus(apply, 400, 'BadRequest').message).toContain('nested deeper than 1000 levels');
    expect((await h.get(crontab(h.ns, 'q'))).status).toBe(200);
  });
});

describe('request targets', () => {
  it('a path the URL parser cannot read is answered, and the server goes on', async () => {
    expect((await raw('GET', '//')).status).toBe(404);
    expect((await raw('GET', '/api/v1/namespaces/%zz')).status).toBe(400);
    expect((await raw('GET', '/api/v1/namespaces')).status).toBe(200);
  });
});

describe('a write never changes an object identity', () => {
  it('merge patch, JSON patch and apply that rename the object or move it to another namespace are 400', async () => {
    await h.create(services(h.ns), serviceBody('web'));
    const renames: [unknown, string][] = [
      [{ metadata: { name: 'other' } }, 'merge'],
      [{ metadata: { namespace: 'elsewhere' } }, 'merge'],
      [[{ op: 'replace', path: '/metadata/name', value: 'other' }], 'json'],
      [[{ op: 'replace', path: '/metadata/namespace', value: 'elsewhere' }], 'json'],
      [{ metadata: { name: 'other' } }, 'strategic'],
    ];
    for (const [patch, type] of renames) expectStatus(await h.patch(service(h.ns, 'web'), patch, type), 400, 'BadRequest');
    const apply = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'elsewhere' }, spec: { ports: [{ port: 81 }] } };
    const applied = await h.http
      .patch(`${service(h.ns, 'web')}?fieldManager=me`)
      .set('content-type', 'application/apply-patch+yaml')
      .send(JSON.stringify(apply));
    expectStatus(applied, 400, 'BadRequest');
    const stored = (await h.get(service(h.ns, 'web'))).body;
    expect([stored.metadata.name, stored.metadata.namespace]).toEqual(['web', h.ns]);
    expect((await h.delete(service(h.ns, 'web'))).status).toBe(200);
  });
});

describe('the security audit: errors that must not echo, headers that must not fail', () => {
  it('a Secret value that is not base64 is a 400 naming the field and the offset, never the value', async () => {
    const secret = 'hunter2 plain text!';
    const res = await h.post(`/api/v1/namespaces/${h.ns}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { pw: secret },
    });
    const status = expectStatus(res, 400, 'BadRequest');
    expect(status.message).toBe(
      'Secret in version "v1" cannot be handled as a Secret: data[pw]: Invalid value: illegal base64 data at input byte 7',
    );
    expect(JSON.stringify(status)).not.toContain('hunter2');
    expect((await h.get(`/api/v1/namespaces/${h.ns}/secrets/s`)).status).toBe(404);
  });

  it('Impersonate-Extra-<malformed escape> keeps the key as sent, as upstream does: no 500', async () => {
    const res = await h.get(`/api/v1/namespaces/${h.ns}/configmaps`).set('impersonate-user', 'bob').set('impersonate-extra-%ZZ', 'x');
    expect(res.status).toBe(200);
  });
});
