/**
 * What a fresh cluster holds (issue 23): the system namespaces beside `default`, and the
 * `default/kubernetes` Service with its Endpoints and EndpointSlice pointing at the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from './reference-server.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function get(path: string): Promise<any> {
  const res = await fetch(`${server!.url}${path}`);
  expect(res.status, path).toBe(200);
  return res.json();
}

describe('the reference server at start', () => {
  it('has default, kube-system, kube-public and kube-node-lease, each labelled with its name', async () => {
    server = await startReferenceServer({ store: 'memory', port: 0 });
    const list = await get('/api/v1/namespaces');
    const names = list.items.map((n: any) => n.metadata.name).sort();
    expect(names).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    for (const ns of list.items) expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': ns.metadata.name });
  });

  it('serves default/kubernetes at the first address of the range, port 443 to the server', async () => {
    server = await startReferenceServer({ store: 'memory', port: 0 });
    const port = Number(new URL(server.url).port);
    const svc = await get('/api/v1/namespaces/default/services/kubernetes');
    expect(svc.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
    expect(svc.spec).toMatchObject({
      clusterIP: '10.96.0.1',
      clusterIPs: ['10.96.0.1'],
      type: 'ClusterIP',
      ipFamilies: ['IPv4'],
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }],
    });
    const endpoints = await get('/api/v1/namespaces/default/endpoints/kubernetes');
    expect(endpoints.subsets).toEqual([{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port, protocol: 'TCP' }] }]);
    const slice = await get('/apis/discovery.svc.io/v1/namespaces/default/endpointslices/kubernetes');
    expect(slice).toMatchObject({
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
      ports: [{ name: 'https', port, protocol: 'TCP' }],
      metadata: { labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    });
  });

  it('takes cluster IPs from --service-cluster-ip-range', async () => {
    server = await startReferenceServer({ store: 'memory', port: 0, serviceClusterIPRange: '10.0.0.0/24' });
    const svc = await get('/api/v1/namespaces/default/services/kubernetes');
    expect(svc.spec.clusterIP).toBe('10.0.0.1');
    const res = await fetch(`${server.url}/api/v1/namespaces/default/services`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } }),
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as any).spec.clusterIP).toMatch(/^10\.0\.0\.(\d+)$/);
  });
});

describe('the local APIServices at start', () => {
  it('registers one per served group/version, local and available, with upstream priorities', async () => {
    server = await startReferenceServer({ store: 'memory', port: 0, groupSuffix: 'k8s.io' });
    const list = await get('/apis/apiregistration.k8s.io/v1/apiservices');
    const byName = new Map(list.items.map((s: any) => [s.metadata.name, s]));
    expect(byName.get('v1.')).toMatchObject({
      metadata: { labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
      spec: { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 },
      status: { conditions: [{ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' }] },
    });
    expect((byName.get('v1.') as any).spec.service).toBeNull(); // upstream's `service` has no omitempty
    expect(byName.get('v1.apps')).toMatchObject({
      spec: { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 },
    });
    expect(byName.get('v1.rbac.authorization.k8s.io')).toMatchObject({ spec: { groupPriorityMinimum: 17000, versionPriority: 15 } });
    expect(byName.get('v2.autoscaling')).toMatchObject({ spec: { groupPriorityMinimum: 17500, versionPriority: 30 } });
  });

  it('names the groups as the server serves them', async () => {
    server = await startReferenceServer({ store: 'memory', port: 0 });
    const svc = await get('/apis/apiregistration.svc.io/v1/apiservices/v1.coordination.svc.io');
    expect(svc.spec).toMatchObject({ group: 'coordination.svc.io', groupPriorityMinimum: 16500 });
  });
});

describe('the local APIServices at a restart', () => {
  it('rewrites a changed spec and keeps the condition and what is already as wanted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-apiservices-'));
    try {
      const store = `sqlite:${join(dir, 'data.db')}`;
      server = await startReferenceServer({ store, port: 0 });
      const path = '/apis/apiregistration.svc.io/v1/apiservices';
      const res = await fetch(`${server.url}${path}/v1.apps`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ spec: { versionPriority: 99 } }),
      });
      expect(res.status).toBe(200);
      const before = new Map((await get(path)).items.map((s: any) => [s.metadata.name, s]));
      await server.close();
      server = await startReferenceServer({ store, port: 0 });
      const after = new Map((await get(path)).items.map((s: any) => [s.metadata.name, s]));
      const apps = after.get('v1.apps') as any;
      expect(apps.spec.versionPriority).toBe(15);
      expect(apps.metadata.uid).toBe((before.get('v1.apps') as any).metadata.uid);
      expect(apps.status).toEqual((before.get('v1.apps') as any).status);
      // Untouched ones are not written again.
      expect((after.get('v1.') as any).metadata.resourceVersion).toBe((before.get('v1.') as any).metadata.resourceVersion);
    } finally {
      await server?.close();
      server = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
