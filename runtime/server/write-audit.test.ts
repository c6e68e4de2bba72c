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
      expect(status.details.causes).toEqual([expect.objectContaining({ reason: 'FieldValueRequired', field: 'spec.ports' })]);
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
