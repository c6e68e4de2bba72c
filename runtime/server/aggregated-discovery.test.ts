import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startServer } from './server.testing.js';

/** What client-go 1.30 sends to `/api` and `/apis` (discovery_client.go `acceptDiscoveryFormats`). */
const KUBECTL_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

type ResourceDiscovery = {
  resource: string;
  responseKind: { group: string; version: string; kind: string };
  scope: string;
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string; responseKind: { group: string; version: string; kind: string }; verbs: string[] }[];
};
type GroupDiscovery = {
  metadata: { name?: string };
  versions: { version: string; resources: ResourceDiscovery[]; freshness: string }[];
};

let h: Harness;
beforeEach(async () => {
  h = await startServer({ createNamespace: false });
});
afterEach(() => h.close());

async function aggregated(path: string, accept = KUBECTL_ACCEPT) {
  const res = await h.get(path).set('Accept', accept).buffer(true);
  expect(res.status, res.text).toBe(200);
  return { res, body: JSON.parse(res.text) as { kind: string; apiVersion: string; items: GroupDiscovery[] } };
}

describe('aggregated discovery (apidiscovery.k8s.io/v2)', () => {
  it('/apis answers an APIGroupDiscoveryList in the type asked for, with Vary and an ETag', async () => {
    const { res, body } = await aggregated('/apis');
    expect(res.headers['content-type']).toBe(V2);
    expect(res.headers.vary).toBe('Accept');
    expect(res.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(body).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
    const plain = (await h.read('/apis')).groups as { name: string; versions: { version: string }[] }[];
    // The same groups and versions (preferred first) as the plain document.
    expect(body.items.map((g) => [g.metadata.name, g.versions.map((v) => v.version)])).toEqual(
      plain.map((g) => [g.name, g.versions.map((v) => v.version)]),
    );
    const stable = body.items.find((g) => g.metadata.name === 'stable.example.svc.io')!;
    expect(stable.versions).toEqual([
      {
        version: 'v1',
        freshness: 'Current',
        resources: [
          {
            resource: 'crontabs',
            responseKind: { group: '', version: '', kind: 'CronTab' },
            scope: 'Namespaced',
            singularResource: 'crontab',
            verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
            shortNames: ['ct'],
            categories: ['all'],
            subresources: [
              { subresource: 'status', responseKind: { group: '', version: '', kind: 'CronTab' }, verbs: ['get', 'patch', 'update'] },
            ],
          },
        ],
      },
    ]);
  });

  it('/api answers the core group, unnamed, with its resources nested by subresource', async () => {
    const { body } = await aggregated('/api', 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    expect(body.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    expect(body.items).toHaveLength(1);
    expect(body.items[0]!.metadata).toEqual({ creationTimestamp: null });
    const v1 = body.items[0]!.versions[0]!;
    expect(v1.version).toBe('v1');
    const pods = v1.resources.find((r) => r.resource === 'pods')!;
    expect(pods).toMatchObject({ scope: 'Namespaced', singularResource: 'pod', shortNames: ['po'], categories: ['all'] });
    expect(pods.subresources).toContainEqual({
      subresource: 'eviction',
      responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      verbs: ['create'],
    });
    expect(v1.resources.find((r) => r.resource === 'namespaces')).toMatchObject({ scope: 'Cluster' });
    expect(v1.resources.some((r) => r.resource.includes('/'))).toBe(false);
  });

  it('describes every resource and subresource of the plain documents, with the same kind, scope and verbs', async () => {
    const { body } = await aggregated('/apis');
    for (const group of body.items) {
      for (const { version, resources } of group.versions) {
        const plain = (await h.read(`/apis/${group.metadata.name}/${version}`)).resources as {
          name: string;
          kind: string;
          namespaced: boolean;
          verbs: string[];
        }[];
        const flattened = resources.flatMap((r) => [
          { name: r.resource, kind: r.responseKind.kind, namespaced: r.scope === 'Namespaced', verbs: r.verbs },
          ...(r.subresources ?? []).map((s) => ({
            name: `${r.resource}/${s.subresource}`,
            kind: s.responseKind.kind,
            namespaced: r.scope === 'Namespaced',
            verbs: s.verbs,
          })),
        ]);
        const key = (e: { name: string }) => e.name;
        expect(
          flattened.sort((a, b) => key(a).localeCompare(key(b))),
          `${group.metadata.name}/${version}`,
        ).toEqual(
          plain
            .map((e) => ({ name: e.name, kind: e.kind, namespaced: e.namespaced, verbs: e.verbs }))
            .sort((a, b) => key(a).localeCompare(key(b))),
        );
      }
    }
  });

  it('answers 304 to If-None-Match naming the current ETag', async () => {
    const { res } = await aggregated('/apis');
    const again = await h.get('/apis').set('Accept', KUBECTL_ACCEPT).set('If-None-Match', res.headers.etag!);
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(res.headers.etag);
  });

  it('answers the plain documents to plain JSON, and only /api and /apis aggregate', async () => {
    const plain = await h.get('/apis').set('Accept', 'application/json');
    expect(plain.body.kind).toBe('APIGroupList');
    const group = await h.get('/apis/stable.example.svc.io').set('Accept', KUBECTL_ACCEPT);
    expect(group.body.kind).toBe('APIGroup');
    expect(group.headers['content-type']).toBe('application/json');
  });

  it("accepts the spec's name apidiscovery.svc.io", async () => {
    const { res, body } = await aggregated('/apis', 'application/json;g=apidiscovery.svc.io;v=v2;as=APIGroupDiscoveryList');
    expect(body.apiVersion).toBe('apidiscovery.svc.io/v2');
    expect(res.headers['content-type']).toBe('application/json;g=apidiscovery.svc.io;v=v2;as=APIGroupDiscoveryList');
  });
});
