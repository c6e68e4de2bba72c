import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Harness,
  NAMESPACES,
  type WatchReader,
  cronTabBody,
  crontab,
  crontabs,
  expectStatus,
  names,
  qs,
  startServer,
} from './server.testing.js';

let h: Harness;
let w: WatchReader;
beforeEach(async () => {
  h = await startServer();
});
afterEach(async () => {
  w?.close();
  await h.close();
});

/** Starts watching the namespace's CronTabs and remembers the store revision. */
async function observe(): Promise<string> {
  const rv = await h.currentRv();
  w = await h.watch(`${crontabs(h.ns)}${qs({ watch: 1, resourceVersion: rv })}`);
  return rv;
}

/** Nothing was written: the revision is the same and no watch event arrived. */
async function expectNothingPersisted(rv: string): Promise<void> {
  await w.quiet(100);
  expect(await h.currentRv()).toBe(rv);
}

describe('dryRun=All', () => {
  it('create: answers 201 with what would be stored (defaults, uid, timestamps), stores nothing', async () => {
    const rv = await observe();
    const res = await h.post(`${crontabs(h.ns)}?dryRun=All`, cronTabBody('a'));
    expect(res.status).toBe(201);
    expect(res.body.metadata).toMatchObject({ name: 'a', namespace: h.ns, creationTimestamp: '2024-01-01T00:00:00Z' });
    expect(res.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.metadata.resourceVersion).toBeUndefined();
    expect(res.body.spec).toEqual({
      cronSpec: '*/5 * * * *',
      image: 'registry.example/cron:1',
      replicas: 1,
      minReplicas: 0,
      maxReplicas: 10,
    });
    expectStatus(await h.get(crontab(h.ns, 'a')), 404, 'NotFound');
    await expectNothingPersisted(rv);
  });

  it('create: generates a name from generateName without storing it', async () => {
    const rv = await observe();
    const res = await h.post(`${crontabs(h.ns)}?dryRun=All`, cronTabBody('', { metadata: { name: undefined, generateName: 'dry-' } }));
    expect(res.status).toBe(201);
    expect(res.body.metadata.name).toMatch(/^dry-[a-z0-9]{5}$/);
    expect(names(await h.read(crontabs(h.ns)))).toEqual([]);
    await expectNothingPersisted(rv);
  });

  it('create: runs every check of the real request (409 for a taken name, 422 for a failing rule, 404 for a missing namespace)', async () => {
    await h.createCronTab('a');
    expectStatus(await h.post(`${crontabs(h.ns)}?dryRun=All`, cronTabBody('a')), 409, 'AlreadyExists');
    expectStatus(await h.post(`${crontabs(h.ns)}?dryRun=All`, cronTabBody('b', { spec: { replicas: 20 } })), 422, 'Invalid');
    expectStatus(await h.post(`${crontabs('nope')}?dryRun=All`, cronTabBody('b')), 404, 'NotFound');
  });

  it('update: answers the updated object, stores nothing', async () => {
    const created = await h.createCronTab('a');
    const rv = await observe();
    const res = await h.put(`${crontab(h.ns, 'a')}?dryRun=All`, { ...created, spec: { ...created.spec, image: 'dry' } });
    expect(res.status).toBe(200);
    expect(res.body.spec.image).toBe('dry');
    expect(res.body.metadata.uid).toBe(created.metadata.uid);
    expect(await h.read(crontab(h.ns, 'a'))).toEqual(created);
    await expectNothingPersisted(rv);
    // The stale-version check still applies.
    await h.patch(crontab(h.ns, 'a'), { metadata: { labels: { x: 'y' } } });
    expectStatus(await h.put(`${crontab(h.ns, 'a')}?dryRun=All`, created), 409, 'Conflict');
  });

  it('update of the status: answers the new status, stores nothing', async () => {
    const created = await h.createCronTab('a');
    const rv = await observe();
    const res = await h.put(`${crontab(h.ns, 'a')}/status?dryRun=All`, { ...created, status: { replicas: 3 } });
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual({ replicas: 3 });
    expect((await h.read(crontab(h.ns, 'a'))).status).toBeUndefined();
    await expectNothingPersisted(rv);
  });

  it('patch: answers the merged object, stores nothing', async () => {
    const created = await h.createCronTab('a', { labels: { keep: 'me' } });
    const rv = await observe();
    const res = await h.patch(`${crontab(h.ns, 'a')}?dryRun=All`, { metadata: { labels: { added: 'yes' } } });
    expect(res.status).toBe(200);
    expect(res.body.metadata.labels).toEqual({ keep: 'me', added: 'yes' });
    const json = await h.patch(`${crontab(h.ns, 'a')}?dryRun=All`, [{ op: 'replace', path: '/spec/image', value: 'dry' }], 'json');
    expect(json.body.spec.image).toBe('dry');
    expect(await h.read(crontab(h.ns, 'a'))).toEqual(created);
    await expectNothingPersisted(rv);
  });

  it('delete: answers as the real delete would, deletes nothing', async () => {
    const created = await h.createCronTab('a');
    await h.createCronTab('held', { metadata: { finalizers: ['example.svc.io/hold'] } });
    const rv = await observe();
    const res = await h.delete(`${crontab(h.ns, 'a')}?dryRun=All`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'a', uid: created.metadata.uid } });
    const held = await h.delete(`${crontab(h.ns, 'held')}?dryRun=All`);
    expect(held.status).toBe(200);
    expect(held.body.metadata.deletionTimestamp).toBe('2024-01-01T00:00:00Z');
    expect((await h.read(crontab(h.ns, 'held'))).metadata.deletionTimestamp).toBeUndefined();
    expect((await h.read(crontab(h.ns, 'a'))).metadata.uid).toBe(created.metadata.uid);
    await expectNothingPersisted(rv);
  });

  it('delete: dryRun in the DeleteOptions body works as in the query', async () => {
    await h.createCronTab('a');
    const rv = await observe();
    expect((await h.delete(crontab(h.ns, 'a'), { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] })).status).toBe(200);
    expect((await h.read(crontab(h.ns, 'a'))).metadata.name).toBe('a');
    await expectNothingPersisted(rv);
  });

  it('delete of a namespace: answers Terminating, the namespace and its content stay', async () => {
    await h.createCronTab('a');
    const rv = await observe();
    const res = await h.delete(`${NAMESPACES}/${h.ns}?dryRun=All`);
    expect(res.status).toBe(200);
    expect(res.body.status.phase).toBe('Terminating');
    await h.server.context.hooks.idle();
    expect((await h.read(`${NAMESPACES}/${h.ns}`)).metadata.deletionTimestamp).toBeUndefined();
    expect(names(await h.read(crontabs(h.ns)))).toEqual(['a']);
    await expectNothingPersisted(rv);
  });

  it('deletecollection: answers the list that would be deleted, deletes nothing', async () => {
    await h.createCronTab('a', { labels: { app: 'x' } });
    await h.createCronTab('b');
    const rv = await observe();
    const res = await h.delete(`${crontabs(h.ns)}${qs({ dryRun: 'All', labelSelector: 'app=x' })}`);
    expect(res.status).toBe(200);
    expect(names(res.body)).toEqual(['a']);
    expect(names(await h.read(crontabs(h.ns)))).toEqual(['a', 'b']);
    await expectNothingPersisted(rv);
  });
});

