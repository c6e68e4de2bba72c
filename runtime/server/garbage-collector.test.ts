import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ListOptions, type Store, createStore } from '../store/index.js';
import { GarbageCollector } from './garbage-collector.js';
import { type Harness, startServer, warningsOf } from './server.testing.js';

/** Owner references are honoured by the garbage collector in the three propagation modes, for any kind. */

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(() => h.close());

type Json = Record<string, any>;
const configMaps = () => `/api/v1/namespaces/${h.ns}/configmaps`;
const configMap = (name: string) => `${configMaps()}/${name}`;

async function owner(name: string, extra: Json = {}): Promise<Json> {
  return h.create(configMaps(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra } });
}

async function dependent(name: string, owners: Json[], extra: Json = {}, block = false): Promise<Json> {
  const ownerReferences = owners.map((o) => ({
    apiVersion: 'v1',
    kind: o.kind,
    name: o.metadata.name,
    uid: o.metadata.uid,
    ...(block ? { blockOwnerDeletion: true } : {}),
  }));
  return h.create(configMaps(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences, ...extra } });
}

/** Waits for the collector to finish what the writes so far asked of it, then reads. */
async function settled(path: string): Promise<{ status: number; body: Json }> {
  await h.server.garbageCollector?.idle();
  const res = await h.get(path);
  return { status: res.status, body: res.body };
}

