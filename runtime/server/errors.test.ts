import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, NAMESPACES, cronTabBody, crontab, crontabs, expectStatus, startServer, warningsOf } from './server.testing.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer({ maxBodyBytes: 4096 });
});
afterEach(() => h.close());

const FLOWSCHEMAS_V1BETA3 = '/apis/flowcontrol.apiserver.svc.io/v1beta3/flowschemas';
const FLOWSCHEMAS_V1 = '/apis/flowcontrol.apiserver.svc.io/v1/flowschemas';
const flowSchema = (apiVersion: string, name: string) => ({
  apiVersion,
  kind: 'FlowSchema',
  metadata: { name },
  spec: { priorityLevelConfiguration: { name: 'global' } },
});

/** POSTs `text` in 1 KiB chunks without a Content-Length (chunked transfer encoding). */
function postChunked(url: string, text: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: body }));
    });
    req.on('error', reject);
    for (let i = 0; i < text.length; i += 1024) req.write(text.slice(i, i + 1024));
    req.end();
  });
}

describe('Status objects', () => {
  it('errors are Status objects with code, reason, message and details (causes with field paths)', async () => {
    const res = await h.post(crontabs(h.ns), cronTabBody('a', { spec: { replicas: 20 } }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'CronTab.stable.example.svc.io "a" is invalid: spec: Invalid value: "object": replicas must be less than or equal to maxReplicas',
      reason: 'Invalid',
      details: {
        name: 'a',
        group: 'stable.example.svc.io',
        kind: 'CronTab',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "object": replicas must be less than or equal to maxReplicas',
            field: 'spec',
          },
        ],
      },
      code: 422,
    });
  });

  it('a not-found object is a 404 Status naming the resource', async () => {
    const res = await h.get(crontab(h.ns, 'missing'));
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'crontabs.stable.example.svc.io "missing" not found',
      reason: 'NotFound',
      details: { name: 'missing', group: 'stable.example.svc.io', kind: 'crontabs' },
      code: 404,
    });
  });
});

describe('media types', () => {
  it.each([
    'application/json',
    'application/vnd.svc.protobuf, application/json',
    'text/html, application/json;q=0.5',
    'application/*',
    '*/*',
  ])('Accept %s is answered in JSON', async (accept) => {
    await h.createCronTab('a');
    for (const path of [crontabs(h.ns), crontab(h.ns, 'a')]) {
      const res = await h.get(path).set('accept', accept);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body.metadata).toBeDefined();
    }
  });

  it('a list of media types with nothing acceptable is 406 NotAcceptable', async () => {
    const res = await h.get(crontabs(h.ns)).set('accept', 'text/html, application/xml');
    expect(expectStatus(res, 406, 'NotAcceptable').message).toBe(
      'only the following media types are accepted: application/json, application/yaml, application/json;as=Table;g=meta.svc.io;v=v1',
    );
  });

  it('a body of an unsupported Content-Type is 415 UnsupportedMediaType, and nothing is created', async () => {
    const res = await h.http
      .post(crontabs(h.ns))
      .set('content-type', 'text/plain')
      .send(JSON.stringify(cronTabBody('a')));
    expect(expectStatus(res, 415, 'UnsupportedMediaType').message).toMatch(
      /^the body of the request was in an unknown format - accepted media types include: application\/json/,
    );
    expectStatus(await h.get(crontab(h.ns, 'a')), 404, 'NotFound');
  });

  it('accepts a YAML body', async () => {
    const yaml = 'apiVersion: stable.example.svc.io/v1\nkind: CronTab\nmetadata:\n  name: a\nspec:\n  cronSpec: "* * * * *"\n  image: i\n';
    const res = await h.http.post(crontabs(h.ns)).set('content-type', 'application/yaml').send(yaml);
    expect(res.status).toBe(201);
    expect(res.body.spec.image).toBe('i');
  });
});

