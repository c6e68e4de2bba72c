import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, expectStatus, startServer } from './server.testing.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer({ createNamespace: false });
});
afterEach(() => h.close());

type Resource = {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  group?: string;
  version?: string;
  shortNames?: string[];
};

describe('discovery documents', () => {
  it('/api lists the core group version', async () => {
    const body = await h.read('/api');
    expect(body.kind).toBe('APIVersions');
    expect(body.versions).toEqual(['v1']);
  });

  it('/apis lists every named group with its versions, preferred first (GA before beta)', async () => {
    const body = await h.read('/apis');
    expect(body).toMatchObject({ kind: 'APIGroupList', apiVersion: 'v1' });
    const groups = body.groups as {
      name: string;
      versions: { groupVersion: string; version: string }[];
      preferredVersion: { version: string };
    }[];
    const names = groups.map((g) => g.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('stable.example.svc.io');
    expect(names).not.toContain('');
    const flow = groups.find((g) => g.name === 'flowcontrol.apiserver.svc.io')!;
    expect(flow.versions).toEqual([
      { groupVersion: 'flowcontrol.apiserver.svc.io/v1', version: 'v1' },
      { groupVersion: 'flowcontrol.apiserver.svc.io/v1beta3', version: 'v1beta3' },
    ]);
    expect(flow.preferredVersion).toEqual({ groupVersion: 'flowcontrol.apiserver.svc.io/v1', version: 'v1' });
  });

  it('/apis/<group> describes one group; an unknown group is 404', async () => {
    expect(await h.read('/apis/stable.example.svc.io')).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'stable.example.svc.io',
      versions: [{ groupVersion: 'stable.example.svc.io/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'stable.example.svc.io/v1', version: 'v1' },
    });
    expectStatus(await h.get('/apis/nope.svc.io'), 404, 'NotFound');
    expectStatus(await h.get('/apis/nope.svc.io/v1'), 404, 'NotFound');
  });

  it('/apis/<group>/<version> lists resources with scope, kind, verbs and subresources', async () => {
    const body = await h.read('/apis/stable.example.svc.io/v1');
    expect(body).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'stable.example.svc.io/v1',
      resources: [
        {
          name: 'crontabs',
          singularName: 'crontab',
          namespaced: true,
          kind: 'CronTab',
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
          shortNames: ['ct'],
          categories: ['all'],
        },
        { name: 'crontabs/status', singularName: '', namespaced: true, kind: 'CronTab', verbs: ['get', 'patch', 'update'] },
      ],
    });
  });

  it('/api/v1 lists the core resources: namespaces and nodes cluster-scoped, pods/eviction as policy/v1 Eviction', async () => {
    const body = await h.read('/api/v1');
    expect(body.groupVersion).toBe('v1');
    const byName = new Map((body.resources as Resource[]).map((r) => [r.name, r]));
    expect(byName.get('namespaces')).toMatchObject({ namespaced: false, kind: 'Namespace' });
    expect(byName.get('namespaces')!.verbs).not.toContain('deletecollection');
    expect(byName.get('nodes')).toMatchObject({ namespaced: false, kind: 'Node' });
    expect(byName.get('services')).toMatchObject({ namespaced: true, kind: 'Service' });
    expect(byName.get('namespaces/status')).toMatchObject({ kind: 'Namespace', verbs: ['get', 'patch', 'update'] });
    expect(byName.get('namespaces/finalize')).toMatchObject({ kind: 'Namespace', verbs: ['update'] });
    expect(byName.get('pods/eviction')).toMatchObject({ group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
  });

  it('/api/v1 lists serviceaccounts/token as its declared authentication/v1 TokenRequest, which it creates', async () => {
    const byName = new Map(((await h.read('/api/v1')).resources as Resource[]).map((r) => [r.name, r]));
    expect(byName.get('serviceaccounts/token')).toEqual({
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.svc.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
    expect(byName.get('pods/binding')).toMatchObject({ kind: 'Binding', verbs: ['create'] });
    expect(byName.get('pods/binding')!.group).toBeUndefined();
    expect(byName.get('pods/exec')).toMatchObject({ kind: 'PodExecOptions', verbs: ['create', 'get'] });
    expect(byName.get('pods/ephemeralcontainers')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
  });

  it('lists the built-in workloads scale subresource as autoscaling/v1 Scale', async () => {
    const apps = new Map(((await h.read('/apis/apps/v1')).resources as Resource[]).map((r) => [r.name, r]));
    for (const name of ['deployments/scale', 'replicasets/scale', 'statefulsets/scale']) {
      expect(apps.get(name), name).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    }
  });

  it('/version answers the release', async () => {
    expect(await h.read('/version')).toMatchObject({ major: '1', minor: '30' });
  });

  it.each(['/healthz', '/livez', '/readyz'])('%s answers 200', async (path) => {
    expect((await h.get(path)).status).toBe(200);
  });

  // server.ts sends the health checks through sendJson: `"ok"` as application/json. Upstream
  // answers the plain text `ok` (text/plain). Reported; server.ts is not edited here.
  it('/healthz answers the plain text ok', async () => {
    const res = await h.get('/healthz').buffer(true);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe('ok');
  });

  it('discovery documents are read with GET (405 otherwise)', async () => {
    expectStatus(await h.http.post('/apis').send('{}'), 405, 'MethodNotAllowed');
  });
});

describe('/version', () => {
  it('follows the configured release', async () => {
    const older = await startServer({ createNamespace: false, server: { release: '1.29' } });
    try {
      expect(await older.read('/version')).toMatchObject({ major: '1', minor: '29', gitVersion: 'v1.29.0-svckit' });
    } finally {
      await older.close();
    }
  });
});
