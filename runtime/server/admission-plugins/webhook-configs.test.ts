import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServedWebhook, admissionWebhook, deny, selfSignedCertificate, serveWebhook, type TlsKeyPair } from '../../webhook/index.js';
import { type Store, type Watch, createStore } from '../../store/index.js';
import { type Harness, type Json, startServer } from '../server.testing.js';
import { validatingWebhookAdmission } from './index.js';

const VALIDATING = '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations';
const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });

/** `store` with its methods bound, some replaced by `override` (undefined: the store's own). */
function storeWith(store: Store, override: (key: string | symbol, own: unknown) => unknown): Store {
  return new Proxy(store, {
    get(target, key) {
      const own = Reflect.get(target, key, target);
      return override(key, own) ?? (typeof own === 'function' ? own.bind(target) : own);
    },
  });
}

/** A store that counts the lists under the webhook configurations' prefix. */
function countingStore(store: Store): { store: Store; configLists: () => number } {
  let lists = 0;
  const counted = storeWith(store, (key) =>
    key === 'list'
      ? (prefix: string, options?: Parameters<Store['list']>[1]) => {
          if (prefix.includes('validatingwebhookconfigurations')) lists++;
          return store.list(prefix, options);
        }
      : undefined,
  );
  return { store: counted, configLists: () => lists };
}

let tls: TlsKeyPair;
let hook: ServedWebhook;
let backing: Store;
let counting: ReturnType<typeof countingStore>;
let h: Harness;
/** A second server over the same store: its writes reach the first through the store alone. */
let other: Harness;

beforeAll(async () => {
  tls = selfSignedCertificate();
  hook = await serveWebhook(
    admissionWebhook(() => deny('frozen', { code: 403, reason: 'Forbidden' })),
    { tls },
  );
  backing = await createStore('memory', { compactionIntervalMs: 0 });
  counting = countingStore(backing);
  const admission = [validatingWebhookAdmission({ log: () => {} })];
  h = await startServer({ store: counting.store, server: { admission } });
  // Its close leaves the shared store open for the first server, which closes it.
  const shared = storeWith(backing, (key) => (key === 'close' ? async () => {} : undefined));
  other = await startServer({ store: shared, server: { admission }, createNamespace: false });
});
afterAll(async () => {
  await hook.close();
  await other.close();
  await h.close();
});
afterEach(async () => {
  await h.delete(VALIDATING);
});

function configuration(name: string, resources: string[]): Json {
  return {
    apiVersion: 'admissionregistration.svc.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: 'deny.example.com',
        clientConfig: { url: `${hook.url}/admit`, caBundle: Buffer.from(hook.caBundle).toString('base64') },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  };
}

describe('stored webhook configurations', () => {
  it('a configuration created, updated and deleted through the API applies to the very next request', async () => {
    expect((await h.post(configMaps(h.ns), configMap('before'))).status).toBe(201);
    await h.create(VALIDATING, configuration('guard', ['configmaps']));
    expect((await h.post(configMaps(h.ns), configMap('created'))).status).toBe(403);
    const updated = await h.put(`${VALIDATING}/guard`, configuration('guard', ['secrets']));
    expect(updated.status).toBe(200);
    expect((await h.post(configMaps(h.ns), configMap('updated'))).status).toBe(201);
    expect(
      (await h.patch(`${VALIDATING}/guard`, [{ op: 'replace', path: '/webhooks/0/rules/0/resources', value: ['configmaps'] }], 'json'))
        .status,
    ).toBe(200);
    expect((await h.post(configMaps(h.ns), configMap('patched'))).status).toBe(403);
    expect((await h.delete(`${VALIDATING}/guard`)).status).toBe(200);
    expect((await h.post(configMaps(h.ns), configMap('deleted'))).status).toBe(201);
  });

  it('a configuration written through another server on the same store applies to the next request', async () => {
    expect((await other.post(VALIDATING, configuration('elsewhere', ['configmaps']))).status).toBe(201);
    expect((await h.post(configMaps(h.ns), configMap('elsewhere'))).status).toBe(403);
    expect((await other.delete(`${VALIDATING}/elsewhere`)).status).toBe(200);
    expect((await h.post(configMaps(h.ns), configMap('elsewhere'))).status).toBe(201);
  });

  it('a write through the server applies to its next request before any watch event arrives (as on etcd)', async () => {
    // A store whose watches never deliver: only the write handlers' notice can make the read stale.
    const never = (): Watch => ({ close: () => {}, [Symbol.asyncIterator]: () => ({ next: () => new Promise<never>(() => {}) }) });
    const silent = storeWith(await createStore('memory', { compactionIntervalMs: 0 }), (key) => (key === 'watch' ? never : undefined));
    const lone = await startServer({ store: silent, server: { admission: [validatingWebhookAdmission({ log: () => {} })] } });
    try {
      expect((await lone.post(configMaps(lone.ns), configMap('before'))).status).toBe(201);
      await lone.create(VALIDATING, configuration('noted', ['configmaps']));
      expect((await lone.post(configMaps(lone.ns), configMap('after'))).status).toBe(403);
      expect((await lone.delete(`${VALIDATING}/noted`)).status).toBe(200);
      expect((await lone.post(configMaps(lone.ns), configMap('again'))).status).toBe(201);
    } finally {
      await lone.close();
    }
  });

  it('writes of other objects do not read the configurations again', async () => {
    await h.create(VALIDATING, configuration('quiet', ['secrets']));
    expect((await h.post(configMaps(h.ns), configMap('first'))).status).toBe(201);
    const lists = counting.configLists();
    for (let i = 0; i < 5; i++) {
      expect((await h.post(configMaps(h.ns), configMap(`unrelated-${i}`))).status).toBe(201);
      expect((await h.patch(`${configMaps(h.ns)}/unrelated-${i}`, { data: { b: String(i) } })).status).toBe(200);
    }
    expect(counting.configLists()).toBe(lists);
  });
});