describe('malformed and oversized bodies', () => {
  it.each(['{"metadata": {', 'not json', ''])('a body that is not JSON (%j) is 400 BadRequest', async (text) => {
    const res = await h.http.post(crontabs(h.ns)).set('content-type', 'application/json').send(text);
    expect(expectStatus(res, 400, 'BadRequest').message).toMatch(/^the request body is not valid JSON: /);
  });

  it('a JSON body that is not an object is 400 BadRequest', async () => {
    const res = await h.http.post(crontabs(h.ns)).set('content-type', 'application/json').send('[1,2]');
    expect(expectStatus(res, 400, 'BadRequest').message).toBe('the request body must be a JSON object, not an array');
  });

  it('a malformed body on update is 400 and changes nothing', async () => {
    const created = await h.createCronTab('a');
    const res = await h.http.put(crontab(h.ns, 'a')).set('content-type', 'application/json').send('{"spec":');
    expectStatus(res, 400, 'BadRequest');
    expect(await h.read(crontab(h.ns, 'a'))).toEqual(created);
  });

  it('a wrongly typed field is 400 BadRequest naming it', async () => {
    const res = await h.post(crontabs(h.ns), cronTabBody('a', { spec: { replicas: 'three' } }));
    const status = expectStatus(res, 400, 'BadRequest');
    expect(status.details.causes).toHaveLength(1);
    expect(status.details.causes[0].field).toBe('spec.replicas');
  });

  it('a body over the size limit is 413 RequestEntityTooLarge on create, update and patch', async () => {
    const created = await h.createCronTab('a');
    const big = cronTabBody('b', { metadata: { annotations: { big: 'x'.repeat(5000) } } });
    const res = await h.post(crontabs(h.ns), big);
    expect(expectStatus(res, 413, 'RequestEntityTooLarge').message).toBe('Request entity too large: limit is 4096');
    expectStatus(await h.get(crontab(h.ns, 'b')), 404, 'NotFound');
    expectStatus(
      await h.put(crontab(h.ns, 'a'), { ...created, metadata: { ...created.metadata, annotations: { big: 'x'.repeat(5000) } } }),
      413,
      'RequestEntityTooLarge',
    );
    expectStatus(await h.patch(crontab(h.ns, 'a'), { metadata: { annotations: { big: 'x'.repeat(5000) } } }), 413, 'RequestEntityTooLarge');
    // Chunked, without a Content-Length: still refused.
    const chunked = await postChunked(`${h.url}${crontabs(h.ns)}`, JSON.stringify(big));
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.text)).toMatchObject({ kind: 'Status', code: 413, reason: 'RequestEntityTooLarge' });
    // The server still works.
    expect(await h.read(crontab(h.ns, 'a'))).toEqual(created);
  });
});

describe('unknown resources and wrong methods', () => {
  it.each([
    '/api/v1/widgets',
    '/api/v1/namespaces/test/widgets',
    '/api/v2/pods',
    '/apis/unknown.svc.io/v1/things',
    '/apis/stable.example.svc.io/v2/crontabs',
    '/apis/stable.example.svc.io/v1/namespaces/test/crontabs/a/scale',
    '/apis/stable.example.svc.io/v1/crontabs/a',
    '/nothing/here',
  ])('GET %s is a 404 Status', async (path) => {
    expectStatus(await h.get(path), 404, 'NotFound');
  });

  // server.ts answers any method other than GET on an unknown path with 405 ("discovery documents
  // are read with GET") before looking at the route; upstream answers 404 for an unknown resource.
  it('POST to an unknown resource is a 404 Status (server.ts checks the method before the route)', async () => {
    expectStatus(await h.post('/api/v1/namespaces/test/widgets', { metadata: { name: 'w' } }), 404, 'NotFound');
  });

  it.each([
    ['patch', crontabs('test')],
    ['put', crontabs('test')],
    ['post', crontab('test', 'a')],
    ['delete', `${crontab('test', 'a')}/status`],
    ['post', `${crontab('test', 'a')}/status`],
    ['delete', NAMESPACES],
  ] as const)('%s %s is 405 MethodNotAllowed', async (method, path) => {
    await h.createCronTab('a');
    const res = await h.http[method](path).set('content-type', 'application/json').send('{}');
    expectStatus(res, 405, 'MethodNotAllowed');
    expect((await h.read(crontab(h.ns, 'a'))).metadata.name).toBe('a');
  });
});

