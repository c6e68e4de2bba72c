/**
 * Write-path defects an independent audit found (issue 13), each as the requests that showed it,
 * on every verb and body format it applies to: create, update, merge/JSON/strategic patch and
 * apply; JSON and YAML bodies.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, type Json, crontabs, expectStatus, service, serviceBody, services, startServer } from './server.testing.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(() => h.close());

const pods = (ns: string): string => `/api/v1/namespaces/${ns}/pods`;
const pod = (ns: string, name: string): string => `${pods(ns)}/${name}`;
/** A Pod; `spec` absent when given as 'absent'. */
const podBody = (name: string, spec: Json = { containers: [{ name: 'web', image: 'nginx' }] }): Json => {
  const body: Json = { apiVersion: 'v1', kind: 'Pod', metadata: { name } };
  if (spec !== 'absent') body.spec = spec;
  return body;
};
const APPLY = 'application/apply-patch+yaml';

function postYaml(path: string, yaml: string) {
  return h.http.post(path).set('content-type', 'application/yaml').send(yaml);
}
function putYaml(path: string, yaml: string) {
  return h.http.put(path).set('content-type', 'application/yaml').send(yaml);
}
function apply(path: string, body: string | Json, query = 'fieldManager=alice') {
  return h.patch(`${path}?${query}`, typeof body === 'string' ? body : JSON.stringify(body), APPLY);
}

/** A 400 for a missing required field names `field` as its one cause. */
function expectRequired(res: Json, field: string): void {
  const status = expectStatus(res, 400, 'BadRequest');
  expect(status.message).toContain(`${field}: Required value`);
  expect(status.details.causes).toEqual([expect.objectContaining({ reason: 'FieldValueRequired', field })]);
}