describe('garbage collector', () => {
  it('background (the default): the owner goes at once and its dependents after it; one with another owner keeps that one', async () => {
    const o = await owner('owner');
    const other = await owner('other');
    await dependent('child-a', [o]);
    await dependent('child-b', [o]);
    await dependent('shared', [o, other]);
    expect((await h.delete(configMap('owner'))).status).toBe(200);
    expect((await h.get(configMap('owner'))).status).toBe(404);
    expect((await settled(configMap('child-a'))).status).toBe(404);
    expect((await settled(configMap('child-b'))).status).toBe(404);
    const shared = await settled(configMap('shared'));
    expect(shared.status).toBe(200);
    expect(shared.body.metadata.ownerReferences.map((r: Json) => r.name)).toEqual(['other']);
  });

  it('a dependent created naming an owner that does not exist is deleted', async () => {
    await dependent('orphaned', [{ kind: 'ConfigMap', metadata: { name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' } }]);
    expect((await settled(configMap('orphaned'))).status).toBe(404);
  });

  it('an owner in another namespace does not hold a dependent', async () => {
    await h.createNamespace('elsewhere');
    const far = await h.create('/api/v1/namespaces/elsewhere/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'far' },
    });
    await dependent('cross', [far]);
    expect((await settled(configMap('cross'))).status).toBe(404);
    expect((await h.get('/api/v1/namespaces/elsewhere/configmaps/far')).status).toBe(200);
  });

  it('foreground: the owner waits with foregroundDeletion until its blocking dependents are gone', async () => {
    const o = await owner('owner');
    await dependent('blocker', [o], { finalizers: ['example.svc.io/hold'] }, true);
    await dependent('free', [o]);
    const res = await h.delete(configMap('owner'), { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' });
    expect(res.status).toBe(200);
    expect(res.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(res.body.metadata.deletionTimestamp).toBeTruthy();

    // Every dependent is deleted; the blocking one is held by its own finalizer, and so is the owner.
    expect((await settled(configMap('free'))).status).toBe(404);
    const blocker = await settled(configMap('blocker'));
    expect(blocker.body.metadata.deletionTimestamp).toBeTruthy();
    const waiting = await settled(configMap('owner'));
    expect(waiting.status).toBe(200);
    expect(waiting.body.metadata.finalizers).toEqual(['foregroundDeletion']);

    // Releasing the blocking dependent lets the owner go.
    expect((await h.patch(configMap('blocker'), [{ op: 'remove', path: '/metadata/finalizers' }], 'json')).status).toBe(200);
    expect((await settled(configMap('blocker'))).status).toBe(404);
    expect((await settled(configMap('owner'))).status).toBe(404);
  });

  it('foreground cascades: a dependent with dependents of its own is deleted in the foreground too', async () => {
    const o = await owner('top');
    const mid = await dependent('mid', [o], {}, true);
    await dependent('leaf', [mid], { finalizers: ['example.svc.io/hold'] }, true);
    await h.delete(`${configMap('top')}?propagationPolicy=Foreground`);
    await h.server.garbageCollector?.idle();
    const middle = await h.read(configMap('mid'));
    expect(middle.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect((await h.read(configMap('top'))).metadata.finalizers).toEqual(['foregroundDeletion']);
    await h.patch(configMap('leaf'), [{ op: 'remove', path: '/metadata/finalizers' }], 'json');
    for (const name of ['leaf', 'mid', 'top']) expect((await settled(configMap(name))).status).toBe(404);
  });

  it('orphan: the dependents lose their reference to the owner and stay; then the owner goes', async () => {
    const o = await owner('owner');
    const other = await owner('other');
    await dependent('child', [o]);
    await dependent('shared', [o, other]);
    const res = await h.delete(`${configMap('owner')}?propagationPolicy=Orphan`);
    expect(res.status).toBe(200);
    expect(res.body.metadata.finalizers).toEqual(['orphan']);
    expect((await settled(configMap('owner'))).status).toBe(404);
    const child = await h.read(configMap('child'));
    expect(child.metadata.ownerReferences).toBeUndefined();
    expect((await h.read(configMap('shared'))).metadata.ownerReferences.map((r: Json) => r.name)).toEqual(['other']);
  });

  it('orphanDependents=true is the Orphan policy; the owner keeps other finalizers', async () => {
    const o = await owner('owner', { finalizers: ['example.svc.io/hold'] });
    await dependent('child', [o]);
    const res = await h.delete(configMap('owner'), { apiVersion: 'v1', kind: 'DeleteOptions', orphanDependents: true });
    expect(res.body.metadata.finalizers).toEqual(['example.svc.io/hold', 'orphan']);
    const held = await settled(configMap('owner'));
    expect(held.body.metadata.finalizers).toEqual(['example.svc.io/hold']);
    expect((await h.read(configMap('child'))).metadata.ownerReferences).toBeUndefined();
  });

  it('a dry-run delete with a policy changes nothing', async () => {
    const o = await owner('owner');
    await dependent('child', [o]);
    const res = await h.delete(`${configMap('owner')}?propagationPolicy=Foreground&dryRun=All`);
    expect(res.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect((await settled(configMap('owner'))).body.metadata.finalizers).toBeUndefined();
    expect((await settled(configMap('child'))).status).toBe(200);
  });

  it('works for custom resources owned by built-in kinds', async () => {
    const o = await owner('owner');
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: o.metadata.uid };
    await h.createCronTab('owned', { metadata: { ownerReferences: [ref] } });
    await h.delete(configMap('owner'));
    expect((await settled(`/apis/stable.example.svc.io/v1/namespaces/${h.ns}/crontabs/owned`)).status).toBe(404);
  });

  it('a batch/v1 Job deleted without a policy orphans its dependents and warns, as upstream; with a policy it does not warn', async () => {
    const jobs = `/apis/batch/v1/namespaces/${h.ns}/jobs`;
    const job = (name: string) => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'example/job:1' }] } } },
    });
    const kept = await h.create(jobs, job('kept'));
    await dependent('kept-pod', [kept]);
    const res = await h.delete(`${jobs}/kept`);
    expect(res.status).toBe(200);
    expect(warningsOf(res)).toEqual([
      'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning',
    ]);
    expect(res.body.metadata.finalizers).toEqual(['orphan']);
    expect((await settled(`${jobs}/kept`)).status).toBe(404);
    expect((await h.read(configMap('kept-pod'))).metadata.ownerReferences).toBeUndefined();

    const gone = await h.create(jobs, job('gone'));
    await dependent('gone-pod', [gone]);
    const background = await h.delete(`${jobs}/gone?propagationPolicy=Background`);
    expect(warningsOf(background)).toEqual([]);
    expect((await settled(configMap('gone-pod'))).status).toBe(404);
  });
});

