/**
 * `kubectl get componentstatuses` on a server with no controller-manager and no scheduler: both
 * Unhealthy with the connection error of their /healthz, the storage as etcd-0 Healthy; read-only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startServer } from '../../runtime/server/server.testing.js';

const STATUSES = '/api/v1/componentstatuses';
let h: Harness;

beforeAll(async () => {
  h = await startServer();
});
afterAll(() => h.close());

describe('ComponentStatus', () => {
  it('lists the controller-manager and scheduler unreachable and the storage healthy', async () => {
    const res = await h.get(STATUSES);
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.items.map((c: any) => [c.metadata.name, c.conditions]));
    expect(byName).toEqual({
      'controller-manager': [
        {
          type: 'Healthy',
          status: 'False',
          message: 'Get "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused',
        },
      ],
      'etcd-0': [{ type: 'Healthy', status: 'True', message: 'ok' }],
      scheduler: [
        {
          type: 'Healthy',
          status: 'False',
          message: 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused',
        },
      ],
    });
    expect((await h.get(`${STATUSES}/etcd-0`)).body).toMatchObject({ apiVersion: 'v1', kind: 'ComponentStatus' });
  });

  it('warns of its deprecation on every request, as upstream (v1 ComponentStatus is deprecated in v1.19+)', async () => {
    for (const path of [STATUSES, `${STATUSES}/etcd-0`]) {
      expect((await h.get(path)).headers.warning).toBe('299 - "v1 ComponentStatus is deprecated in v1.19+"');
    }
    // Only the deprecated kind of core/v1 warns.
    expect((await h.get('/api/v1/namespaces')).headers.warning).toBeUndefined();
  });

  it('is read-only', async () => {
    const created = await h.post(STATUSES, { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'mine' } });
    expect(created.status).toBe(405);
    expect((await h.delete(`${STATUSES}/etcd-0`)).status).toBe(405);
  });
});
