/**
 * The response shapes that official clients (kubectl, client-go, the Python, Ruby and JavaScript
 * clients) read from every real server, served as a 1.30 kube-apiserver serves them, under
 * `--group-suffix k8s.io` as those clients are used: 404 details, success Statuses, the newline
 * after each JSON body, singular names and categories, and CRDs written without type meta.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from './reference-server.js';
import { KUBECTL, runKubectl } from './kubectl.testing.js';
import { startTestServer } from './testing/index.js';

let server: RunningServer;
/** The server's clock: Table ages are read against it. */
let nowMs = Date.UTC(2024, 0, 1);

beforeAll(async () => {
  server = await startReferenceServer({ store: 'memory', port: 0, groupSuffix: 'k8s.io', now: () => new Date(nowMs) });
});
afterAll(() => server?.close());

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
}

describe('404 Statuses', () => {
  it('name the object a missing object was asked for; the core group is not written', async () => {
    const res = await call('GET', '/api/v1/namespaces/default/configmaps/missing');
    expect(res.status).toBe(404);
    expect(res.body.details).toEqual({ name: 'missing', kind: 'configmaps' });
    const apps = await call('GET', '/apis/apps/v1/namespaces/default/deployments/missing');
    expect(apps.body.details).toEqual({ name: 'missing', group: 'apps', kind: 'deployments' });
  });

  it.each([
    ['an unknown resource', '/api/v1/namespaces/default/podz'],
    ['an unknown subresource', '/api/v1/namespaces/default/pods/x/nosuchsubresource'],
    ['an unknown subresource of a group', '/apis/apps/v1/namespaces/default/deployments/x/rollback'],
    ['an unknown group version', '/apis/nope.example.io/v1'],
  ])('carry empty details for %s, as upstream answers an unmatched route', async (_what, path) => {
    const res = await call('GET', path);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404, details: {} });
    expect(res.body.details).toEqual({});
  });
});

describe('bodies', () => {
  it('end with a newline, as upstream encoder writes one: objects, lists, errors and Tables', async () => {
    const table = await fetch(`${server.url}/api/v1/namespaces`, {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    for (const text of [
      (await call('GET', '/api/v1/namespaces/default')).text,
      (await call('GET', '/api/v1/namespaces')).text,
      (await call('GET', '/api/v1/namespaces/default/configmaps/missing')).text,
      await table.text(),
    ]) {
      expect(text.endsWith('}\n')).toBe(true);
      expect(text.indexOf('\n')).toBe(text.length - 1);
    }
  });

  it('a delete that removes a core object at once answers a Status without an empty group', async () => {
    expect((await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'gone' } })).status).toBe(201);
    const res = await call('DELETE', '/api/v1/namespaces/default/configmaps/gone');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success' });
    expect(Object.keys(res.body.details).sort()).toEqual(['kind', 'name', 'uid']);
  });
});

/** Every resource (not subresource) of every served group version. */
async function discovered(): Promise<{ groupVersion: string; name: string; kind: string; singularName: string; categories?: string[] }[]> {
  const out = [];
  const core = (await call('GET', '/api/v1')).body;
  const groups = (await call('GET', '/apis')).body.groups as { preferredVersion: { groupVersion: string } }[];
  const lists = [
    core,
    ...(await Promise.all(groups.map(async (g) => (await call('GET', `/apis/${g.preferredVersion.groupVersion}`)).body))),
  ];
  for (const list of lists) for (const r of list.resources) if (!r.name.includes('/')) out.push({ groupVersion: list.groupVersion, ...r });
  return out;
}

