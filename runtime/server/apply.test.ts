import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, type Json, crontab, expectStatus, startServer } from './server.testing.js';

/** Server-side apply and field ownership over HTTP (spec: Update rules 2-11, the managedFields entry). */
describe('server-side apply', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startServer();
  });
  afterEach(() => h.close());

  const cm = (name: string) => `/api/v1/namespaces/${h.ns}/configmaps/${name}`;
  const applyTo = (path: string, body: Json, manager?: string, query = '') =>
    h.patch(`${path}?${manager ? `fieldManager=${manager}` : ''}${query}`, JSON.stringify(body), 'application/apply-patch+yaml');
  const config = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
  const managers = (obj: Json) =>
    (obj.metadata.managedFields as Json[]).map(
      (e) =>
        `${e.manager}/${e.operation}:${Object.keys(e.fieldsV1['f:data'] ?? {})
          .sort()
          .join(',')}`,
    );

  it('creates the object when it is absent (201) and records an Apply entry with FieldsV1', async () => {
    const res = await applyTo(cm('a'), config('a', { x: '1' }), 'alice');
    expect(res.status).toBe(201);
    const entry = res.body.metadata.managedFields[0];
    expect(entry).toMatchObject({
      manager: 'alice',
      operation: 'Apply',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:x': {} } },
    });
    expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('accepts YAML (and JSON as YAML) and patches an existing object (200)', async () => {
    await applyTo(cm('a'), config('a', { x: '1' }), 'alice');
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "1"\n  y: "2"\n';
    const res = await h.patch(`${cm('a')}?fieldManager=alice`, yaml, 'application/apply-patch+yaml');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ x: '1', y: '2' });
  });

  it('requires a fieldManager (422 on PatchOptions, nothing created, with or without an object)', async () => {
    for (const query of ['', '&fieldManager=']) {
      const status = expectStatus(await applyTo(cm('a'), config('a', { x: '1' }), undefined, query), 422, 'Invalid');
      expect(status.message).toBe('PatchOptions.meta.svc.io "" is invalid: fieldManager: Required value: is required for apply patch');
      expect(status.details.causes).toEqual([
        { reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' },
      ]);
    }
    expect((await h.get(cm('a'))).status).toBe(404);
    await applyTo(cm('a'), config('a', { x: '1' }), 'alice');
    expectStatus(await applyTo(cm('a'), config('a', { x: '2' })), 422, 'Invalid');
    expect((await h.get(cm('a'))).body.data).toEqual({ x: '1' });
  });

  it('requires apiVersion and kind, and refuses managedFields in the body (400)', async () => {
    expectStatus(await applyTo(cm('a'), { metadata: { name: 'a' }, data: { x: '1' } }, 'alice'), 400, 'BadRequest');
    const withManaged = { ...config('a', { x: '1' }), metadata: { name: 'a', managedFields: [{ manager: 'x' }] } };
    expectStatus(await applyTo(cm('a'), withManaged, 'alice'), 400, 'BadRequest');
  });

  it('fails with a 409 Conflict naming each conflicting field and its manager', async () => {
    await applyTo(cm('a'), config('a', { x: '1', y: '2' }), 'alice');
    const res = await applyTo(cm('a'), config('a', { x: '9', y: '8' }), 'bob');
    const status = expectStatus(res, 409, 'Conflict');
    expect(status.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.x' },
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.y' },
    ]);
  });

  it('force=true takes the fields and removes them from the other managers', async () => {
    await applyTo(cm('a'), config('a', { x: '1', y: '2' }), 'alice');
    const res = await applyTo(cm('a'), config('a', { x: '9' }), 'bob', '&force=true');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ x: '9', y: '2' });
    expect(managers(res.body)).toEqual(['alice/Apply:f:y', 'bob/Apply:f:x']);
  });

  it('equal values give shared ownership; a later change by one sharer conflicts', async () => {
    await applyTo(cm('a'), config('a', { x: '1' }), 'alice');
    const shared = await applyTo(cm('a'), config('a', { x: '1' }), 'bob');
    expect(shared.status).toBe(200);
    expect(managers(shared.body)).toEqual(['alice/Apply:f:x', 'bob/Apply:f:x']);
    expectStatus(await applyTo(cm('a'), config('a', { x: '2' }), 'alice'), 409, 'Conflict');
  });

  it('omitting a field gives up the claim: removed when nobody else owns it, kept when someone does', async () => {
    await applyTo(cm('a'), config('a', { x: '1', y: '2' }), 'alice');
    await applyTo(cm('a'), config('a', { y: '2' }), 'bob');
    const res = await applyTo(cm('a'), config('a', {}), 'alice');
    expect(res.body.data).toEqual({ y: '2' });
  });

  it('a PUT never conflicts and moves ownership to the updater', async () => {
    const created = (await applyTo(cm('a'), config('a', { x: '1' }), 'alice')).body;
    const res = await h.put(`${cm('a')}?fieldManager=carol`, { ...created, data: { x: '5' } });
    expect(res.status).toBe(200);
    expect(managers(res.body)).toEqual(['carol/Update:f:x']);
  });

  it('infers the manager of a non-apply write from the User-Agent', async () => {
    const res = await h.http
      .post(`/api/v1/namespaces/${h.ns}/configmaps`)
      .set('content-type', 'application/json')
      .set('user-agent', 'kubectl/v1.30.0 (linux/amd64)')
      .send(JSON.stringify(config('b', { k: 'v' })));
    expect(res.status).toBe(201);
    expect(res.body.metadata.managedFields[0]).toMatchObject({ manager: 'kubectl', operation: 'Update' });
  });

  it('resets managedFields with [{}] but not with []', async () => {
    const created = (await applyTo(cm('a'), config('a', { x: '1' }), 'alice')).body;
    const kept = await h.put(cm('a'), { ...created, metadata: { ...created.metadata, managedFields: [] } });
    expect(kept.body.metadata.managedFields.map((e: Json) => e.manager)).toEqual(['alice']);
    const reset = await h.put(`${cm('a')}?fieldManager=dave`, {
      ...kept.body,
      data: { x: '1', z: '3' },
      metadata: { ...kept.body.metadata, managedFields: [{}] },
    });
    expect(reset.status).toBe(200);
    // The reset happens first, so the writer owns what it changed and nobody owns the rest.
    expect(managers(reset.body)).toEqual(['dave/Update:f:z']);
  });

  it('a dry-run apply returns the merged object and stores nothing', async () => {
    const res = await applyTo(cm('a'), config('a', { x: '1' }), 'alice', '&dryRun=All');
    expect(res.status).toBe(201);
    expectStatus(await h.get(cm('a')), 404, 'NotFound');
  });

  it('applies to a custom resource (unstructured by default) and runs its CEL rules', async () => {
    const body = {
      apiVersion: 'stable.example.svc.io/v1',
      kind: 'CronTab',
      metadata: { name: 'c' },
      spec: { cronSpec: '* * * * *', image: 'i', replicas: 2 },
    };
    expect((await applyTo(crontab(h.ns, 'c'), body, 'alice')).status).toBe(201);
    const invalid = await applyTo(crontab(h.ns, 'c'), { ...body, spec: { ...body.spec, replicas: 50 } }, 'alice');
    expectStatus(invalid, 422, 'Invalid');
  });
});