describe('deprecated versions', () => {
  it('a request to flowcontrol.apiserver.svc.io/v1beta3 carries a Warning header; v1 does not', async () => {
    const created = await h.post(FLOWSCHEMAS_V1BETA3, flowSchema('flowcontrol.apiserver.svc.io/v1beta3', 'fs'));
    expect(created.status).toBe(201);
    const warning =
      'flowcontrol.apiserver.svc.io/v1beta3 FlowSchema is deprecated in v1.29+, unavailable in v1.32+; use flowcontrol.apiserver.svc.io/v1 FlowSchema';
    expect(warningsOf(created)).toEqual([warning]);
    const list = await h.get(FLOWSCHEMAS_V1BETA3);
    expect(warningsOf(list)).toEqual([warning]);
    expect(list.body.items.map((i: { apiVersion: string }) => i.apiVersion)).toEqual(['flowcontrol.apiserver.svc.io/v1beta3']);
    expect(warningsOf(await h.get(`${FLOWSCHEMAS_V1BETA3}/fs`))).toEqual([warning]);
    // Errors on the deprecated endpoint carry it too.
    const missing = await h.get(`${FLOWSCHEMAS_V1BETA3}/missing`);
    expect(missing.status).toBe(404);
    expect(warningsOf(missing)).toEqual([warning]);

    // The same object through v1: no warning.
    const v1 = await h.get(`${FLOWSCHEMAS_V1}/fs`);
    expect(v1.status).toBe(200);
    expect(v1.body.apiVersion).toBe('flowcontrol.apiserver.svc.io/v1');
    expect(warningsOf(v1)).toEqual([]);
  });

  it('a watch on a deprecated version carries the Warning header too', async () => {
    const w = await h.watch(`${FLOWSCHEMAS_V1BETA3}?watch=1`);
    expect(w.status).toBe(200);
    expect(String(w.res.headers.warning)).toContain('flowcontrol.apiserver.svc.io/v1beta3 FlowSchema is deprecated');
    w.close();
  });
});

describe('pretty and fieldManager', () => {
  it('pretty=true indents the JSON, on success and on errors', async () => {
    await h.createCronTab('a');
    const res = await h.get(`${crontab(h.ns, 'a')}?pretty=true`).buffer(true);
    expect(res.text.startsWith('{\n  "apiVersion": "stable.example.svc.io/v1",\n  "kind": "CronTab",\n')).toBe(true);
    expect(res.text.endsWith('}\n')).toBe(true);
    const plain = await h.get(crontab(h.ns, 'a')).buffer(true);
    // One line, ended by a newline as upstream's encoder writes it.
    expect(plain.text.indexOf('\n')).toBe(plain.text.length - 1);
    const error = await h.get(`${crontab(h.ns, 'missing')}?pretty=True`).buffer(true);
    expect(error.text.startsWith('{\n  "kind": "Status",\n')).toBe(true);
  });

  it("reads pretty with Go's ParseBool; without a value, curl, wget and browsers get indented JSON (upstream's isPrettyPrint)", async () => {
    await h.createCronTab('a');
    const indented = async (query: string, agent = 'kubectl/v1.30.0') =>
      (
        await h
          .get(`${crontab(h.ns, 'a')}${query}`)
          .set('user-agent', agent)
          .buffer(true)
      ).text.includes('\n  ');
    for (const v of ['1', 't', 'T', 'TRUE', 'True', 'true']) expect(await indented(`?pretty=${v}`), v).toBe(true);
    for (const v of ['0', 'f', 'False', 'yes', 'on']) expect(await indented(`?pretty=${v}`), v).toBe(false);
    expect(await indented('?pretty')).toBe(false);
    expect(await indented('?pretty', 'curl/8.5.0')).toBe(true);
    expect(await indented('', 'Mozilla/5.0 (X11)')).toBe(true);
    expect(await indented('?pretty=false', 'curl/8.5.0')).toBe(false);
  });

  it('accepts fieldManager on writes', async () => {
    const created = await h.post(`${crontabs(h.ns)}?fieldManager=tester`, cronTabBody('a'));
    expect(created.status).toBe(201);
    expect((await h.patch(`${crontab(h.ns, 'a')}?fieldManager=tester`, { spec: { image: 'x' } })).status).toBe(200);
    expect(
      (
        await h.put(`${crontab(h.ns, 'a')}?fieldManager=other`, {
          ...(await h.read(crontab(h.ns, 'a'))),
          spec: { ...created.body.spec, image: 'y' },
        })
      ).status,
    ).toBe(200);
  });
});
