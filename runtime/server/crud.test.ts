import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CRONTABS,
  type Harness,
  NAMESPACES,
  NODES,
  cronTabBody,
  crontab,
  crontabs,
  expectStatus,
  names,
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('names and scope', () => {
  it('allows one object of a kind per name in a namespace: a second create is 409 AlreadyExists', async () => {
    await h.createCronTab('a');
    const res = await h.post(crontabs(h.ns), cronTabBody('a'));
    const status = expectStatus(res, 409, 'AlreadyExists');
    expect(status.message).toBe('crontabs.stable.example.svc.io "a" already exists');
    expect(status.details).toEqual({ name: 'a', group: 'stable.example.svc.io', kind: 'crontabs' });
  });

  it('allows the same name in another namespace and for another kind', async () => {
    await h.createNamespace('other');
    await h.createCronTab('a');
    const other = await h.createCronTab('a', {}, 'other');
    expect(other.metadata.namespace).toBe('other');
    await h.create(services(h.ns), serviceBody('a'));
    expect(names(await h.read(`${CRONTABS}/crontabs`))).toEqual(['a', 'a']);
  });

  it('keeps cluster-scoped names unique across the whole cluster', async () => {
    await h.create(NODES, { metadata: { name: 'n1' } });
    const res = await h.post(NODES, { metadata: { name: 'n1' } });
    expect(expectStatus(res, 409, 'AlreadyExists').message).toBe('nodes "n1" already exists');
    // A namespace in the path does not scope a cluster-scoped resource.
    expectStatus(await h.get(`/api/v1/namespaces/${h.ns}/nodes`), 404, 'NotFound');
  });

  it('lets a new object reuse a name after deletion, with a new uid', async () => {
    const first = await h.createCronTab('a');
    expect((await h.delete(crontab(h.ns, 'a'))).status).toBe(200);
    const second = await h.createCronTab('a');
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    expect(Number(second.metadata.resourceVersion)).toBeGreaterThan(Number(first.metadata.resourceVersion));
  });

  it('generates a unique name from generateName', async () => {
    const a = await h.create(crontabs(h.ns), cronTabBody('', { metadata: { name: undefined, generateName: 'job-' } }));
    const b = await h.create(crontabs(h.ns), cronTabBody('', { metadata: { name: undefined, generateName: 'job-' } }));
    expect(a.metadata.name).toMatch(/^job-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(b.metadata.name).toMatch(/^job-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(a.metadata.name).not.toBe(b.metadata.name);
    expect(a.metadata.generateName).toBe('job-');
    expect((await h.read(crontab(h.ns, a.metadata.name))).metadata.uid).toBe(a.metadata.uid);
  });

  it('prefers an explicit name over generateName', async () => {
    const a = await h.create(crontabs(h.ns), cronTabBody('fixed', { metadata: { generateName: 'job-' } }));
    expect(a.metadata.name).toBe('fixed');
  });

  it('rejects an invalid name with 422 Invalid naming metadata.name', async () => {
    const res = await h.post(crontabs(h.ns), cronTabBody('Bad_Name'));
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.message).toMatch(
      /^CronTab\.stable\.example\.svc\.io "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    expect(status.details.causes).toHaveLength(1);
    expect(status.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.name' });
    expect(status.details).toMatchObject({ name: 'Bad_Name', group: 'stable.example.svc.io', kind: 'CronTab' });
  });

  it('validates namespace names as DNS labels (no dots)', async () => {
    const res = await h.post(NAMESPACES, { metadata: { name: 'a.b' } });
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.name' });
    expect(status.message).toBe('Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots');
    const upper = expectStatus(await h.post(NAMESPACES, { metadata: { name: 'Upper' } }), 422, 'Invalid');
    expect(upper.message).toContain('a lowercase RFC 1123 label must consist of lower case alphanumeric characters');
  });

  it('requires a name or generateName (422)', async () => {
    const res = await h.post(crontabs(h.ns), cronTabBody('', { metadata: { name: undefined } }));
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.details.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
    ]);
  });

  it('needs an existing namespace for a namespaced object (404 for the namespace)', async () => {
    const res = await h.post(crontabs('nope'), cronTabBody('a'));
    const status = expectStatus(res, 404, 'NotFound');
    expect(status.message).toBe('namespaces "nope" not found');
    expect(status.details).toEqual({ name: 'nope', kind: 'namespaces' });
  });

  it('refuses new content in a terminating namespace (403 Forbidden, NamespaceTerminating)', async () => {
    // A finalizer keeps the namespace terminating while the test looks.
    await h.createCronTab('held', { metadata: { finalizers: ['example.svc.io/hold'] } });
    expect((await h.delete(`${NAMESPACES}/${h.ns}`)).status).toBe(200);
    await h.server.context.hooks.idle();
    const res = await h.post(crontabs(h.ns), cronTabBody('late'));
    const status = expectStatus(res, 403, 'Forbidden');
    expect(status.message).toBe(
      `crontabs.stable.example.svc.io "late" is forbidden: unable to create new content in namespace ${h.ns} because it is being terminated`,
    );
    expect(status.details).toEqual({
      name: 'late',
      group: 'stable.example.svc.io',
      kind: 'crontabs',
      causes: [{ reason: 'NamespaceTerminating', message: `namespace ${h.ns} is being terminated`, field: 'metadata.namespace' }],
    });
    // Updates of existing content stay possible (that is how the finalizer gets removed).
    const held = await h.read(crontab(h.ns, 'held'));
    expect((await h.patch(crontab(h.ns, 'held'), { metadata: { labels: { a: 'b' } } })).status).toBe(200);
    expect(held.metadata.deletionTimestamp).toBeDefined();
  });

  it('rejects a body whose namespace differs from the path (400)', async () => {
    await h.createNamespace('other');
    const res = await h.post(crontabs(h.ns), cronTabBody('a', { metadata: { namespace: 'other' } }));
    expect(expectStatus(res, 400, 'BadRequest').message).toBe(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  });

  it('does not create namespaced objects through the all-namespaces path (405)', async () => {
    const res = await h.post(`${CRONTABS}/crontabs`, cronTabBody('a', { metadata: { namespace: h.ns } }));
    expectStatus(res, 405, 'MethodNotAllowed');
    expect(names(await h.read(crontabs(h.ns)))).toEqual([]);
  });
});

describe('metadata', () => {
  // A resourceVersion on create is refused (400), as upstream's storage refuses it (write-audit.test.ts).
  it('sets uid, resourceVersion and creationTimestamp, replacing what the client sent', async () => {
    const created = await h.create(
      crontabs(h.ns),
      cronTabBody('a', {
        metadata: {
          uid: 'client-uid',
          creationTimestamp: '2000-01-01T00:00:00Z',
          deletionTimestamp: '2000-01-01T00:00:00Z',
        },
      }),
    );
    expect(created.metadata.uid).toMatch(UUID);
    expect(created.metadata.uid).not.toBe('client-uid');
    expect(created.metadata.resourceVersion).toBe(await h.currentRv());
    expect(created.metadata.creationTimestamp).toBe('2024-01-01T00:00:00Z');
    expect(created.metadata.deletionTimestamp).toBeUndefined();
    expect(created.metadata.namespace).toBe(h.ns);
    expect(created).toMatchObject({ apiVersion: 'stable.example.svc.io/v1', kind: 'CronTab' });
  });

  it('gives every write a new, increasing resourceVersion and keeps uid and creationTimestamp on update', async () => {
    const created = await h.createCronTab('a');
    h.clock.advance(5000);
    const body = {
      ...created,
      metadata: { ...created.metadata, uid: undefined, creationTimestamp: '2001-01-01T00:00:00Z', labels: { x: 'y' } },
    };
    const res = await h.put(crontab(h.ns, 'a'), body);
    expect(res.status).toBe(200);
    expect(res.body.metadata.uid).toBe(created.metadata.uid);
    expect(res.body.metadata.creationTimestamp).toBe('2024-01-01T00:00:00Z');
    expect(Number(res.body.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    expect(res.body.metadata.labels).toEqual({ x: 'y' });
  });

  it('refuses an update that changes the uid (422, the uid is immutable)', async () => {
    const created = await h.createCronTab('a');
    const res = await h.put(crontab(h.ns, 'a'), {
      ...created,
      metadata: { ...created.metadata, uid: '00000000-0000-0000-0000-000000000000' },
    });
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "00000000-0000-0000-0000-000000000000": field is immutable',
        field: 'metadata.uid',
      },
    ]);
    const patched = await h.patch(crontab(h.ns, 'a'), [{ op: 'replace', path: '/metadata/uid', value: 'other' }], 'json');
    expectStatus(patched, 422, 'Invalid');
    expect((await h.read(crontab(h.ns, 'a'))).metadata.uid).toBe(created.metadata.uid);
  });

  it('fills apiVersion and kind from the endpoint and rejects a mismatching kind (400)', async () => {
    const created = await h.create(crontabs(h.ns), { metadata: { name: 'a' }, spec: { cronSpec: '* * * * *', image: 'i' } });
    expect(created).toMatchObject({ apiVersion: 'stable.example.svc.io/v1', kind: 'CronTab' });
    const res = await h.post(crontabs(h.ns), { ...cronTabBody('b'), kind: 'Service' });
    expect(expectStatus(res, 400, 'BadRequest').message).toContain('does not match the expected kind');
  });
});

describe('verbs', () => {
  it('get returns the stored object; a missing one is 404 NotFound', async () => {
    const created = await h.createCronTab('a');
    expect(await h.read(crontab(h.ns, 'a'))).toEqual(created);
    const res = await h.get(crontab(h.ns, 'missing'));
    const status = expectStatus(res, 404, 'NotFound');
    expect(status.message).toBe('crontabs.stable.example.svc.io "missing" not found');
    expect(status.details).toEqual({ name: 'missing', group: 'stable.example.svc.io', kind: 'crontabs' });
  });

  it('create answers 201 with the stored object, defaults applied', async () => {
    const res = await h.post(crontabs(h.ns), cronTabBody('a'));
    expect(res.status).toBe(201);
    expect(res.body.spec).toEqual({
      cronSpec: '*/5 * * * *',
      image: 'registry.example/cron:1',
      replicas: 1,
      minReplicas: 0,
      maxReplicas: 10,
    });
    expect(await h.read(crontab(h.ns, 'a'))).toEqual(res.body);
  });

  it('list returns a <Kind>List of the requested type at the collection version', async () => {
    await h.createCronTab('b');
    await h.createCronTab('a');
    const list = await h.read(crontabs(h.ns));
    expect(list.kind).toBe('CronTabList');
    expect(list.apiVersion).toBe('stable.example.svc.io/v1');
    expect(list.metadata).toEqual({ resourceVersion: await h.currentRv(), continue: '' });
    expect(names(list)).toEqual(['a', 'b']);
    expect(list.items.every((i: { kind: string }) => i.kind === 'CronTab')).toBe(true);
  });

  it('lists a namespaced kind across all namespaces, and only one namespace under its path', async () => {
    await h.createNamespace('other');
    await h.createCronTab('x');
    await h.createCronTab('y', {}, 'other');
    const all = await h.read(`${CRONTABS}/crontabs`);
    expect(all.items.map((i: { metadata: { namespace: string; name: string } }) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual([
      'other/y',
      'test/x',
    ]);
    expect(names(await h.read(crontabs('other')))).toEqual(['y']);
  });

  it('update with the current resourceVersion replaces the object', async () => {
    const created = await h.createCronTab('a');
    const res = await h.put(crontab(h.ns, 'a'), { ...created, spec: { ...created.spec, image: 'other' } });
    expect(res.status).toBe(200);
    expect(res.body.spec.image).toBe('other');
    expect(res.body.metadata.generation).toBe(2);
    expect(await h.read(crontab(h.ns, 'a'))).toEqual(res.body);
  });

  it('update with a stale resourceVersion is 409 Conflict and changes nothing', async () => {
    const created = await h.createCronTab('a');
    const first = await h.put(crontab(h.ns, 'a'), { ...created, spec: { ...created.spec, image: 'one' } });
    expect(first.status).toBe(200);
    const res = await h.put(crontab(h.ns, 'a'), { ...created, spec: { ...created.spec, image: 'two' } });
    const status = expectStatus(res, 409, 'Conflict');
    expect(status.message).toBe(
      'Operation cannot be fulfilled on crontabs.stable.example.svc.io "a": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(status.details).toEqual({ name: 'a', group: 'stable.example.svc.io', kind: 'crontabs' });
    expect((await h.read(crontab(h.ns, 'a'))).spec.image).toBe('one');
  });

  it('update without a resourceVersion is 422 Invalid on metadata.resourceVersion', async () => {
    await h.createCronTab('a');
    const res = await h.put(crontab(h.ns, 'a'), cronTabBody('a'));
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' },
    ]);
  });

  it('update of a missing object is 404, and a name that differs from the path is 400', async () => {
    expectStatus(
      await h.put(crontab(h.ns, 'missing'), { ...cronTabBody('missing'), metadata: { name: 'missing', resourceVersion: '1' } }),
      404,
      'NotFound',
    );
    const created = await h.createCronTab('a');
    const res = await h.put(crontab(h.ns, 'a'), { ...created, metadata: { ...created.metadata, name: 'b' } });
    expect(expectStatus(res, 400, 'BadRequest').message).toBe('the name of the object (b) does not match the name on the URL (a)');
  });

  it('a no-op update keeps the resourceVersion, whatever the key order of the body', async () => {
    const created = await h.createCronTab('a');
    const same = await h.put(crontab(h.ns, 'a'), created);
    expect(same.status).toBe(200);
    expect(same.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    // The same object with its keys in another order is the same object.
    const { spec, metadata, kind, apiVersion } = created;
    const reordered = {
      spec: Object.fromEntries(Object.entries(spec).reverse()),
      metadata: Object.fromEntries(Object.entries(metadata).reverse()),
      kind,
      apiVersion,
    };
    const res = await h.put(crontab(h.ns, 'a'), reordered);
    expect(res.status).toBe(200);
    expect(res.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(res.body.metadata.generation).toBe(1);
    expect(await h.currentRv()).toBe(created.metadata.resourceVersion);
  });

  it('delete removes the object and answers a Success Status', async () => {
    const created = await h.createCronTab('a');
    const res = await h.delete(crontab(h.ns, 'a'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'a', group: 'stable.example.svc.io', kind: 'crontabs', uid: created.metadata.uid },
    });
    expectStatus(await h.get(crontab(h.ns, 'a')), 404, 'NotFound');
    expectStatus(await h.delete(crontab(h.ns, 'a')), 404, 'NotFound');
  });
});

describe('status subresource', () => {
  it('PUT /status changes only the status', async () => {
    const created = await h.createCronTab('a');
    const res = await h.put(`${crontab(h.ns, 'a')}/status`, {
      ...created,
      metadata: { ...created.metadata, labels: { ignored: 'yes' } },
      spec: { ...created.spec, image: 'ignored' },
      status: { replicas: 3 },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual({ replicas: 3 });
    expect(res.body.spec).toEqual(created.spec);
    expect(res.body.metadata.labels).toBeUndefined();
    expect(res.body.metadata.generation).toBe(1);
    expect(await h.read(crontab(h.ns, 'a'))).toEqual(res.body);
  });

  it('PUT /status with a stale resourceVersion is 409', async () => {
    const created = await h.createCronTab('a');
    await h.put(`${crontab(h.ns, 'a')}/status`, { ...created, status: { replicas: 1 } });
    expectStatus(await h.put(`${crontab(h.ns, 'a')}/status`, { ...created, status: { replicas: 2 } }), 409, 'Conflict');
  });

  it('create drops the status of a kind with a status subresource', async () => {
    const created = await h.createCronTab('a', { status: { replicas: 7 } });
    expect(created.status).toBeUndefined();
    expect((await h.read(crontab(h.ns, 'a'))).status).toBeUndefined();
  });

  it('PUT and PATCH to the main resource keep the status', async () => {
    const created = await h.createCronTab('a');
    const withStatus = await h.put(`${crontab(h.ns, 'a')}/status`, { ...created, status: { replicas: 2 } });
    expect(withStatus.status).toBe(200);
    const res = await h.put(crontab(h.ns, 'a'), { ...withStatus.body, spec: { ...created.spec, image: 'next' }, status: { replicas: 99 } });
    expect(res.status).toBe(200);
    expect(res.body.spec.image).toBe('next');
    expect(res.body.status).toEqual({ replicas: 2 });
    const patched = await h.patch(crontab(h.ns, 'a'), { status: { replicas: 50 }, spec: { image: 'third' } });
    expect(patched.status).toBe(200);
    expect(patched.body.status).toEqual({ replicas: 2 });
    expect(patched.body.spec.image).toBe('third');
  });

  it('serves status on built-in kinds too (services)', async () => {
    const created = await h.create(services(h.ns), serviceBody('web'));
    const res = await h.put(`${service(h.ns, 'web')}/status`, { ...created, status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } } });
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual({ loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } });
    expect(res.body.spec).toEqual(created.spec);
  });

  it('a kind without a status subresource has no /status (404)', async () => {
    await h.create(NODES, { metadata: { name: 'n1' } });
    await h.create(`/api/v1/namespaces/${h.ns}/events`, { metadata: { name: 'e1' }, involvedObject: {} });
    expectStatus(await h.get(`/api/v1/namespaces/${h.ns}/events/e1/status`), 404, 'NotFound');
  });
});

describe('built-in kinds with CEL rules in their schemas', () => {
  // Their rules run under the CRD cost limits of runtime/cel: unbounded maps and lists must not
  // turn every create into a 500.
  it('creates a ConfigMap, and enforces its rules', async () => {
    const res = await h.post(`/api/v1/namespaces/${h.ns}/configmaps`, { metadata: { name: 'cm' }, data: { key: 'value' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ key: 'value' });
    const bad = await h.post(`/api/v1/namespaces/${h.ns}/configmaps`, { metadata: { name: 'bad' }, data: { 'not a key!': 'v' } });
    expect(expectStatus(bad, 422, 'Invalid').details.causes[0].field).toBe('data');
  });

  it('creates a Pod', async () => {
    const res = await h.post(`/api/v1/namespaces/${h.ns}/pods`, {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    expect(res.status).toBe(201);
    expect(res.body.spec.containers[0]).toMatchObject({ name: 'c', image: 'i' });
  });
});
