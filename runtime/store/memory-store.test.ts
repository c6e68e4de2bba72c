import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareKeys } from './key-order.js';
import { MemoryStore } from './memory-store.js';
import { runStoreSuite } from './store-suite.testing.js';

runStoreSuite('memory', (options) => new MemoryStore(options));

describe('memory store key order', () => {
  it('lists in code point order whichever keys came first, characters above U+FFFF among them or not', async () => {
    const unit = fc.constantFrom('a', 'z', '\uE000', '\uFFFD', '\uFFFF', '\u{1F600}', '\u{10000}');
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.array(unit, { minLength: 1, maxLength: 3 }).map((u) => `/k/${u.join('')}`)), async (keys) => {
        const store = new MemoryStore();
        for (const key of keys) await store.create(key, key);
        const listed = (await store.list('/k/')).items.map((i) => i.key);
        expect(listed).toEqual([...keys].sort(compareKeys));
        store.close();
      }),
    );
  });
});

describe('memory store searches', () => {
  it('places a start key above U+FFFF in code point order though no stored key has one', async () => {
    const store = new MemoryStore({ compactionIntervalMs: 0 });
    for (const key of ['/k/a', '/k/a\uE000', '/k/b']) await store.create(key, 'v');
    // U+1F600 sorts after U+E000 in code point order (before it in UTF-16 units).
    const page = await store.list('/k/', { startAfter: '/k/a\u{1F600}', limit: 5 });
    expect(page.items.map((i) => i.key)).toEqual(['/k/b']);
    expect(await store.list('/k/', { startAfter: '/k/a\u{1F600}', limit: 1 })).toMatchObject({ remaining: 0 });
    await store.close();
  });
});

describe('memory store counts', () => {
  it('counts at the current revision what a list returns, through creates, deletes, re-creates and compactions', async () => {
    const key = fc.constantFrom('/a/x', '/a/y', '/a/b/z', '/ab', '/b/\u{1F600}', '/b/\uFFFF', '/b/c');
    const op = fc.oneof(
      fc.record({ kind: fc.constant('put' as const), key }),
      fc.record({ kind: fc.constant('delete' as const), key }),
      fc.record({ kind: fc.constant('compact' as const) }),
    );
    const prefixes = ['/', '/a/', '/a', '/a/b/', '/b/', '/c/'];
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        const store = new MemoryStore({ compactionIntervalMs: 0, historyWindowMs: 0 });
        for (const o of ops) {
          if (o.kind === 'compact') await store.compact();
          else if (o.kind === 'delete') await store.delete(o.key).catch(() => undefined);
          else await store.update(o.key, 'v').catch(() => store.create(o.key, 'v'));
          for (const prefix of prefixes) {
            const listed = (await store.list(prefix)).items.map((i) => i.key);
            expect(await store.count(prefix)).toBe(listed.length);
            for (const [i, after] of listed.entries()) {
              const page = await store.list(prefix, { limit: 1, startAfter: after });
              expect(page.remaining ?? 0).toBe(Math.max(0, listed.length - i - 2));
            }
          }
        }
        await store.close();
      }),
    );
  });
});