describe('discovery', () => {
  it("names each resource's singular as upstream: its kind, lowercased (priorityclass)", async () => {
    const resources = await discovered();
    expect(resources.find((r) => r.name === 'priorityclasses')?.singularName).toBe('priorityclass');
    for (const r of resources) expect(`${r.groupVersion} ${r.singularName}`).toBe(`${r.groupVersion} ${r.kind.toLowerCase()}`);
  });

  it('puts in `all` and `api-extensions` what a 1.30 server puts there', async () => {
    const resources = await discovered();
    const inCategory = (c: string) =>
      resources
        .filter((r) => r.categories?.includes(c))
        .map((r) => r.name)
        .sort();
    expect(inCategory('all')).toEqual(
      [
        'pods',
        'services',
        'replicationcontrollers',
        'deployments',
        'replicasets',
        'statefulsets',
        'daemonsets',
        'jobs',
        'cronjobs',
        'horizontalpodautoscalers',
        // The kit's example custom resource declares `all` too.
        'crontabs',
      ].sort(),
    );
    expect(inCategory('api-extensions')).toEqual(
      [
        'customresourcedefinitions',
        'mutatingwebhookconfigurations',
        'validatingwebhookconfigurations',
        'validatingadmissionpolicies',
        'validatingadmissionpolicybindings',
      ].sort(),
    );
  });
});