describe('required fields are required on every write path', () => {
  it('create: a Pod without spec, or with spec null, is refused naming spec.containers (JSON and YAML)', async () => {
    expectRequired(await h.post(pods(h.ns), podBody('a', 'absent')), 'spec.containers');
    expectRequired(await h.post(pods(h.ns), podBody('a', null)), 'spec.containers');
    expectRequired(await h.post(pods(h.ns), podBody('a', {})), 'spec.containers');
    expectRequired(await postYaml(pods(h.ns), 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n'), 'spec.containers');
    expectRequired(await postYaml(pods(h.ns), 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n'), 'spec.containers');
    expectStatus(await h.get(pod(h.ns, 'a')), 404, 'NotFound');
  });

  it('update, merge, JSON and strategic patch cannot remove a Pod spec', async () => {
    const created = await h.create(pods(h.ns), podBody('a'));
    expectRequired(await h.put(pod(h.ns, 'a'), { ...podBody('a', 'absent'), metadata: created.metadata }), 'spec.containers');
    expectRequired(await h.put(pod(h.ns, 'a'), podBody('a', null)), 'spec.containers');
    expectRequired(await putYaml(pod(h.ns, 'a'), 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec: null\n'), 'spec.containers');
    expectRequired(await h.patch(pod(h.ns, 'a'), { spec: null }), 'spec.containers');
    expectRequired(await h.patch(pod(h.ns, 'a'), { spec: null }, 'strategic'), 'spec.containers');
    expectRequired(await h.patch(pod(h.ns, 'a'), { spec: { containers: null } }, 'strategic'), 'spec.containers');
    expectRequired(await h.patch(pod(h.ns, 'a'), [{ op: 'remove', path: '/spec' }], 'json'), 'spec.containers');
    expectRequired(await h.patch(pod(h.ns, 'a'), [{ op: 'remove', path: '/spec/containers' }], 'json'), 'spec.containers');
    const after = await h.read(pod(h.ns, 'a'));
    expect(after.spec.containers).toEqual([expect.objectContaining({ name: 'web', image: 'nginx' })]);
    expect(after.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('apply: a Pod without spec is refused; applying spec null keeps the required field', async () => {
    expectRequired(await apply(pod(h.ns, 'b'), 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n'), 'spec.containers');
    expectStatus(await h.get(pod(h.ns, 'b')), 404, 'NotFound');
    expect((await apply(pod(h.ns, 'a'), podBody('a'))).status).toBe(201);
    // The same manager dropping spec from its configuration gives up the containers it owned.
    expectRequired(await apply(pod(h.ns, 'a'), 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n'), 'spec.containers');
    expect((await h.read(pod(h.ns, 'a'))).spec.containers).toHaveLength(1);
  });

  it('a Service without spec, or without ports, is refused (spec.ports: Required value) on every path', async () => {
    const required = (res: Json) => {
      const status = expectStatus(res, 422, 'Invalid');
      // Upstream names spec.ports; the rule is on the spec, which the error names (fieldPath would
      // move it, but the rule-case coverage finds a rule's owner by the error's field).
      expect(status.details.causes).toEqual([expect.objectContaining({ reason: 'FieldValueRequired', field: 'spec' })]);
      expect(status.message).toContain('spec: Required value: ports are required');
    };
    const bare = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } };
    required(await h.post(services(h.ns), bare));
    required(await h.post(services(h.ns), { ...bare, spec: null }));
    required(await postYaml(services(h.ns), 'apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n'));
    required(await apply(service(h.ns, 's'), bare));
    // Headless and ExternalName services need no ports, as upstream.
    expect((await h.post(services(h.ns), { ...bare, metadata: { name: 'h' }, spec: { clusterIP: 'None' } })).status).toBe(201);
    const ext = { ...bare, metadata: { name: 'x' }, spec: { type: 'ExternalName', externalName: 'example.com' } };
    expect((await h.post(services(h.ns), ext)).status).toBe(201);
    await h.create(services(h.ns), serviceBody('s'));
    required(await h.put(service(h.ns, 's'), bare));
    required(await h.patch(service(h.ns, 's'), { spec: null }));
    required(await h.patch(service(h.ns, 's'), { spec: { ports: null } }, 'strategic'));
    required(await h.patch(service(h.ns, 's'), [{ op: 'remove', path: '/spec' }], 'json'));
    expect((await h.read(service(h.ns, 's'))).spec.ports).toHaveLength(1);
  });
});

describe('apply and the resourceVersion and force options', () => {
  it('an apply with a stale metadata.resourceVersion is 409, as the other patch types', async () => {
    const created = await h.create(services(h.ns), serviceBody('s'));
    const stale = created.metadata.resourceVersion;
    expect((await h.patch(service(h.ns, 's'), { metadata: { labels: { a: '1' } } })).status).toBe(200);
    expectStatus(await h.patch(service(h.ns, 's'), { metadata: { resourceVersion: stale, labels: { a: '2' } } }), 409, 'Conflict');
    const body = { ...serviceBody('s', { labels: { b: '1' } }), metadata: { name: 's', labels: { b: '1' }, resourceVersion: stale } };
    const res = expectStatus(await apply(service(h.ns, 's'), body), 409, 'Conflict');
    expect(res.message).toContain('the object has been modified');
    expectStatus(await apply(service(h.ns, 's'), body, 'fieldManager=alice&force=true'), 409, 'Conflict');
    const yaml = `apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  resourceVersion: "${stale}"\n  labels:\n    b: "1"\n`;
    expectStatus(await apply(service(h.ns, 's'), yaml), 409, 'Conflict');
    expect((await h.read(service(h.ns, 's'))).metadata.labels).toEqual({ a: '1' });
    // The current resourceVersion is accepted; so is none.
    const current = (await h.read(service(h.ns, 's'))).metadata.resourceVersion;
    expect((await apply(service(h.ns, 's'), { ...body, metadata: { ...body.metadata, resourceVersion: current } })).status).toBe(200);
    // Apply that would create refuses a resourceVersion, as create does.
    const absent = { ...serviceBody('t'), metadata: { name: 't', resourceVersion: '1' } };
    const res2 = expectStatus(await apply(service(h.ns, 't'), absent), 400, 'BadRequest');
    expect(res2.message).toBe('resourceVersion should not be set on objects to be created');
    expectStatus(await h.get(service(h.ns, 't')), 404, 'NotFound');
  });

  it('force on a non-apply patch is 422 naming the option, whatever its value', async () => {
    await h.create(services(h.ns), serviceBody('s'));
    for (const [type, body] of [
      ['merge', { metadata: { labels: { a: '1' } } }],
      ['strategic', { metadata: { labels: { a: '1' } } }],
      ['json', [{ op: 'add', path: '/metadata/labels', value: { a: '1' } }]],
    ] as const) {
      for (const force of ['true', 'false']) {
        const res = expectStatus(await h.patch(`${service(h.ns, 's')}?force=${force}`, body, type), 422, 'Invalid');
        expect(res.message).toBe('PatchOptions.meta.svc.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
        expect(res.details).toMatchObject({ group: 'meta.svc.io', kind: 'PatchOptions' });
        expect(res.details.causes).toEqual([
          { reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' },
        ]);
      }
    }
    expect((await h.read(service(h.ns, 's'))).metadata.labels).toBeUndefined();
  });
});

describe('bookmarks carry the store revision', () => {
  it('a quiet watch bookmarks the current revision, so resuming from it after the history window is no 410', async () => {
    await h.createCronTab('a');
    const start = await h.currentRv();
    const w = await h.watch(`${crontabs(h.ns)}?watch=1&allowWatchBookmarks=true&resourceVersion=${start}`);
    // Writes elsewhere move the store on; the watched collection stays quiet.
    for (const name of ['s1', 's2', 's3']) await h.create(services(h.ns), serviceBody(name));
    const current = await h.currentRv();
    let last = start;
    for (let i = 0; i < 20 && last !== current; i++) {
      const event = await w.next();
      expect(event.type).toBe('BOOKMARK');
      last = event.object.metadata.resourceVersion;
      expect(Number(last)).toBeGreaterThanOrEqual(Number(start));
    }
    expect(last).toBe(current);
    w.close();
    await h.expireHistory();
    const resumed = await h.watch(`${crontabs(h.ns)}?watch=1&resourceVersion=${last}`);
    const created = await h.createCronTab('b');
    expect(await resumed.nextChange()).toEqual({ type: 'ADDED', object: created });
    resumed.close();
  });

  it('a bookmark never runs ahead of an event the watch has yet to send', async () => {
    const start = await h.currentRv();
    const w = await h.watch(`${crontabs(h.ns)}?watch=1&allowWatchBookmarks=true&resourceVersion=${start}`);
    let seen = Number(start);
    for (let i = 0; i < 10; i++) {
      await h.createCronTab(`c${i}`);
      await h.create(services(h.ns), serviceBody(`s${i}`));
    }
    const end = Number(await h.currentRv());
    let added = 0;
    for (let i = 0; i < 100 && (added < 10 || seen < end); i++) {
      const event = await w.next();
      const rv = Number(event.object.metadata.resourceVersion);
      // Events and bookmarks arrive in revision order: nothing older after a bookmark.
      expect(rv).toBeGreaterThanOrEqual(seen);
      seen = rv;
      if (event.type === 'ADDED') added++;
    }
    expect({ added, seen }).toEqual({ added: 10, seen: end });
    w.close();
  });
});

describe('a create that carries metadata.resourceVersion', () => {
  it('is refused with 400, as upstream storage refuses it (JSON, YAML and dry run)', async () => {
    const body = { ...serviceBody('s'), metadata: { name: 's', resourceVersion: '5' } };
    const res = expectStatus(await h.post(services(h.ns), body), 400, 'BadRequest');
    expect(res.message).toBe('resourceVersion should not be set on objects to be created');
    expectStatus(await h.post(`${services(h.ns)}?dryRun=All`, body), 400, 'BadRequest');
    const yaml = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  resourceVersion: "5"\nspec:\n  ports:\n  - port: 80\n';
    expectStatus(await postYaml(services(h.ns), yaml), 400, 'BadRequest');
    expectStatus(await h.get(service(h.ns, 's')), 404, 'NotFound');
    // An empty resourceVersion is no resourceVersion.
    expect((await h.post(services(h.ns), { ...body, metadata: { name: 's', resourceVersion: '' } })).status).toBe(201);
  });
});

const svcYaml = (name: string, extra = ''): string =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\nspec:\n  ports:\n  - port: 80\n${extra}`;
const ownedBy = (object: Json, manager: string): string =>
  JSON.stringify(object.metadata.managedFields.find((m: Json) => m.manager === manager)?.fieldsV1 ?? null);

describe('unknown fields in an apply configuration', () => {
  it('are dropped before the merge under Warn and Ignore: nobody owns them, a second applier gets no conflict', async () => {
    const body = svcYaml('s', '  bogus: 1\n');
    const first = await apply(service(h.ns, 's'), body);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.headers.warning).toContain('unknown field \\"spec.bogus\\"');
    expect(first.body.spec.bogus).toBeUndefined();
    expect(ownedBy(first.body, 'alice')).not.toContain('bogus');
    const second = await apply(service(h.ns, 's'), body, 'fieldManager=bob&fieldValidation=Ignore');
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.headers.warning).toBeUndefined();
    expect(ownedBy(second.body, 'bob')).not.toContain('bogus');
    // JSON configurations alike.
    const json = await apply(service(h.ns, 's'), { ...serviceBody('s'), spec: { ports: [{ port: 80 }], bogus: 2 } }, 'fieldManager=carol');
    expect(json.status).toBe(200);
    expect(ownedBy(json.body, 'carol')).not.toContain('bogus');
  });

  it('are refused under Strict, naming every one, and nothing is written', async () => {
    const res = expectStatus(
      await apply(service(h.ns, 's'), svcYaml('s', '  bogus: 1\n  other: 2\n'), 'fieldManager=alice&fieldValidation=Strict'),
      400,
      'BadRequest',
    );
    expect(res.message).toBe('strict decoding error: unknown field "spec.bogus", unknown field "spec.other"');
    expectStatus(await h.get(service(h.ns, 's')), 404, 'NotFound');
  });
});

describe('duplicate keys in YAML, JSON and apply bodies', () => {
  const dupYaml =
    'apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  name: s\nspec:\n  bogus: 1\n  ports:\n  - port: 80\n  ports:\n  - port: 81\n';

  it('Strict names every duplicate (with duplicate field causes) and every unknown field: YAML create, update and apply', async () => {
    const check = (res: Json) => {
      const status = expectStatus(res, 400, 'BadRequest');
      expect(status.message).toBe(
        'strict decoding error: unknown field "spec.bogus", duplicate field "metadata.name", duplicate field "spec.ports"',
      );
      expect(status.details.causes).toEqual([
        { reason: 'FieldValueInvalid', message: 'unknown field "spec.bogus"', field: 'spec.bogus' },
        { reason: 'FieldValueDuplicate', message: 'duplicate field "metadata.name"', field: 'metadata.name' },
        { reason: 'FieldValueDuplicate', message: 'duplicate field "spec.ports"', field: 'spec.ports' },
      ]);
    };
    check(
      await h.http
        .post(`${services(h.ns)}?fieldValidation=Strict`)
        .set('content-type', 'application/yaml')
        .send(dupYaml),
    );
    check(await apply(service(h.ns, 's'), dupYaml, 'fieldManager=alice&fieldValidation=Strict'));
    await h.create(services(h.ns), serviceBody('s'));
    check(
      await h.http
        .put(`${service(h.ns, 's')}?fieldValidation=Strict`)
        .set('content-type', 'application/yaml')
        .send(dupYaml),
    );
  });

  it('Warn accepts them with a warning each (the last value wins in YAML); Ignore silently', async () => {
    const created = await h.http.post(services(h.ns)).set('content-type', 'application/yaml').send(dupYaml);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.spec.ports).toEqual([expect.objectContaining({ port: 81 })]);
    expect(created.headers.warning).toContain('duplicate field \\"metadata.name\\"');
    expect(created.headers.warning).toContain('duplicate field \\"spec.ports\\"');
    expect(created.headers.warning).toContain('unknown field \\"spec.bogus\\"');
    const put = await h.http
      .put(`${service(h.ns, 's')}?fieldValidation=Ignore`)
      .set('content-type', 'application/yaml')
      .send(dupYaml);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.headers.warning).toBeUndefined();
    const applied = await apply(service(h.ns, 't'), dupYaml.replace(/name: s/g, 'name: t'));
    expect(applied.status, JSON.stringify(applied.body)).toBe(201);
    expect(applied.headers.warning).toContain('duplicate field \\"spec.ports\\"');
    expect(applied.body.spec.ports).toEqual([expect.objectContaining({ port: 81 })]);
  });

  it('JSON: duplicate objects merge into a built-in kind, as the Go decoder fills its structs; the last wins for a custom resource', async () => {
    const text = `{"apiVersion":"v1","kind":"Service","metadata":{"name":"a","labels":{"x":"1"}},"spec":{"ports":[{"port":80}]},"metadata":{"labels":{"y":"2"}}}`;
    const res = await h.http.post(services(h.ns)).set('content-type', 'application/json').send(text);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.metadata).toMatchObject({ name: 'a', labels: { x: '1', y: '2' } });
    expect(res.headers.warning).toContain('duplicate field \\"metadata\\"');
    const cr = `{"apiVersion":"stable.example.svc.io/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *","image":"i"},"metadata":{"name":"b"}}`;
    const made = await h.http.post(crontabs(h.ns)).set('content-type', 'application/json').send(cr);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.metadata.name).toBe('b');
  });
});

describe('integers beyond 2^53', () => {
  const big = '9007199254740993';
  it('are a 400 naming the field on every verb and body format, never a silently changed value', async () => {
    const check = (res: Json, field: string) => {
      const status = expectStatus(res, 400, 'BadRequest');
      expect(status.details.causes).toEqual([expect.objectContaining({ field })]);
      // The YAML reader has rounded the value by the time it is checked; JSON names it exactly.
      expect(status.message).toMatch(new RegExp(`${field.replace(/[[\].]/g, '\\$&')}: Invalid value: 900719925474099[23]`));
    };
    const json = `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[{"port":${big}}]}}`;
    check(await h.http.post(services(h.ns)).set('content-type', 'application/json').send(json), 'spec.ports[0].port');
    check(
      await h.http.post(services(h.ns)).set('content-type', 'application/yaml').send(svcYaml('s').replace('80', big)),
      'spec.ports[0].port',
    );
    check(await apply(service(h.ns, 's'), svcYaml('s').replace('80', big)), 'spec.ports[0].port');
    await h.create(services(h.ns), serviceBody('s'));
    check(await h.http.put(service(h.ns, 's')).set('content-type', 'application/json').send(json), 'spec.ports[0].port');
    check(await h.patch(service(h.ns, 's'), `{"spec":{"ports":[{"port":${big}}]}}`), 'spec.ports[0].port');
    check(await h.patch(service(h.ns, 's'), `{"spec":{"ports":[{"port":${big}}]}}`, 'strategic'), 'spec.ports[0].port');
    check(await h.patch(service(h.ns, 's'), `[{"op":"replace","path":"/spec/ports/0/port","value":${big}}]`, 'json'), '[0].value');
    // 2^53-1 and decimals are numbers as before.
    expect((await h.patch(service(h.ns, 's'), { metadata: { annotations: { a: '1' } } })).status).toBe(200);
  });
});

describe('deeply nested YAML', () => {
  it('is a 400 before the YAML reader sees it (it could exhaust memory), on create and apply', async () => {
    const deep = `{"metadata":{"name":"b"},"data":${'['.repeat(3000)}${']'.repeat(3000)}}`;
    for (let i = 0; i < 3; i++) {
      expectStatus(await apply(`/api/v1/namespaces/${h.ns}/configmaps/b`, deep), 400, 'BadRequest');
      expectStatus(await h.patch(`/api/v1/namespaces/${h.ns}/configmaps/b`, deep), 400, 'BadRequest');
      const res = await h.http.post(`/api/v1/namespaces/${h.ns}/configmaps`).set('content-type', 'application/yaml').send(deep);
      expect(expectStatus(res, 400, 'BadRequest').message).toBe('the request body is nested deeper than 1000 levels');
    }
  });
});

describe('size limits', () => {
  // PodTemplates: a kind whose validation sets no size limit of its own (ConfigMaps and Secrets
  // stop at 1 MiB of data, a 422 before the store's limit).
  const templates = () => `/api/v1/namespaces/${h.ns}/podtemplates`;
  const template = (name: string, bytes: number): Json => ({
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name },
    template: { spec: { containers: [{ name: 'c', image: 'nginx', args: ['x'.repeat(bytes)] }] } },
  });
  const more = 'y'.repeat(200 * 1024);

  it('an object larger than etcd accepts (1.5 MiB) is 413 on create, update, patch and apply; a body over 3 MiB is 413 before it is read', async () => {
    const tooBig = (res: Json) =>
      expect(expectStatus(res, 413, 'RequestEntityTooLarge').message).toBe('Request entity too large: etcdserver: request is too large');
    tooBig(await h.post(templates(), template('a', 1600 * 1024)));
    tooBig(await apply(`${templates()}/a`, template('a', 1600 * 1024)));
    expectStatus(await h.get(`${templates()}/a`), 404, 'NotFound');
    const created = await h.create(templates(), template('a', 1400 * 1024));
    tooBig(await h.put(`${templates()}/a`, template('a', 1600 * 1024)));
    tooBig(
      await h.patch(`${templates()}/a`, {
        metadata: { annotations: { a: 'b' } },
        template: {
          metadata: { labels: { l: 'v' } },
          spec: { containers: [{ name: 'c', image: 'nginx', args: ['x'.repeat(1400 * 1024), more] }] },
        },
      }),
    );
    tooBig(
      await h.patch(`${templates()}/a`, { template: { spec: { containers: [{ name: 'd', image: 'nginx', args: [more] }] } } }, 'strategic'),
    );
    tooBig(await h.patch(`${templates()}/a`, [{ op: 'add', path: '/template/spec/containers/0/args/-', value: more }], 'json'));
    tooBig(
      await apply(
        `${templates()}/a`,
        { ...template('a', 0), template: { spec: { containers: [{ name: 'e', image: 'nginx', args: [more] }] } } },
        'fieldManager=bob',
      ),
    );
    expect((await h.read(`${templates()}/a`)).metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    const body = expectStatus(await h.post(templates(), template('b', 3 * 1024 * 1024)), 413, 'RequestEntityTooLarge');
    expect(body.message).toBe('Request entity too large: limit is 3145728');
  });
});