describe('garbage collector start-up sync', () => {
  /** A collector of its own on `s`'s store: its start-up sync, the work that follows, then closed. */
  async function collectOnce(s: Harness): Promise<void> {
    const collector = new GarbageCollector(s.server.context);
    try {
      await collector.start();
      await collector.idle();
    } finally {
      collector.close();
    }
  }

  /** A server without its own collector, whose store records each list and can refuse some prefixes. */
  async function serverWithSpiedStore(refuse: (prefix: string) => boolean = () => false) {
    const store = await createStore('memory', { compactionIntervalMs: 0 });
    const lists: { prefix: string; limit: number | undefined }[] = [];
    const spy = new Proxy(store, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === 'list') {
          return (prefix: string, options: ListOptions = {}) => {
            lists.push({ prefix, limit: options.limit });
            if (refuse(prefix)) return Promise.reject(new Error(`unreadable value under ${prefix}`));
            return target.list(prefix, options);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const s = await startServer({ store: spy, server: { garbageCollector: false } });
    return { s, store, lists };
  }

  /** Writes ConfigMaps straight to the store (no collector is running), as a store from before a restart holds them. */
  async function storeConfigMaps(s: Harness, store: Store, names: string[], ownerUid?: string): Promise<void> {
    const templateKey = `/registry/configmaps/${s.ns}/template`;
    if (!(await store.get(templateKey))) {
      await s.create(`/api/v1/namespaces/${s.ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'template' } });
    }
    const stored = JSON.parse((await store.get(templateKey))!.value);
    await Promise.all(
      names.map((name) => {
        const metadata = { ...stored.metadata, name, uid: `uid-${name}` };
        if (ownerUid) metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: ownerUid }];
        return store.create(`/registry/configmaps/${s.ns}/${name}`, JSON.stringify({ ...stored, metadata }));
      }),
    );
  }

  it('reads the store a page at a time and still sees owners and dependents on different pages', async () => {
    const { s, store, lists } = await serverWithSpiedStore();
    try {
      await storeConfigMaps(s, store, ['a-owner']);
      await storeConfigMaps(
        s,
        store,
        Array.from({ length: 1100 }, (_, i) => `m-${String(i).padStart(4, '0')}`),
      );
      await storeConfigMaps(s, store, ['z-kept'], 'uid-a-owner');
      await storeConfigMaps(s, store, ['z-dangling'], 'uid-missing');
      lists.length = 0;
      await collectOnce(s);
      const objectLists = lists.filter((l) => l.prefix.startsWith('/registry/'));
      expect(objectLists.length).toBeGreaterThanOrEqual(3);
      expect(objectLists.every((l) => l.limit !== undefined && l.limit < 1100)).toBe(true);
      expect((await s.get(`/api/v1/namespaces/${s.ns}/configmaps/z-kept`)).status).toBe(200);
      expect((await s.get(`/api/v1/namespaces/${s.ns}/configmaps/z-dangling`)).status).toBe(404);
    } finally {
      await s.close();
    }
  });

  // Two replicas' collectors both act on one foreground deletion: the second, its graph a step
  // behind, found the dependent marked already and wrote it again unchanged (a new
  // resourceVersion: a client's conditional write with the one it had read met 409, in the
  // conformance suite on two replicas). Here the other replica marks it just before our read.
  it('leaves a dependent that another collector marked meanwhile as it is: no write, the same resourceVersion', async () => {
    const inner = await createStore('memory', { compactionIntervalMs: 0 });
    let markedBehindOurBack: number | undefined;
    let armed = false;
    const store = new Proxy(inner, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === 'get') {
          return async (key: string, options?: { revision?: number }) => {
            if (armed && key.endsWith('/dep') && markedBehindOurBack === undefined) {
              const object = JSON.parse((await target.get(key))!.value);
              object.metadata = { ...object.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 };
              markedBehindOurBack = (await target.update(key, JSON.stringify(object))).modRevision;
            }
            return target.get(key, options);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const s = await startServer({ store, server: { garbageCollector: false } });
    try {
      await storeConfigMaps(s, store, ['owner']);
      await storeConfigMaps(s, store, ['dep'], 'uid-owner');
      const ownerKey = `/registry/configmaps/${s.ns}/owner`;
      const owner = JSON.parse((await store.get(ownerKey))!.value);
      owner.metadata = {
        ...owner.metadata,
        deletionTimestamp: '2026-01-01T00:00:00Z',
        deletionGracePeriodSeconds: 0,
        finalizers: ['foregroundDeletion'],
      };
      await store.update(ownerKey, JSON.stringify(owner));
      const depKey = `/registry/configmaps/${s.ns}/dep`;
      const dep = JSON.parse((await store.get(depKey))!.value);
      dep.metadata.finalizers = ['example.com/hold'];
      dep.metadata.ownerReferences[0].blockOwnerDeletion = true;
      await store.update(depKey, JSON.stringify(dep));
      armed = true;
      await collectOnce(s);
      expect(markedBehindOurBack).toBeDefined();
      expect((await inner.get(depKey))?.modRevision).toBe(markedBehindOurBack);
    } finally {
      await s.close();
    }
  });

  it('falls back to the resources it can read when the list of everything fails, and still collects in them', async () => {
    let broken = false;
    const { s, store } = await serverWithSpiedStore(
      (prefix) => broken && (prefix === '/registry/' || prefix.startsWith('/registry/secrets/')),
    );
    try {
      await storeConfigMaps(s, store, ['owner']);
      await storeConfigMaps(s, store, ['kept'], 'uid-owner');
      await storeConfigMaps(s, store, ['dangling'], 'uid-missing');
      broken = true;
      await collectOnce(s);
      expect((await s.get(`/api/v1/namespaces/${s.ns}/configmaps/kept`)).status).toBe(200);
      expect((await s.get(`/api/v1/namespaces/${s.ns}/configmaps/dangling`)).status).toBe(404);
    } finally {
      await s.close();
    }
  });
});