describe('a bare dryRun is not a dry run', () => {
  it.each(['?dryRun', '?dryRun&pretty=true', '?dryRun='])('create with %s stores the object', async (query) => {
    const rv = await observe();
    const res = await h.post(`${crontabs(h.ns)}${query}`, cronTabBody('a'));
    expect(res.status).toBe(201);
    expect(res.body.metadata.resourceVersion).toBe(String(Number(rv) + 1));
    expect((await h.read(crontab(h.ns, 'a'))).metadata.uid).toBe(res.body.metadata.uid);
    expect((await w.next()).type).toBe('ADDED');
  });

  it('update, patch and delete with a bare dryRun take effect', async () => {
    const created = await h.createCronTab('a');
    expect((await h.put(`${crontab(h.ns, 'a')}?dryRun`, { ...created, spec: { ...created.spec, image: 'one' } })).status).toBe(200);
    expect((await h.read(crontab(h.ns, 'a'))).spec.image).toBe('one');
    expect((await h.patch(`${crontab(h.ns, 'a')}?dryRun`, { spec: { image: 'two' } })).status).toBe(200);
    expect((await h.read(crontab(h.ns, 'a'))).spec.image).toBe('two');
    expect((await h.delete(`${crontab(h.ns, 'a')}?dryRun`)).status).toBe(200);
    expectStatus(await h.get(crontab(h.ns, 'a')), 404, 'NotFound');
  });
});
