import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CRONTABS,
  type Harness,
  NAMESPACES,
  crontab,
  crontabs,
  expectStatus,
  names,
  qs,
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

const summary = (events: { type: string; object: { metadata: { name: string } } }[]) =>
  events.map((e) => `${e.type} ${e.object.metadata.name}`);

describe('finalizers and two-phase deletion', () => {
  it('marks an object with finalizers as deleting, keeps it, and removes it with the last finalizer', async () => {
    const created = await h.createCronTab('a', { metadata: { finalizers: ['example.svc.io/one', 'example.svc.io/two'] } });
    const w = await h.watch(`${crontabs(h.ns)}${qs({ watch: 1, resourceVersion: created.metadata.resourceVersion })}`);
    h.clock.advance(10_000);

    const res = await h.delete(crontab(h.ns, 'a'));
    expect(res.status).toBe(200);
    expect(res.body.metadata.deletionTimestamp).toBe('2024-01-01T00:00:10Z');
    expect(res.body.metadata.deletionGracePeriodSeconds).toBe(0);
    expect(res.body.metadata.finalizers).toEqual(['example.svc.io/one', 'example.svc.io/two']);
    const marked = await h.read(crontab(h.ns, 'a'));
    expect(marked).toEqual(res.body);

    // A second delete changes nothing: the first deletionTimestamp stays.
    h.clock.advance(10_000);
    const again = await h.delete(crontab(h.ns, 'a'));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(marked);

    // Removing one finalizer (in any order) keeps it; an update cannot clear deletionTimestamp.
    const one = await h.put(crontab(h.ns, 'a'), {
      ...marked,
      metadata: { ...marked.metadata, deletionTimestamp: undefined, finalizers: ['example.svc.io/two'] },
    });
    expect(one.status).toBe(200);
    expect(one.body.metadata.deletionTimestamp).toBe('2024-01-01T00:00:10Z');
    expect(one.body.metadata.finalizers).toEqual(['example.svc.io/two']);

    // Removing the last one removes the object.
    const last = await h.patch(crontab(h.ns, 'a'), [{ op: 'remove', path: '/metadata/finalizers' }], 'json');
    expect(last.status).toBe(200);
    expectStatus(await h.get(crontab(h.ns, 'a')), 404, 'NotFound');

    const events = await w.take(3);
    expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
    expect(events[0]!.object.metadata.deletionTimestamp).toBe('2024-01-01T00:00:10Z');
    expect(events[2]!.object.metadata.name).toBe('a');
    expect(Number(events[2]!.object.metadata.resourceVersion)).toBe(Number(await h.currentRv()));
    w.close();
    // The name is free again.
    await h.createCronTab('a');
  });

  it('an object being deleted takes no new finalizers (422 Forbidden)', async () => {
    await h.createCronTab('a', { metadata: { finalizers: ['example.svc.io/one'] } });
    const marked = (await h.delete(crontab(h.ns, 'a'))).body;
    const res = await h.put(crontab(h.ns, 'a'), {
      ...marked,
      metadata: { ...marked.metadata, finalizers: ['example.svc.io/one', 'example.svc.io/late'] },
    });
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.details.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        message:
          'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.svc.io/late"}',
        field: 'metadata.finalizers',
      },
    ]);
  });

  it('a create cannot set deletionTimestamp; an update cannot set it either', async () => {
    const created = await h.createCronTab('a', { metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' } });
    expect(created.metadata.deletionTimestamp).toBeUndefined();
    const res = await h.put(crontab(h.ns, 'a'), {
      ...created,
      metadata: { ...created.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' },
    });
    expect(res.status).toBe(200);
    expect(res.body.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('namespace deletion', () => {
  it('enters Terminating, deletes everything in the namespace, then the namespace itself', async () => {
    await h.createNamespace('doomed');
    await h.createNamespace('kept');
    await h.createCronTab('a', {}, 'doomed');
    await h.create(services('doomed'), serviceBody('web'));
    await h.createCronTab('a', {}, 'kept');
    const w = await h.watch(`${crontabs('doomed')}${qs({ watch: 1, resourceVersion: await h.currentRv() })}`);

    const res = await h.delete(`${NAMESPACES}/doomed`);
    expect(res.status).toBe(200);
    expect(res.body.metadata.deletionTimestamp).toBe('2024-01-01T00:00:00Z');
    expect(res.body.status.phase).toBe('Terminating');
    await h.server.context.hooks.idle();

    expectStatus(await h.get(crontab('doomed', 'a')), 404, 'NotFound');
    expectStatus(await h.get(service('doomed', 'web')), 404, 'NotFound');
    expectStatus(await h.get(`${NAMESPACES}/doomed`), 404, 'NotFound');
    expect((await h.read(crontab('kept', 'a'))).metadata.name).toBe('a');
    expect(summary([await w.next()])).toEqual(['DELETED a']);
    w.close();
  });

  it('waits for objects with finalizers, and finishes when the last one is removed', async () => {
    await h.createNamespace('doomed');
    await h.createCronTab('held', { metadata: { finalizers: ['example.svc.io/hold'] } }, 'doomed');
    await h.createCronTab('free', {}, 'doomed');
    await h.delete(`${NAMESPACES}/doomed`);
    await h.server.context.hooks.idle();

    expectStatus(await h.get(crontab('doomed', 'free')), 404, 'NotFound');
    const held = await h.read(crontab('doomed', 'held'));
    expect(held.metadata.deletionTimestamp).toBe('2024-01-01T00:00:00Z');
    expect((await h.read(`${NAMESPACES}/doomed`)).status.phase).toBe('Terminating');

    await h.patch(crontab('doomed', 'held'), { metadata: { finalizers: null } });
    await h.server.context.hooks.idle();
    expectStatus(await h.get(crontab('doomed', 'held')), 404, 'NotFound');
    expectStatus(await h.get(`${NAMESPACES}/doomed`), 404, 'NotFound');
  });
});

describe('namespace deletion: conditions and owners', () => {
  it('reports what remains and which finalizers hold it, as upstream, until the namespace is gone', async () => {
    await h.createNamespace('doomed');
    await h.createCronTab('held', { metadata: { finalizers: ['example.svc.io/hold'] } }, 'doomed');
    await h.create(services('doomed'), serviceBody('web'));
    await h.delete(`${NAMESPACES}/doomed`);
    await h.server.context.hooks.idle();

    const terminating = await h.read(`${NAMESPACES}/doomed`);
    const byType = Object.fromEntries(terminating.status.conditions.map((c: { type: string }) => [c.type, c]));
    expect(byType.NamespaceContentRemaining).toMatchObject({
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: crontabs.stable.example.svc.io has 1 resource instances',
      lastTransitionTime: '2024-01-01T00:00:00Z',
    });
    expect(byType.NamespaceFinalizersRemaining).toMatchObject({
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: 'Some content in the namespace has finalizers remaining: example.svc.io/hold in 1 resource instances',
    });
    expect(byType.NamespaceDeletionContentFailure).toMatchObject({ status: 'False', reason: 'ContentDeleted' });

    await h.patch(crontab('doomed', 'held'), { metadata: { finalizers: null } });
    await h.server.context.hooks.idle();
    expectStatus(await h.get(`${NAMESPACES}/doomed`), 404, 'NotFound');
  });

  it('finishes when content waits on the garbage collector (a foreground owner and its dependents)', async () => {
    await h.createNamespace('doomed');
    const owner = await h.createCronTab('owner', {}, 'doomed');
    const ref = {
      apiVersion: 'stable.example.svc.io/v1',
      kind: 'CronTab',
      name: 'owner',
      uid: owner.metadata.uid,
      blockOwnerDeletion: true,
    };
    await h.createCronTab('child', { metadata: { ownerReferences: [ref], finalizers: ['example.svc.io/hold'] } }, 'doomed');
    await h.delete(`${crontab('doomed', 'owner')}?propagationPolicy=Foreground`);
    await h.delete(`${NAMESPACES}/doomed`);
    await h.server.garbageCollector?.idle();
    await h.server.context.hooks.idle();
    expect((await h.read(crontab('doomed', 'owner'))).metadata.finalizers).toEqual(['foregroundDeletion']);

    await h.patch(crontab('doomed', 'child'), { metadata: { finalizers: null } });
    for (let i = 0; i < 100 && (await h.get(`${NAMESPACES}/doomed`)).status !== 404; i++) {
      await h.server.garbageCollector?.idle();
      await h.server.context.hooks.idle();
      await new Promise((r) => setTimeout(r, 20));
    }
    expectStatus(await h.get(crontab('doomed', 'owner')), 404, 'NotFound');
    expectStatus(await h.get(`${NAMESPACES}/doomed`), 404, 'NotFound');
  });
});

describe('DeleteOptions', () => {
  it('precondition on uid: a mismatch is 409 Conflict and nothing is deleted', async () => {
    const created = await h.createCronTab('a');
    const res = await h.delete(crontab(h.ns, 'a'), { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } });
    expect(expectStatus(res, 409, 'Conflict').message).toBe(
      `Operation cannot be fulfilled on crontabs.stable.example.svc.io "a": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${created.metadata.uid}`,
    );
    expect((await h.read(crontab(h.ns, 'a'))).metadata.uid).toBe(created.metadata.uid);
    expect((await h.delete(crontab(h.ns, 'a'), { preconditions: { uid: created.metadata.uid } })).status).toBe(200);
  });

  it('precondition on resourceVersion: a stale one is 409 Conflict', async () => {
    const created = await h.createCronTab('a');
    const updated = await h.patch(crontab(h.ns, 'a'), { metadata: { labels: { v: '2' } } });
    const res = await h.delete(crontab(h.ns, 'a'), { preconditions: { resourceVersion: created.metadata.resourceVersion } });
    expect(expectStatus(res, 409, 'Conflict').message).toContain(
      `Precondition failed: ResourceVersion in precondition: ${created.metadata.resourceVersion}, ResourceVersion in object meta: ${updated.body.metadata.resourceVersion}`,
    );
    expect((await h.delete(crontab(h.ns, 'a'), { preconditions: { resourceVersion: updated.body.metadata.resourceVersion } })).status).toBe(
      200,
    );
    expectStatus(await h.get(crontab(h.ns, 'a')), 404, 'NotFound');
  });

  it('propagationPolicy: the three policies are accepted, anything else is 422 Invalid, in the body or the query', async () => {
    for (const [i, policy] of ['Orphan', 'Background', 'Foreground'].entries()) {
      await h.createCronTab(`a${i}`);
      expect((await h.delete(crontab(h.ns, `a${i}`), { propagationPolicy: policy })).status).toBe(200);
    }
    await h.createCronTab('b');
    const body = await h.delete(crontab(h.ns, 'b'), { propagationPolicy: 'Sometimes' });
    const status = expectStatus(body, 422, 'Invalid');
    expect(status.message).toBe(
      'DeleteOptions.meta.svc.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    expect(status.details).toEqual({
      group: 'meta.svc.io',
      kind: 'DeleteOptions',
      causes: [
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"',
          field: 'propagationPolicy',
        },
      ],
    });
    expectStatus(await h.delete(`${crontab(h.ns, 'b')}?propagationPolicy=Sometimes`), 422, 'Invalid');
    expect((await h.read(crontab(h.ns, 'b'))).metadata.name).toBe('b');
    expect((await h.delete(`${crontab(h.ns, 'b')}?propagationPolicy=Foreground`)).status).toBe(200);
  });

  it('takes gracePeriodSeconds in the body or the query', async () => {
    await h.createCronTab('a');
    await h.createCronTab('b');
    expect((await h.delete(crontab(h.ns, 'a'), { gracePeriodSeconds: 0 })).status).toBe(200);
    expect((await h.delete(`${crontab(h.ns, 'b')}?gracePeriodSeconds=30`)).status).toBe(200);
    expect(names(await h.read(crontabs(h.ns)))).toEqual([]);
  });

  it('refuses a body that is not DeleteOptions (400) or not JSON (400)', async () => {
    await h.createCronTab('a');
    expectStatus(await h.delete(crontab(h.ns, 'a'), { kind: 'Pod' }), 400, 'BadRequest');
    const res = await h.http.delete(crontab(h.ns, 'a')).set('content-type', 'application/json').send('{"kind":');
    expectStatus(res, 400, 'BadRequest');
    expect((await h.read(crontab(h.ns, 'a'))).metadata.name).toBe('a');
  });
});

describe('deletecollection', () => {
  beforeEach(async () => {
    await h.createCronTab('a', { labels: { app: 'x' } });
    await h.createCronTab('b', { labels: { app: 'y' } });
    await h.createCronTab('c', { labels: { app: 'x' }, metadata: { finalizers: ['example.svc.io/hold'] } });
    await h.createCronTab('d');
  });

  it('deletes the objects a label selector matches and answers the list of them', async () => {
    const w = await h.watch(`${crontabs(h.ns)}${qs({ watch: 1, resourceVersion: await h.currentRv() })}`);
    const res = await h.delete(`${crontabs(h.ns)}${qs({ labelSelector: 'app=x' })}`);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('CronTabList');
    expect(names(res.body)).toEqual(['a', 'c']);
    expect(names(await h.read(crontabs(h.ns)))).toEqual(['b', 'c', 'd']);
    // c has a finalizer: it is only marked.
    expect((await h.read(crontab(h.ns, 'c'))).metadata.deletionTimestamp).toBe('2024-01-01T00:00:00Z');
    expect(summary(await w.take(2))).toEqual(['DELETED a', 'MODIFIED c']);
    w.close();
  });

  it('takes the other label operators and field selectors', async () => {
    expect(names((await h.delete(`${crontabs(h.ns)}${qs({ labelSelector: 'app notin (x),app' })}`)).body)).toEqual(['b']);
    expect(names((await h.delete(`${crontabs(h.ns)}${qs({ fieldSelector: 'metadata.name=d' })}`)).body)).toEqual(['d']);
    expect(names(await h.read(crontabs(h.ns)))).toEqual(['a', 'c']);
  });

  it('without a selector deletes the whole collection of the namespace, and only that', async () => {
    await h.createNamespace('other');
    await h.createCronTab('z', {}, 'other');
    const res = await h.delete(crontabs(h.ns));
    expect(names(res.body)).toEqual(['a', 'b', 'c', 'd']);
    expect(names(await h.read(crontabs(h.ns)))).toEqual(['c']);
    expect(names(await h.read(crontabs('other')))).toEqual(['z']);
  });

  it('is not offered on the all-namespaces path (405) nor on kinds without the verb (405)', async () => {
    expectStatus(await h.delete(`${CRONTABS}/crontabs`), 405, 'MethodNotAllowed');
    expect(names(await h.read(crontabs(h.ns)))).toEqual(['a', 'b', 'c', 'd']);
    expectStatus(await h.delete(NAMESPACES), 405, 'MethodNotAllowed');
  });

  it('rejects an unsupported field selector (400) before deleting anything', async () => {
    expectStatus(await h.delete(`${crontabs(h.ns)}${qs({ fieldSelector: 'spec.image=x' })}`), 400, 'BadRequest');
    expect(names(await h.read(crontabs(h.ns)))).toEqual(['a', 'b', 'c', 'd']);
  });
});
