/**
 * Pod eviction honours PodDisruptionBudgets as upstream's EvictionREST: a running pod covered by a
 * budget is evicted only while the budget allows a disruption, which the eviction then spends
 * (disruptionsAllowed one less, the pod in disruptedPods); pending pods ignore budgets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, type Json, expectStatus, startServer } from '../../runtime/server/server.testing.js';

const NS = 'test';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const PDBS = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;
let h: Harness;

const evict = (name: string, query = '') =>
  h.post(`${PODS}/${name}/eviction${query}`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: NS } });

/** A pod a kubelet would report Running and Ready (there is none: its status is written directly). */
async function runningPod(name: string, app: string, ready = true): Promise<void> {
  const created = await h.create(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app } },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  });
  expect(created.status.phase).toBe('Pending');
  const status = { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] };
  const res = await h.patch(`${PODS}/${name}/status`, { status });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A budget over `app`, with the status its controller would write unless `status` is null. */
async function budget(name: string, app: string, status: Json | null): Promise<void> {
  await h.create(PDBS, {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name },
    spec: { minAvailable: 1, selector: { matchLabels: { app } } },
  });
  if (status === null) return;
  const res = await h.patch(`${PDBS}/${name}/status`, { status: { observedGeneration: 1, expectedPods: 2, ...status } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  h = await startServer();
});
afterAll(() => h.close());

describe('eviction and disruption budgets', () => {
  it('refuses while the budget allows no disruption, naming what it needs', async () => {
    await runningPod('full-0', 'full');
    await budget('full', 'full', { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    const res = await evict('full-0');
    expectStatus(res, 429, 'TooManyRequests');
    expect(res.body.message).toBe("Cannot evict pod as it would violate the pod's disruption budget.");
    expect(res.body.details).toEqual({
      causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget full needs 2 healthy pods and has 2 currently' }],
    });
    expect((await h.get(`${PODS}/full-0`)).status).toBe(200);
  });

  it('refuses while the budget has no status for its generation yet, asking to retry in 10 seconds', async () => {
    await runningPod('new-0', 'new');
    await budget('new', 'new', null);
    const res = await evict('new-0');
    expectStatus(res, 429, 'TooManyRequests');
    expect(res.body.details).toEqual({
      retryAfterSeconds: 10,
      causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget new is still being processed by the server.' }],
    });
  });

  it('spends one allowed disruption, recording the pod, then deletes it', async () => {
    await runningPod('spend-0', 'spend');
    await budget('spend', 'spend', { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1 });
    const dry = await evict('spend-0', '?dryRun=All');
    expect(dry.status, JSON.stringify(dry.body)).toBe(201);
    expect((await h.get(`${PDBS}/spend`)).body.status.disruptionsAllowed).toBe(1);
    const res = await evict('spend-0');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await h.get(`${PODS}/spend-0`)).status).toBe(404);
    const after = (await h.get(`${PDBS}/spend`)).body.status;
    expect(after.disruptionsAllowed).toBe(0);
    expect(Object.keys(after.disruptedPods)).toEqual(['spend-0']);
    expect(after.conditions).toMatchObject([
      { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', observedGeneration: 1 },
    ]);
  });

  it('is a 500 when two budgets cover the pod', async () => {
    await runningPod('twice-0', 'twice');
    await budget('twice-a', 'twice', { disruptionsAllowed: 1 });
    await budget('twice-b', 'twice', { disruptionsAllowed: 1 });
    const res = await evict('twice-0');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 500,
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    });
  });

  it('evicts a pending pod, and an unready one while the budget is met, without spending the budget', async () => {
    await h.create(PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pending-0', labels: { app: 'full' } },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    expect((await evict('pending-0')).status).toBe(201);
    await runningPod('unready-0', 'met', false);
    await budget('met', 'met', { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    expect((await evict('unready-0')).status).toBe(201);
    expect((await h.get(`${PDBS}/met`)).body.status.disruptedPods).toBeUndefined();
  });
});

describe('the Eviction body, checked as the subresource declared kind', () => {
  it('refuses another kind, and a field of the wrong type as undecodable, before anything is deleted', async () => {
    await runningPod('checked', 'checked');
    const other = await h.post(`${PODS}/checked/eviction`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'checked' } });
    expect(other.status).toBe(400);
    expect(other.body.message).toBe('expected an Eviction body, found kind "Pod"');
    const typed = await h.post(`${PODS}/checked/eviction`, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'checked' },
      deleteOptions: { gracePeriodSeconds: 'soon' },
    });
    expect(typed.status).toBe(400);
    expect(typed.body.message).toMatch(/^Eviction in version "v1" cannot be handled as a Eviction: deleteOptions\.gracePeriodSeconds/);
    expect((await h.get(`${PODS}/checked`)).status).toBe(200);
  });
});