describe('a CustomResourceDefinition', () => {
  const crd = {
    metadata: { name: 'gadgets.shapes.example.io' },
    spec: {
      group: 'shapes.example.io',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
  };

  it('posted without apiVersion and kind takes them from the URL, with the cleanup finalizer of the served group', async () => {
    const res = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' });
    expect(res.body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
  });

  it('with another kind is refused without naming any file of the server', async () => {
    const res = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      ...crd,
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'Gadget',
      metadata: { name: 'others.shapes.example.io' },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('the kind in the data (Gadget) does not match the expected kind (CustomResourceDefinition)');
    expect(res.text).not.toMatch(/\.yaml|\/definitions\/|\.cache/);
  });
});

const NS = '/api/v1/namespaces/default';

/** A minimal valid object of each kind the delete and PUT tests write. */
const OBJECTS: Record<string, { path: string; body: Record<string, unknown> }> = {
  pods: { path: `${NS}/pods`, body: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  services: { path: `${NS}/services`, body: { spec: { ports: [{ port: 80 }] } } },
  serviceaccounts: { path: `${NS}/serviceaccounts`, body: {} },
  persistentvolumes: {
    path: '/api/v1/persistentvolumes',
    body: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } } },
  },
  persistentvolumeclaims: {
    path: `${NS}/persistentvolumeclaims`,
    body: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  },
  resourcequotas: { path: `${NS}/resourcequotas`, body: { spec: { hard: { pods: '3' } } } },
  storageclasses: { path: '/apis/storage.k8s.io/v1/storageclasses', body: { provisioner: 'example.io/none' } },
  configmaps: { path: `${NS}/configmaps`, body: { data: { a: 'b' } } },
  secrets: { path: `${NS}/secrets`, body: {} },
  endpoints: { path: `${NS}/endpoints`, body: {} },
  limitranges: { path: `${NS}/limitranges`, body: { spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } } },
  events: { path: `${NS}/events`, body: { involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' } } },
  leases: { path: '/apis/coordination.k8s.io/v1/namespaces/default/leases', body: {} },
  roles: { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', body: {} },
  rolebindings: {
    path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
    body: { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' } },
  },
  clusterroles: { path: '/apis/rbac.authorization.k8s.io/v1/clusterroles', body: {} },
  clusterrolebindings: {
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    body: { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' } },
  },
  priorityclasses: { path: '/apis/scheduling.k8s.io/v1/priorityclasses', body: { value: 10 } },
  deployments: {
    path: '/apis/apps/v1/namespaces/default/deployments',
    body: {
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    },
  },
};

describe('DELETE', () => {
  it.each(['pods', 'services', 'serviceaccounts', 'persistentvolumes', 'persistentvolumeclaims', 'resourcequotas', 'storageclasses'])(
    'of %s answers the deleted object, as upstream registry (ReturnDeletedObject)',
    async (kind) => {
      const { path, body } = OBJECTS[kind]!;
      const name = `del-${kind}`;
      const made = await call('POST', path, { ...body, metadata: { name } });
      expect(made.status, made.text).toBe(201);
      const res = await call('DELETE', `${path}/${name}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.kind).not.toBe('Status');
      expect(res.body.metadata).toMatchObject({ name, uid: made.body.metadata.uid });
      expect((await call('GET', `${path}/${name}`)).status).toBe(404);
    },
  );

  it.each(['configmaps', 'secrets', 'deployments', 'roles'])('of %s answers a success Status', async (kind) => {
    const { path, body } = OBJECTS[kind]!;
    const name = `del-${kind}`;
    expect((await call('POST', path, { ...body, metadata: { name } })).status).toBe(201);
    const res = await call('DELETE', `${path}/${name}`);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name } });
  });
});

describe('PUT of a missing object', () => {
  it.each([
    'services',
    'serviceaccounts',
    'endpoints',
    'limitranges',
    'events',
    'leases',
    'roles',
    'rolebindings',
    'clusterroles',
    'clusterrolebindings',
  ])('creates it for %s (201), as upstream strategy (AllowCreateOnUpdate), a resourceVersion in the body ignored', async (kind) => {
    const { path, body } = OBJECTS[kind]!;
    const name = `put-${kind}`;
    const res = await call('PUT', `${path}/${name}`, { ...body, metadata: { name, resourceVersion: '12345' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.metadata.name).toBe(name);
    expect(res.body.metadata.resourceVersion).not.toBe('12345');
    expect((await call('GET', `${path}/${name}`)).status).toBe(200);
  });

  it.each(['configmaps', 'secrets', 'priorityclasses', 'deployments', 'pods'])('is 404 for %s', async (kind) => {
    const { path, body } = OBJECTS[kind]!;
    const res = await call('PUT', `${path}/put-${kind}`, { ...body, metadata: { name: `put-${kind}` } });
    expect(res.status).toBe(404);
    expect(res.body.details).toMatchObject({ name: `put-${kind}` });
  });
});

describe('PUT that creates, under RBAC', () => {
  it('needs `create` as well as `update`, as upstream update handler asks', async () => {
    const rbac = await startTestServer({ users: { erin: [] } });
    try {
      const group = 'rbac.authorization.svc.io';
      const binding = (role: string) => ({
        apiVersion: `${group}/v1`,
        kind: 'RoleBinding',
        metadata: { name: `erin-${role}` },
        roleRef: { apiGroup: group, kind: 'Role', name: role },
        subjects: [{ kind: 'User', apiGroup: group, name: 'erin' }],
      });
      const role = (name: string, verbs: string[]) => ({
        apiVersion: `${group}/v1`,
        kind: 'Role',
        metadata: { name },
        rules: [{ apiGroups: [''], resources: ['serviceaccounts'], verbs }],
      });
      await rbac.install([role('updater', ['update', 'get']), binding('updater')]);
      const put = (name: string) =>
        fetch(`${rbac.url}/api/v1/namespaces/default/serviceaccounts/${name}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${rbac.token('erin')}`, 'content-type': 'application/json' },
          body: JSON.stringify({ metadata: { name } }),
        });
      const refused = await put('sa-one');
      expect(refused.status).toBe(403);
      // Upstream's words, nothing appended: RBAC gives no reason for a plain no-match.
      expect(((await refused.json()) as { message: string }).message).toBe(
        'serviceaccounts "sa-one" is forbidden: User "erin" cannot create resource "serviceaccounts" in API group "" in the namespace "default"',
      );
      const review = await fetch(`${rbac.url}/apis/authorization.svc.io/v1/selfsubjectaccessreviews`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rbac.token('erin')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ spec: { resourceAttributes: { namespace: 'default', verb: 'delete', resource: 'pods' } } }),
      });
      expect(((await review.json()) as { status: unknown }).status).toEqual({ allowed: false });
      await rbac.install([role('creator', ['create']), binding('creator')]);
      expect((await put('sa-one')).status).toBe(201);
    } finally {
      await rbac.close();
    }
  });
});

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

/** The Table of a list (or one object): column names with their priorities, and each row's cells. */
async function table(path: string): Promise<{ columns: string[]; rows: unknown[][] }> {
  const res = await fetch(`${server.url}${path}?includeObject=None`, { headers: { accept: TABLE } });
  const t = (await res.json()) as { columnDefinitions: { name: string; priority: number }[]; rows: { cells: unknown[] }[] };
  return { columns: t.columnDefinitions.map((c) => `${c.name}${c.priority ? ' (wide)' : ''}`), rows: t.rows.map((r) => r.cells) };
}

describe('Tables, as upstream printers.go', () => {
  const ns = '/api/v1/namespaces/printing';
  beforeAll(async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'printing' } });
  });

  it('ConfigMap: the DATA count, and ages as kubectl shows them (3m2s, 2d3h)', async () => {
    await call('POST', `${ns}/configmaps`, { metadata: { name: 'cm' }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } });
    expect(await table(`${ns}/configmaps/cm`)).toEqual({ columns: ['Name', 'Data', 'Age'], rows: [['cm', 3, '0s']] });
    nowMs += (3 * 60 + 2) * 1000;
    expect((await table(`${ns}/configmaps/cm`)).rows[0]![2]).toBe('3m2s');
    nowMs += (2 * 24 + 3) * 3600 * 1000 - (3 * 60 + 2) * 1000;
    expect((await table(`${ns}/configmaps/cm`)).rows[0]![2]).toBe('2d3h');
  });

  it('Pod: READY, STATUS, RESTARTS and the wide columns, for a Pending pod no node took and a running one that restarted', async () => {
    const columns = [
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
      'IP (wide)',
      'Node (wide)',
      'Nominated Node (wide)',
      'Readiness Gates (wide)',
    ];
    const pod = (name: string, spec: Record<string, unknown> = {}) => ({
      metadata: { name },
      spec: {
        containers: [
          { name: 'a', image: 'nginx' },
          { name: 'b', image: 'nginx' },
        ],
        ...spec,
      },
    });
    await call('POST', `${ns}/pods`, pod('pending'));
    const pending = await call('GET', `${ns}/pods/pending`);
    await call('PUT', `${ns}/pods/pending/status`, {
      ...pending.body,
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
    });
    expect(await table(`${ns}/pods/pending`)).toEqual({
      columns,
      rows: [['pending', '0/2', 'Pending', '0', '0s', '<none>', '<none>', '<none>', '<none>']],
    });

    await call('POST', `${ns}/pods`, pod('running', { nodeName: 'node-1' }));
    const running = await call('GET', `${ns}/pods/running`);
    const fiveMinutesAgo = new Date(nowMs - 5 * 60 * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const put = await call('PUT', `${ns}/pods/running/status`, {
      ...running.body,
      status: {
        phase: 'Running',
        podIP: '10.0.0.5',
        podIPs: [{ ip: '10.0.0.5' }],
        containerStatuses: [
          {
            name: 'a',
            image: 'nginx',
            imageID: '',
            ready: true,
            restartCount: 2,
            state: { running: {} },
            lastState: { terminated: { exitCode: 1, finishedAt: fiveMinutesAgo } },
          },
          { name: 'b', image: 'nginx', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    });
    expect(put.status, put.text).toBe(200);
    expect((await table(`${ns}/pods/running`)).rows).toEqual([
      ['running', '1/2', 'CrashLoopBackOff', '2 (5m ago)', '0s', '10.0.0.5', 'node-1', '<none>', '<none>'],
    ]);
  });

  it('Service: TYPE, CLUSTER-IP, EXTERNAL-IP, PORT(S) and the wide SELECTOR', async () => {
    await call('POST', `${ns}/services`, {
      metadata: { name: 'web' },
      spec: { selector: { app: 'web', tier: 'front' }, ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] },
    });
    const svc = (await call('GET', `${ns}/services/web`)).body;
    expect(await table(`${ns}/services/web`)).toEqual({
      columns: ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector (wide)'],
      rows: [['web', 'ClusterIP', svc.spec.clusterIPs?.[0] ?? '<none>', '<none>', '80/TCP,53/UDP', '0s', 'app=web,tier=front']],
    });
  });

  it('Deployment, Job, CronJob, Namespace and Secret columns', async () => {
    const template = {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'a', image: 'nginx' }], restartPolicy: 'Never' },
    };
    await call('POST', '/apis/apps/v1/namespaces/printing/deployments', {
      metadata: { name: 'd' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { ...template, spec: { containers: template.spec.containers } },
      },
    });
    expect(await table('/apis/apps/v1/namespaces/printing/deployments/d')).toEqual({
      columns: ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers (wide)', 'Images (wide)', 'Selector (wide)'],
      rows: [['d', '0/1', 0, 0, '0s', 'a', 'nginx', 'app=web']],
    });
    await call('POST', '/apis/batch/v1/namespaces/printing/cronjobs', {
      metadata: { name: 'cj' },
      spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template } } },
    });
    const cj = await table('/apis/batch/v1/namespaces/printing/cronjobs/cj');
    expect(cj.columns).toEqual([
      'Name',
      'Schedule',
      'Timezone',
      'Suspend',
      'Active',
      'Last Schedule',
      'Age',
      'Containers (wide)',
      'Images (wide)',
      'Selector (wide)',
    ]);
    expect(cj.rows[0]!.slice(0, 7)).toEqual(['cj', '*/5 * * * *', '<none>', 'False', 0, '<none>', '0s']);
    const job = await call('POST', '/apis/batch/v1/namespaces/printing/jobs', {
      metadata: { name: 'j' },
      spec: { completions: 3, template },
    });
    expect(job.status, job.text).toBe(201);
    const jobs = await table('/apis/batch/v1/namespaces/printing/jobs/j');
    expect(jobs.columns.slice(0, 4)).toEqual(['Name', 'Completions', 'Duration', 'Age']);
    expect(jobs.rows[0]!.slice(0, 6)).toEqual(['j', '0/3', '', '0s', 'a', 'nginx']);
    expect((await table('/api/v1/namespaces/printing')).rows).toEqual([['printing', 'Active', expect.any(String)]]);
    await call('POST', `${ns}/secrets`, { metadata: { name: 's' }, type: 'Opaque', data: { a: 'AA==' } });
    expect(await table(`${ns}/secrets/s`)).toEqual({ columns: ['Name', 'Type', 'Data', 'Age'], rows: [['s', 'Opaque', 1, '0s']] });
  });

  it('RoleBinding, ClusterRoleBinding, Lease and StorageClass columns', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    const subjects = [
      { kind: 'User', name: 'ann' },
      { kind: 'User', name: 'bob' },
      { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'printing' },
    ];
    const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
    expect((await call('POST', `${rbac}/namespaces/printing/rolebindings`, { metadata: { name: 'rb' }, roleRef, subjects })).status).toBe(
      201,
    );
    const wide = ['Users (wide)', 'Groups (wide)', 'ServiceAccounts (wide)'];
    expect(await table(`${rbac}/namespaces/printing/rolebindings/rb`)).toEqual({
      columns: ['Name', 'Role', 'Age', ...wide],
      rows: [['rb', 'ClusterRole/view', '0s', 'ann, bob', 'devs', 'printing/builder']],
    });
    await call('POST', `${rbac}/clusterrolebindings`, { metadata: { name: 'crb-printing' }, roleRef, subjects: [] });
    expect(await table(`${rbac}/clusterrolebindings/crb-printing`)).toEqual({
      columns: ['Name', 'Role', 'Age', ...wide],
      rows: [['crb-printing', 'ClusterRole/view', '0s', '', '', '']],
    });
    await call('POST', '/apis/coordination.k8s.io/v1/namespaces/printing/leases', {
      metadata: { name: 'l' },
      spec: { holderIdentity: 'me' },
    });
    expect(await table('/apis/coordination.k8s.io/v1/namespaces/printing/leases/l')).toEqual({
      columns: ['Name', 'Holder', 'Age'],
      rows: [['l', 'me', '0s']],
    });
    await call('POST', '/apis/storage.k8s.io/v1/storageclasses', {
      metadata: { name: 'fast-printing', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'example.com/disk',
      allowVolumeExpansion: true,
    });
    expect(await table('/apis/storage.k8s.io/v1/storageclasses/fast-printing')).toEqual({
      columns: ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age'],
      rows: [['fast-printing (default)', 'example.com/disk', 'Delete', 'Immediate', true, '0s']],
    });
  });

  it('ReplicationController and PodDisruptionBudget columns', async () => {
    const template = { metadata: { labels: { app: 'rc' } }, spec: { containers: [{ name: 'a', image: 'nginx' }] } };
    const rc = await call('POST', `${ns}/replicationcontrollers`, {
      metadata: { name: 'rc' },
      spec: { replicas: 2, selector: { app: 'rc' }, template },
    });
    expect(rc.status, rc.text).toBe(201);
    expect(await table(`${ns}/replicationcontrollers/rc`)).toEqual({
      columns: ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers (wide)', 'Images (wide)', 'Selector (wide)'],
      rows: [['rc', 2, 0, 0, '0s', 'a', 'nginx', 'app=rc']],
    });
    const pdbs = '/apis/policy/v1/namespaces/printing/poddisruptionbudgets';
    await call('POST', pdbs, { metadata: { name: 'pdb' }, spec: { minAvailable: '50%', selector: { matchLabels: { app: 'rc' } } } });
    expect(await table(`${pdbs}/pdb`)).toEqual({
      columns: ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age'],
      rows: [['pdb', '50%', 'N/A', 0, '0s']],
    });
  });

  it('PersistentVolume and PersistentVolumeClaim: modes in upstream order, the claim, classes and capacity once bound', async () => {
    await call('POST', '/api/v1/persistentvolumes', {
      metadata: { name: 'pv-printing', annotations: { 'volume.beta.kubernetes.io/storage-class': 'beta' } },
      spec: {
        capacity: { storage: '1024Mi' },
        accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'],
        hostPath: { path: '/tmp' },
        storageClassName: 'ignored-for-the-annotation',
        claimRef: { namespace: 'printing', name: 'claim' },
      },
    });
    expect(await table('/api/v1/persistentvolumes/pv-printing')).toEqual({
      columns: [
        'Name',
        'Capacity',
        'Access Modes',
        'Reclaim Policy',
        'Status',
        'Claim',
        'StorageClass',
        'VolumeAttributesClass',
        'Reason',
        'Age',
        'VolumeMode (wide)',
      ],
      rows: [['pv-printing', '1Gi', 'RWO,RWX', 'Retain', 'Pending', 'printing/claim', 'beta', '<unset>', '', '0s', 'Filesystem']],
    });
    await call('POST', `${ns}/persistentvolumeclaims`, {
      metadata: { name: 'claim' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' },
    });
    expect(await table(`${ns}/persistentvolumeclaims/claim`)).toEqual({
      columns: [
        'Name',
        'Status',
        'Volume',
        'Capacity',
        'Access Modes',
        'StorageClass',
        'VolumeAttributesClass',
        'Age',
        'VolumeMode (wide)',
      ],
      rows: [['claim', 'Pending', '', '', '', 'fast', '<unset>', '0s', 'Filesystem']],
    });
  });

  it('Ingress, HorizontalPodAutoscaler (both versions), PriorityClass, ResourceQuota and events.k8s.io Event columns', async () => {
    const ingresses = '/apis/networking.k8s.io/v1/namespaces/printing/ingresses';
    const backend = { service: { name: 'web', port: { number: 80 } } };
    const rule = (host: string) => ({ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } });
    await call('POST', ingresses, {
      metadata: { name: 'ing' },
      spec: { rules: ['a.example', 'b.example', 'c.example', 'd.example'].map(rule), tls: [{ hosts: ['a.example'] }] },
    });
    expect(await table(`${ingresses}/ing`)).toEqual({
      columns: ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age'],
      rows: [['ing', '<none>', 'a.example,b.example,c.example + 1 more...', '', '80, 443', '0s']],
    });
    const scaleTargetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
    await call('POST', '/apis/autoscaling/v1/namespaces/printing/horizontalpodautoscalers', {
      metadata: { name: 'hpa' },
      spec: { scaleTargetRef, maxReplicas: 5, targetCPUUtilizationPercentage: 80 },
    });
    const hpaColumns = ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age'];
    for (const version of ['v1', 'v2']) {
      expect(await table(`/apis/autoscaling/${version}/namespaces/printing/horizontalpodautoscalers/hpa`)).toEqual({
        columns: hpaColumns,
        rows: [['hpa', 'Deployment/web', 'cpu: <unknown>/80%', '1', 5, 0, '0s']],
      });
    }
    await call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'pc-printing' }, value: 1000 });
    expect(await table('/apis/scheduling.k8s.io/v1/priorityclasses/pc-printing')).toEqual({
      columns: ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy'],
      rows: [['pc-printing', 1000, false, '0s', 'PreemptLowerPriority']],
    });
    await call('POST', `${ns}/resourcequotas`, { metadata: { name: 'q' }, spec: { hard: { pods: '10' } } });
    await call('PUT', `${ns}/resourcequotas/q/status`, {
      metadata: { name: 'q' },
      spec: { hard: { pods: '10' } },
      status: { hard: { pods: '10', 'limits.cpu': '2', 'requests.memory': '1Gi' }, used: { pods: '3' } },
    });
    expect(await table(`${ns}/resourcequotas/q`)).toEqual({
      columns: ['Name', 'Request', 'Limit', 'Age'],
      rows: [['q', 'pods: 3/10, requests.memory: 0/1Gi', 'limits.cpu: 0/2', '0s']],
    });
    const events = '/apis/events.k8s.io/v1/namespaces/printing/events';
    const created = await call('POST', events, {
      metadata: { name: 'ev' },
      eventTime: new Date(nowMs).toISOString().replace(/\.\d+Z$/, '.000000Z'),
      reportingController: 'ctl',
      reportingInstance: 'ctl-1',
      action: 'Scale',
      reason: 'Scaled',
      type: 'Normal',
      note: ' scaled up ',
      regarding: { kind: 'Deployment', name: 'web', namespace: 'printing' },
    });
    expect(created.status, created.text).toBe(201);
    expect((await table(`${events}/ev`)).rows).toEqual([
      ['0s', 'Normal', 'Scaled', 'deployment/web', '', 'ctl, ctl-1', 'scaled up', '0s', 1, 'ev'],
    ]);
  });

  it.skipIf(!KUBECTL)('kubectl get -o wide prints them', async () => {
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'svckit-shapes-kubectl-')), 'config');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server.url}"}}]\ncontexts: [{name: c, context: {cluster: c, namespace: printing}}]\ncurrent-context: c\nusers: []\n`,
    );
    const out = await runKubectl(['--kubeconfig', kubeconfig, 'get', 'pods', 'pending', '-o', 'wide']);
    expect(out.stderr).toBe('');
    expect(out.stdout.split('\n')[0]!.split(/\s{2,}/)).toEqual([
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'IP',
      'NODE',
      'NOMINATED NODE',
      'READINESS GATES',
    ]);
    expect(out.stdout.split('\n')[1]!.split(/\s+/).slice(0, 4)).toEqual(['pending', '0/2', 'Pending', '0']);
  });
});

describe('labels and annotations, checked on every kind as upstream ValidateObjectMeta', () => {
  it.each([
    ['a key that is not a qualified name', { 'a b': 'x' }, 'metadata.labels: Invalid value: "a b": name part must consist of'],
    ['a value that starts with a dash', { app: '-x' }, 'metadata.labels: Invalid value: "-x": a valid label must be an empty string'],
    ['a value of 64 characters', { app: 'x'.repeat(64) }, 'must be no more than 63 characters'],
  ])('refuse %s (422)', async (_what, labels, message) => {
    for (const path of [`${NS}/configmaps`, '/apis/rbac.authorization.k8s.io/v1/clusterroles']) {
      const res = await call('POST', path, { metadata: { name: 'labelled', labels } });
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toContain(message);
    }
  });

  it('accept a prefixed key and an empty value; refuse annotations over 256 KiB', async () => {
    const ok = await call('POST', `${NS}/configmaps`, { metadata: { name: 'labels-ok', labels: { 'example.com/app': 'web', empty: '' } } });
    expect(ok.status, ok.text).toBe(201);
    const big = await call('POST', `${NS}/configmaps`, { metadata: { name: 'annotated', annotations: { a: 'x'.repeat(256 * 1024) } } });
    expect(big.status).toBe(422);
    expect(big.body.details.causes).toEqual([expect.objectContaining({ reason: 'FieldValueTooLong', field: 'metadata.annotations' })]);
  });
});
