/**
 * svckit/testing's test server as a test author uses it: clients of three kinds reach it through
 * its config; dozens run side by side; reset and snapshots; the clock; compaction on demand; fault
 * injection; identities under RBAC; the record of requests and warnings.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client.js';
import { isStatusError } from '../../runtime/api/index.js';
import { parseClientConfigFile, clientConfigFromFile } from '../../runtime/client-node/index.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestClock, type TestServer, startTestServer } from './index.js';

const run = promisify(execFile);

type Json = Record<string, any>;

/** A request to the server as JSON; never throws on an error status. */
async function call(
  s: TestServer,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: {
      'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {}, headers: res.headers };
}

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1' as const,
  kind: 'ConfigMap' as const,
  metadata: { name },
  data,
});

describe('startTestServer: clients', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  it('serves the generated client from clientConfig and @kubernetes/client-node and kubectl from configFile', async () => {
    const client = createClient(s.clientConfig);
    await client.core.v1.configMaps('default').create(configMap('from-generated', { a: '1' }));

    const kc = new k8s.KubeConfig();
    kc.loadFromFile(s.configFile);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    expect(list.items.map((c) => c.metadata?.name)).toContain('from-generated');

    const { stdout } = await run('kubectl', [
      '--kubeconfig',
      s.configFile,
      'get',
      'configmap',
      'from-generated',
      '-o',
      'jsonpath={.data.a}',
    ]);
    expect(stdout).toBe('1');

    // svckit's own loader reads the same file.
    const loaded = await clientConfigFromFile(parseClientConfigFile(readFileSync(s.configFile, 'utf8')));
    expect(loaded.server).toBe(s.url);
  });
});

describe('startTestServer({ tls: true }): identities through every client', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ users: { erin: ['readers'] }, tls: true });
    await s.install([
      {
        apiVersion: 'rbac.authorization.svc.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'readers-view', namespace: 'default' },
        roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'svckit-test-configmap-reader' },
        subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.svc.io', name: 'readers' }],
      },
      {
        apiVersion: 'rbac.authorization.svc.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'svckit-test-configmap-reader' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
      },
      configMap('shared', { a: '1' }),
    ]);
  });
  afterAll(() => s.close());

  it('serves HTTPS under its own CA, and kubectl, @kubernetes/client-node and the generated client act as the user', async () => {
    expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(s.ca).toContain('BEGIN CERTIFICATE');
    const erin = s.as('erin');
    // kubectl sends a token only over TLS: here it is erin, allowed to read and not to write.
    const read = await run('kubectl', ['--kubeconfig', erin.configFile, 'get', 'configmap', 'shared', '-o', 'jsonpath={.data.a}']);
    expect(read.stdout).toBe('1');
    const write = await run('kubectl', ['--kubeconfig', erin.configFile, 'create', 'configmap', 'nope']).catch(
      (e: { stderr: string }) => e,
    );
    expect((write as { stderr: string }).stderr).toContain('User "erin" cannot create resource "configmaps"');

    const kc = new k8s.KubeConfig();
    kc.loadFromFile(erin.configFile);
    const list = await kc.makeApiClient(k8s.CoreV1Api).listNamespacedConfigMap({ namespace: 'default' });
    // kube-root-ca.crt: the root CA publisher's, in every namespace over HTTPS.
    expect(list.items.map((c) => c.metadata?.name)).toEqual(['kube-root-ca.crt', 'shared']);

    const client = createClient(erin.clientConfig);
    const denied = await client.core.v1
      .configMaps('default')
      .create(configMap('nope'))
      .catch((e: unknown) => e);
    expect(isStatusError(denied) && denied.code).toBe(403);
    // The administrator's own config works over the same TLS.
    const made = await createClient(s.clientConfig).core.v1.configMaps('default').create(configMap('by-admin'));
    expect(made.metadata?.name).toBe('by-admin');
  });
});

