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
