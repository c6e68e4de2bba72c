import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createStore } from './create-store.js';
import { MemoryStore } from './memory-store.js';
import { SqliteStore } from './sqlite-store.js';
import { runStoreSuite } from './store-suite.testing.js';
import type { Store } from './types.js';

const dir = mkdtempSync(join(tmpdir(), 'svckit-sqlite-store-'));
let files = 0;
const freshFile = (): string => join(dir, `store-${++files}.db`);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

runStoreSuite('sqlite', (options) => new SqliteStore(freshFile(), options));

describe('sqlite store', () => {
  const opened: Store[] = [];
  const open = (file: string, now?: () => number): SqliteStore => {
    const store = new SqliteStore(file, { compactionIntervalMs: 0, ...(now ? { now } : {}) });
    opened.push(store);
    return store;
  };

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  it('keeps every acknowledged write across a reopen and continues the revisions', async () => {
    const file = freshFile();
    const first = open(file);
    await first.create('/k/a', 'a1');
    await first.update('/k/a', 'a2');
    await first.create('/k/b', 'b1');
    await first.delete('/k/b');
    await first.close();

    const second = open(file);
    expect(await second.currentRevision()).toBe(4);
    expect(await second.get('/k/a')).toEqual({ key: '/k/a', value: 'a2', modRevision: 2, createRevision: 1 });
    expect((await second.get('/k/a', { revision: 1 }))?.value).toBe('a1');
    expect(await second.get('/k/b')).toBeUndefined();
    expect((await second.create('/k/c', 'c1')).modRevision).toBe(5);
  });

  it('keeps the compacted revision and the sequence after compacting a trailing delete', async () => {
    const file = freshFile();
    let time = 1_000_000;
    const first = open(file, () => time);
    await first.create('/k/a', 'a1');
    await first.delete('/k/a');
    time += 10 * 60_000;
    await first.compact();
    expect(await first.compactedRevision()).toBe(2);
    await first.close();

    const second = open(file, () => time);
    expect(await second.compactedRevision()).toBe(2);
    expect(await second.currentRevision()).toBe(2);
    await expect(second.get('/k/a', { revision: 1 })).rejects.toMatchObject({ name: 'StoreExpiredError' });
    expect((await second.create('/k/a', 'a2')).modRevision).toBe(3);
  });

  it('answers reads of a key written again in the same group commit from the uncommitted row, not the cached one', async () => {
    const store = open(freshFile());
    const created = await store.create('/k/a', 'a1');
    expect((await store.get('/k/a'))?.value).toBe('a1'); // now cached
    // One turn of the event loop: one transaction. The delete must see the update before it.
    const [updated, deleted] = await Promise.allSettled([
      store.update('/k/a', 'a2'),
      store.delete('/k/a', { expectedModRevision: created.modRevision }),
    ]);
    expect(updated.status).toBe('fulfilled');
    expect(deleted).toMatchObject({ status: 'rejected', reason: { name: 'StoreConflictError' } });
    expect(await store.get('/k/a')).toMatchObject({ value: 'a2', modRevision: created.modRevision + 1 });
    expect((await store.get('/k/a', { revision: created.modRevision }))?.value).toBe('a1');
    await store.delete('/k/a');
    expect(await store.get('/k/a')).toBeUndefined();
    await expect(store.update('/k/a', 'a3')).rejects.toMatchObject({ name: 'StoreNotFoundError' });
  });

  it('runs in WAL mode with synchronous=FULL and an exclusive lock', () => {
    const store = open(freshFile());
    expect(store.pragmas()).toEqual({ journalMode: 'wal', synchronous: 2, lockingMode: 'exclusive' });
  });

  it('refuses a second opener of the same file while it is open', async () => {
    const file = freshFile();
    const store = open(file);
    await store.create('/k/a', '1');
    expect(() => new SqliteStore(file, { compactionIntervalMs: 0 })).toThrow(/locked/);
  });
});

describe('createStore', () => {
  it('opens a memory store', async () => {
    const store = await createStore('memory');
    expect(store).toBeInstanceOf(MemoryStore);
    await store.close();
  });

  it('opens a sqlite store, creating parent folders', async () => {
    const file = join(dir, 'nested', 'deeper', 'data.db');
    const store = await createStore(`sqlite:${file}`);
    expect(store).toBeInstanceOf(SqliteStore);
    await store.create('/k/a', '1');
    await store.close();
    expect(existsSync(file)).toBe(true);
  });

  it('names the accepted forms for an unknown spec', async () => {
    await expect(createStore('redis://x')).rejects.toThrow(/expected "memory", "sqlite:<path>" or "etcd:\/\/host:port"/);
    await expect(createStore('sqlite:')).rejects.toThrow(/names no file/);
  });
});