describe('startTestServer: garbage collection through kubectl', () => {
  it('kubectl delete --cascade=foreground waits for the dependents; --cascade=orphan keeps them', async () => {
    const s = await startTestServer();
    try {
      const own = async (owner: string, dependent: string) => {
        const o = (await call(s, 'POST', CONFIGMAPS, configMap(owner))).body;
        const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid: o.metadata.uid, blockOwnerDeletion: true };
        await call(s, 'POST', CONFIGMAPS, { ...configMap(dependent), metadata: { name: dependent, ownerReferences: [ref] } });
      };
      await own('fg-owner', 'fg-dependent');
      await run('kubectl', ['--kubeconfig', s.configFile, 'delete', 'configmap', 'fg-owner', '--cascade=foreground', '--timeout=20s']);
      // kubectl waited for the owner to go, and the owner went only after its dependent.
      expect((await call(s, 'GET', `${CONFIGMAPS}/fg-owner`)).status).toBe(404);
      expect((await call(s, 'GET', `${CONFIGMAPS}/fg-dependent`)).status).toBe(404);
      const deletes = s.requests({ verb: 'delete', name: 'fg-owner' });
      expect(deletes.map((r) => r.status)).toEqual([200]);

      await own('or-owner', 'or-dependent');
      await run('kubectl', ['--kubeconfig', s.configFile, 'delete', 'configmap', 'or-owner', '--cascade=orphan', '--timeout=20s']);
      expect((await call(s, 'GET', `${CONFIGMAPS}/or-owner`)).status).toBe(404);
      const kept = await call(s, 'GET', `${CONFIGMAPS}/or-dependent`);
      expect(kept.status).toBe(200);
      expect(kept.body.metadata.ownerReferences).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});

describe('startTestServer: many at once, reset and snapshots', () => {
  it('runs two dozen servers side by side, each with its own objects', async () => {
    const servers = await Promise.all(Array.from({ length: 24 }, () => startTestServer()));
    try {
      expect(new Set(servers.map((x) => x.url)).size).toBe(24);
      await Promise.all(servers.map((x, i) => call(x, 'POST', CONFIGMAPS, configMap(`only-${i}`))));
      for (const [i, x] of servers.entries()) {
        const names = (await call(x, 'GET', CONFIGMAPS)).body.items.map((c: Json) => c.metadata.name);
        expect(names.filter((n: string) => n.startsWith('only-'))).toEqual([`only-${i}`]);
      }
    } finally {
      await Promise.all(servers.map((x) => x.close()));
    }
  });

  it('reset() returns to the state after start without a restart; restore() to a snapshot', async () => {
    const s = await startTestServer();
    try {
      const namespacesAtStart = (await call(s, 'GET', '/api/v1/namespaces')).body.items.map((n: Json) => n.metadata.name);
      await call(s, 'POST', CONFIGMAPS, configMap('kept', { v: '1' }));
      const snapshot = await s.snapshot();
      await call(s, 'PATCH', `${CONFIGMAPS}/kept`, { data: { v: '2' } });
      await call(s, 'POST', CONFIGMAPS, configMap('extra'));
      await call(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'scratch' } });

      await s.restore(snapshot);
      expect((await call(s, 'GET', `${CONFIGMAPS}/kept`)).body.data).toEqual({ v: '1' });
      expect((await call(s, 'GET', `${CONFIGMAPS}/extra`)).status).toBe(404);
      expect((await call(s, 'GET', '/api/v1/namespaces/scratch')).status).toBe(404);

      await s.reset();
      expect((await call(s, 'GET', CONFIGMAPS)).body.items.filter((c: Json) => c.metadata.name === 'kept')).toEqual([]);
      expect((await call(s, 'GET', '/api/v1/namespaces')).body.items.map((n: Json) => n.metadata.name)).toEqual(namespacesAtStart);
      // The server keeps working after a reset: the default namespace takes new objects.
      expect((await call(s, 'POST', CONFIGMAPS, configMap('after'))).status).toBe(201);
    } finally {
      await s.close();
    }
  });

  it('a reset does not let the garbage collector see a dependent restored before its owner', async () => {
    const s = await startTestServer();
    try {
      const owner = (await call(s, 'POST', CONFIGMAPS, configMap('z-owner'))).body;
      const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'z-owner', uid: owner.metadata.uid };
      // The dependent's key sorts before its owner's, so a restore writes it first.
      await call(s, 'POST', CONFIGMAPS, { ...configMap('a-dependent'), metadata: { name: 'a-dependent', ownerReferences: [ref] } });
      const snapshot = await s.snapshot();
      await s.reset();
      await s.restore(snapshot);
      expect((await call(s, 'GET', `${CONFIGMAPS}/a-dependent`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('startTestServer: install', () => {
  it('creates the objects of a folder of manifests, namespaces first, through the API', async () => {
    const s = await startTestServer();
    const dir = mkdtempSync(join(tmpdir(), 'svckit-install-'));
    try {
      // The ConfigMap's file sorts first, but its namespace is created before it.
      writeFileSync(
        join(dir, 'a-config.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: team}\ndata: {a: "1"}\n---\n' +
          'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: two, namespace: team}}\n',
      );
      writeFileSync(join(dir, 'b-namespace.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }));
      writeFileSync(join(dir, 'notes.txt'), 'not a manifest');
      const created = await s.install(dir);
      expect(created.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(['Namespace/team', 'ConfigMap/settings', 'ConfigMap/two']);
      expect((await call(s, 'GET', '/api/v1/namespaces/team/configmaps/settings')).body.data).toEqual({ a: '1' });
      expect(s.requests({ verb: 'create' })).toHaveLength(3);

      // An invalid object is the server's 422, and an unknown kind names itself.
      await expect(s.install([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } }])).rejects.toMatchObject({
        code: 422,
      });
      await expect(s.install([{ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' } }])).rejects.toThrow(
        'the test server serves no example.io/v1 Widget (w)',
      );
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A CustomResourceDefinition as controller-gen writes one (the real system's apiextensions group). */
function definition(plural: string, kind: string, extra: Json = {}): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.io` },
    spec: {
      group: 'example.io',
      scope: 'Namespaced',
      names: { plural, kind, ...extra },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
          },
        },
      ],
    },
  };
}

describe('startTestServer: install of CustomResourceDefinitions', () => {
  it('resolves once each definition is Established and its resource answers; its objects install in the same call', async () => {
    const s = await startTestServer();
    const dir = mkdtempSync(join(tmpdir(), 'svckit-install-crds-'));
    try {
      // The Widget's file sorts first: the definition goes before it, and is served when it is created.
      writeFileSync(join(dir, 'a-widget.yaml'), 'apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n');
      writeFileSync(join(dir, 'b-crd.json'), JSON.stringify(definition('widgets', 'Widget')));
      const created = await s.install(dir);
      expect(created.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(['CustomResourceDefinition/widgets.example.io', 'Widget/w1']);
      // No polling here: install() has already waited.
      const crd = await call(s, 'GET', '/apis/apiextensions.svc.io/v1/customresourcedefinitions/widgets.example.io');
      expect(crd.body.status.conditions).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'NamesAccepted', status: 'True' }),
          expect.objectContaining({ type: 'Established', status: 'True' }),
        ]),
      );
      const widgets = await call(s, 'GET', '/apis/example.io/v1/namespaces/default/widgets');
      expect(widgets.status).toBe(200);
      expect(widgets.body.items.map((w: Json) => w.spec)).toEqual([{ size: 3 }]);
      // Objects given directly wait the same way.
      await s.install([definition('gadgets', 'Gadget')]);
      expect((await call(s, 'GET', '/apis/example.io/v1/namespaces/default/gadgets')).status).toBe(200);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("skips a folder's kustomization.yaml, and reset() keeps the definitions install() created (and drops their objects)", async () => {
    const s = await startTestServer();
    const dir = mkdtempSync(join(tmpdir(), 'svckit-install-kustomize-'));
    try {
      writeFileSync(
        join(dir, 'kustomization.yaml'),
        'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml, b.yaml]\n',
      );
      writeFileSync(join(dir, 'a.yaml'), JSON.stringify(definition('gizmos', 'Gizmo')));
      writeFileSync(join(dir, 'b.yaml'), JSON.stringify(definition('doodads', 'Doodad')));
      const created = await s.install(dir);
      expect(created.map((o) => o.metadata?.name)).toEqual(['gizmos.example.io', 'doodads.example.io']);
      await s.install([{ apiVersion: 'example.io/v1', kind: 'Gizmo', metadata: { name: 'g', namespace: 'default' } }]);
      await s.reset();
      // The definitions stay served; the objects made after them are gone.
      const gizmos = await call(s, 'GET', '/apis/example.io/v1/namespaces/default/gizmos');
      expect([gizmos.status, gizmos.body.items]).toEqual([200, []]);
      expect((await call(s, 'GET', '/apis/example.io/v1/namespaces/default/doodads')).status).toBe(200);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects, with the reason, a definition the server will never establish', async () => {
    const s = await startTestServer();
    try {
      await s.install([definition('widgets', 'Widget', { shortNames: ['wd'] })]);
      // Another plural of the group with a kind, or a short name, already in use: NamesAccepted False.
      await expect(s.install([definition('wodgets', 'Widget', { singular: 'wodget' })])).rejects.toThrow(
        'CustomResourceDefinition wodgets.example.io is not established: KindConflict: "Widget" is already in use',
      );
      await expect(s.install([definition('wadgets', 'Wadget', { shortNames: ['wd'] })])).rejects.toThrow(
        'CustomResourceDefinition wadgets.example.io is not established: ShortNamesConflict: "wd" is already in use',
      );
      // The refused definitions exist (as in the real system), and their resources are not served.
      expect((await call(s, 'GET', '/apis/example.io/v1/namespaces/default/wodgets')).status).toBe(404);
      // An invalid definition is the create's own 422, before any wait.
      await expect(
        s.install([{ ...definition('nodots', 'Nodot'), spec: { ...definition('nodots', 'Nodot').spec, group: 'nodot' } }]),
      ).rejects.toMatchObject({ code: 422 });
    } finally {
      await s.close();
    }
  });
});

describe('startTestServer: clock and compaction', () => {
  it('stamps objects with the injected clock and expires continue tokens by it', async () => {
    const clock = new TestClock();
    clock.set(new Date('2030-01-02T03:04:05Z'));
    const s = await startTestServer({ clock, continueTtlMs: 60_000 });
    try {
      for (const n of ['a', 'b', 'c']) await call(s, 'POST', CONFIGMAPS, configMap(n));
      expect((await call(s, 'GET', `${CONFIGMAPS}/a`)).body.metadata.creationTimestamp).toBe('2030-01-02T03:04:05Z');
      const page = await call(s, 'GET', `${CONFIGMAPS}?limit=1`);
      const token = page.body.metadata.continue as string;
      clock.advance(61_000);
      const expired = await call(s, 'GET', `${CONFIGMAPS}?limit=1&continue=${encodeURIComponent(token)}`);
      expect(expired.status).toBe(410);
      expect(expired.body.reason).toBe('Expired');
    } finally {
      await s.close();
    }
  });

  it('compactHistory(): a watch or list at an earlier resource version is 410 Expired, without moving the clock', async () => {
    const clock = new TestClock();
    clock.set(new Date('2030-01-01T00:00:00Z'));
    const s = await startTestServer({ clock });
    try {
      const created = (await call(s, 'POST', CONFIGMAPS, configMap('a'))).body;
      await call(s, 'PATCH', `${CONFIGMAPS}/a`, { data: { v: '2' } });
      const rv = created.metadata.resourceVersion as string;
      expect((await call(s, 'GET', `${CONFIGMAPS}?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status).toBe(200);
      await s.compactHistory();
      const res = await call(s, 'GET', `${CONFIGMAPS}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      expect(res.status).toBe(410);
      const watch = await call(s, 'GET', `${CONFIGMAPS}?watch=1&resourceVersion=${rv}`);
      const text = JSON.stringify(watch.body);
      expect(watch.status === 410 || text.includes('"code":410')).toBe(true);
      expect(clock.now().toISOString()).toBe('2030-01-01T00:00:00.000Z');
    } finally {
      await s.close();
    }
  });
});

describe('startTestServer: faults', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterEach(() => s.reset());
  afterAll(() => s.close());

  it('answers 409, 410, 429 with Retry-After, 500 and 503 for matching requests only, as many times as asked', async () => {
    await call(s, 'POST', CONFIGMAPS, configMap('a'));
    const conflict = s.injectFault({ verb: 'update', resource: 'configmaps', status: 409, times: 1 });
    const current = (await call(s, 'GET', `${CONFIGMAPS}/a`)).body;
    const refused = await call(s, 'PUT', `${CONFIGMAPS}/a`, current);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(refused.body.message).toContain('configmaps "a"');
    expect(conflict.hits).toBe(1);
    expect((await call(s, 'PUT', `${CONFIGMAPS}/a`, current)).status).toBe(200);

    s.injectFault({ method: 'GET', path: '/api/v1/namespaces/*/configmaps', status: 410, times: 1 });
    expect((await call(s, 'GET', CONFIGMAPS)).body.reason).toBe('Expired');

    s.injectFault({ verb: 'list', resource: 'configmaps', status: 429, retryAfterSeconds: 7, times: 1 });
    const limited = await call(s, 'GET', CONFIGMAPS);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.body.details.retryAfterSeconds).toBe(7);

    const broken = s.injectFault({ verb: 'get', name: 'a', status: 500 });
    expect((await call(s, 'GET', `${CONFIGMAPS}/a`)).status).toBe(500);
    expect((await call(s, 'GET', `${CONFIGMAPS}/a`)).status).toBe(500);
    expect((await call(s, 'GET', CONFIGMAPS)).status).toBe(200); // a list of the same resource is not matched
    broken.remove();
    expect((await call(s, 'GET', `${CONFIGMAPS}/a`)).status).toBe(200);

    s.injectFault({ path: '/api/**', status: 503, retryAfterSeconds: 2, times: 1 });
    const down = await call(s, 'GET', CONFIGMAPS);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('2');
  });

  it('delays a request, which is then served', async () => {
    const slow = s.injectFault({ verb: 'create', resource: 'configmaps', delayMs: 50, times: 1 });
    expect((await call(s, 'POST', CONFIGMAPS, configMap('slow'))).status).toBe(201);
    expect(slow.hits).toBe(1);
  });

  it('drops a watch connection without its clean end, and only for watches', async () => {
    s.injectFault({ watch: true, resource: 'configmaps', dropAfterMs: 20 });
    expect((await call(s, 'GET', CONFIGMAPS)).status).toBe(200);
    const res = await fetch(`${s.url}${CONFIGMAPS}?watch=1`);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('a fault needs an effect', () => {
    expect(() => s.injectFault({ verb: 'get' })).toThrow(/status, delayMs or dropAfterMs/);
  });
});

describe('startTestServer: identities and the request record', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ users: { alice: ['devs'], bob: [] } });
  });
  afterAll(() => s.close());

  it('the administrator may do anything; a user only what RBAC grants to it or its groups', async () => {
    expect(s.user).toBe('admin');
    const client = createClient(s.clientConfig);
    await client.core.v1.configMaps('default').create(configMap('shared'));

    const alice = createClient(s.as('alice').clientConfig);
    const denied = await alice.core.v1
      .configMaps('default')
      .get('shared')
      .catch((e: unknown) => e);
    expect(isStatusError(denied) && denied.code).toBe(403);

    const RBAC = '/apis/rbac.authorization.svc.io/v1/namespaces/default';
    await call(
      s,
      'POST',
      `${RBAC}/roles`,
      {
        apiVersion: 'rbac.authorization.svc.io/v1',
        kind: 'Role',
        metadata: { name: 'read-configmaps' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
      },
      s.token('admin'),
    );
    await call(
      s,
      'POST',
      `${RBAC}/rolebindings`,
      {
        apiVersion: 'rbac.authorization.svc.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'devs-read' },
        roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'Role', name: 'read-configmaps' },
        subjects: [{ apiGroup: 'rbac.authorization.svc.io', kind: 'Group', name: 'devs' }],
      },
      s.token('admin'),
    );
    expect((await alice.core.v1.configMaps('default').get('shared')).metadata?.name).toBe('shared');
    // bob is not in devs.
    expect((await call(s, 'GET', `${CONFIGMAPS}/shared`, undefined, s.token('bob'))).status).toBe(403);
    // Over plain HTTP kubectl leaves the token out (client-go sends credentials only over TLS):
    // the request is anonymous. `tls: true` is the way to act as bob through kubectl (tested above).
    const since = s.requests().length;
    const out = await run('kubectl', ['--kubeconfig', s.as('bob').configFile, 'get', 'configmaps']).catch((e: { stderr: string }) => e);
    expect((out as { stderr: string }).stderr).toMatch(/forbidden/i);
    const users = new Set(
      s
        .requests()
        .slice(since)
        .map((r) => r.user),
    );
    expect([...users]).toEqual(['system:anonymous']);
    expect(() => s.as('carol')).toThrow(/no user "carol"/);
  });

  it('a token issued with a lifetime is refused (401) once the server clock passes it', async () => {
    const token = s.issueToken('alice', { ttlMs: 60_000 });
    expect((await call(s, 'GET', '/api/v1/namespaces/default/configmaps/none', undefined, token)).status).not.toBe(401);
    s.clock.advance(60_000);
    const expired = await call(s, 'GET', '/api/v1/namespaces/default/configmaps/none', undefined, token);
    expect(expired.status).toBe(401);
    expect(expired.body.reason).toBe('Unauthorized');
    // Her standing token does not expire.
    expect((await call(s, 'GET', '/api/v1/namespaces/default/configmaps/none', undefined, s.token('alice'))).status).not.toBe(401);
  });

  it('records who did what, with the status answered and the warnings sent', async () => {
    const admin = s.token('admin');
    await call(s, 'POST', CONFIGMAPS, configMap('watched'), admin);
    await call(s, 'PATCH', `${CONFIGMAPS}/watched`, { data: { a: '1' } }, admin);
    await call(s, 'PATCH', `${CONFIGMAPS}/watched`, { data: { a: '2' } }, admin);
    await call(s, 'PATCH', `${CONFIGMAPS}/watched`, { data: { a: '3' } }, s.token('bob'));
    const patches = s.requests({ verb: 'patch', resource: 'configmaps', name: 'watched' });
    expect(patches.map((r) => [r.user, r.status])).toEqual([
      ['admin', 200],
      ['admin', 200],
      ['bob', 403],
    ]);
    expect(s.requests({ verb: 'patch', name: 'watched', user: 'admin' })).toHaveLength(2);

    const warned = await call(s, 'POST', `${CONFIGMAPS}?fieldValidation=Warn`, { ...configMap('odd'), bogus: true }, admin);
    expect(warned.status).toBe(201);
    const warnings = s.warnings().filter((w) => w.request.name === '' && w.request.verb === 'create');
    expect(warnings.map((w) => w.warning)).toEqual(['unknown field "bogus"']);
  });
});
