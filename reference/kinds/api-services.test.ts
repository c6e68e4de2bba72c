/**
 * apiregistration/v1 APIService over HTTP: the aggregation layer's registry, cluster-scoped with a
 * status subresource; a second create of the same name is a 409 (the Python client's
 * create_from_yaml conflict case), and the name must be `<version>.<group>`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, expectStatus, startServer } from '../../runtime/server/server.testing.js';

const API_SERVICES = '/apis/apiregistration.svc.io/v1/apiservices';
let h: Harness;

const apiService = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'apiregistration.svc.io/v1',
  kind: 'APIService',
  metadata: { name },
  spec,
});
const remote = {
  group: 'metrics.example.com',
  version: 'v1beta1',
  service: { namespace: 'kube-system', name: 'metrics' },
  groupPriorityMinimum: 100,
  versionPriority: 100,
  insecureSkipTLSVerify: true,
};

beforeAll(async () => {
  h = await startServer();
});
afterAll(() => h.close());

describe('APIService', () => {
  it('is created once: a second create of the same name is a 409', async () => {
    const first = await h.post(API_SERVICES, apiService('v1beta1.metrics.example.com', remote));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.spec.service).toEqual({ namespace: 'kube-system', name: 'metrics', port: 443 });
    expect(first.body.metadata.namespace).toBeUndefined();
    expectStatus(await h.post(API_SERVICES, apiService('v1beta1.metrics.example.com', remote)), 409, 'AlreadyExists');
  });

  it('writes its status through the status subresource only', async () => {
    const path = `${API_SERVICES}/v1beta1.metrics.example.com`;
    const current = (await h.get(path)).body;
    const conditions = [{ type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck' }];
    const res = await h.put(`${path}/status`, { ...current, status: { conditions } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status.conditions).toMatchObject(conditions);
  });

  it('refuses a name other than <version>.<group>', async () => {
    const res = await h.post(API_SERVICES, apiService('metrics', remote));
    expectStatus(res, 422, 'Invalid');
    expect(res.body.message).toContain('must be `spec.version+"."+spec.group`: "v1beta1.metrics.example.com"');
  });

  it('refuses a local APIService with a CA bundle', async () => {
    const { service: _, insecureSkipTLSVerify: __, ...local } = remote;
    const res = await h.post(API_SERVICES, apiService('v1beta1.metrics.example.com', { ...local, service: null, caBundle: 'Zm9v' }));
    expectStatus(res, 422, 'Invalid');
    expect(res.body.message).toContain('local APIServices may not have a caBundle');
  });
});
