import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { MemoryStore, isStoreConfigError } from '../store/index.js';
import { builtinHandlers } from '../../reference/kinds/index.js';
import { ApiServer } from './server.js';

describe('the storage key layout', () => {
  it('keeps objects under /registry/<resource>/<namespace>/<name>', async () => {
    const store = new MemoryStore();
    const server = new ApiServer({ kinds: allKinds, store, handlers: builtinHandlers, log: () => undefined });
    const url = await server.listen();
    try {
      for (const [path, body] of [
        ['/api/v1/namespaces', { metadata: { name: 'ns1' } }],
        ['/api/v1/namespaces/ns1/configmaps', { metadata: { name: 'c1' } }],
        ['/api/v1/nodes', { metadata: { name: 'n1' } }],
      ] as const) {
        const res = await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status, path).toBe(201);
      }
      const keys = (await store.list('/')).items.map((kv) => kv.key);
      expect(keys).toEqual(expect.arrayContaining(['/registry/namespaces/ns1', '/registry/configmaps/ns1/c1', '/registry/minions/n1']));
      expect(keys.filter((k) => !k.startsWith('/registry/') && !k.startsWith('/svckit/'))).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('refuses a store written in the old /core/... layout, saying why, and writes nothing', async () => {
    const store = new MemoryStore();
    await store.create('/core/namespaces/default', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }));
    const before = await store.currentRevision();
    const server = new ApiServer({ kinds: allKinds, store, handlers: builtinHandlers, log: () => undefined });
    const error = await server.listen().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isStoreConfigError(error)).toBe(true);
    expect((error as Error).message).toContain('/core/<resource>');
    expect(await store.currentRevision()).toBe(before);
    await server.close().catch(() => undefined);
  });
});
