import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, type Json, NAMESPACES, crontabs, expectStatus, startServer } from './server.testing.js';

/** Behaviour where the spec says "not shown" and the server follows the real system. */
describe('upstream parity', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startServer();
  });
  afterEach(() => h.close());

  it('a new namespace is Active and carries the server finalizer in its spec', async () => {
    const ns = await h.createNamespace('fresh');
    expect(ns.status).toEqual({ phase: 'Active' });
    expect(ns.spec.finalizers).toEqual(['kubernetes']);
  });

  it('a second delete of a terminating namespace is 409, and a foreign spec finalizer holds it until /finalize', async () => {
    await h.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'held' },
      spec: { finalizers: ['example.com/hold'] },
    });
    expect((await h.delete(`${NAMESPACES}/held`)).status).toBe(200);
    expectStatus(await h.delete(`${NAMESPACES}/held`), 409, 'Conflict');
    await h.server.context.hooks.idle();
    const held: Json = await h.read(`${NAMESPACES}/held`);
    expect(held.spec.finalizers).toEqual(['example.com/hold']);
    expect(held.status.phase).toBe('Terminating');
    const finalize = await h.put(`${NAMESPACES}/held/finalize`, { ...held, spec: { finalizers: [] } });
    expect(finalize.status).toBe(200);
    h.server.context.hooks.namespaceChanged('held');
    await h.server.context.hooks.idle();
    expectStatus(await h.get(`${NAMESPACES}/held`), 404, 'NotFound');
  });

  it('a built-in kind updates without a resourceVersion (unconditionally); a custom resource does not', async () => {
    const path = `/api/v1/namespaces/${h.ns}/configmaps`;
    await h.create(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u' }, data: { a: '1' } });
    const res = await h.put(`${path}/u`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u' }, data: { a: '2' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ a: '2' });
  });

  it('orphanDependents with a propagationPolicy is 422; a negative grace period is accepted', async () => {
    await h.createCronTab('a');
    await h.createCronTab('b');
    const both = await h.delete(`${crontabs(h.ns)}/a`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      orphanDependents: true,
      propagationPolicy: 'Background',
    });
    expectStatus(both, 422, 'Invalid');
    expect((await h.delete(`${crontabs(h.ns)}/b?gracePeriodSeconds=-5`)).status).toBe(200);
  });

  it('a bad includeObject on a Table request is 400', async () => {
    const res = await h.get(`${crontabs(h.ns)}?includeObject=Bogus`).set('accept', 'application/json;as=Table;g=meta.svc.io;v=v1');
    expectStatus(res, 400, 'BadRequest');
  });
});
