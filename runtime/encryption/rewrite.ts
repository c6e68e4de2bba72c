/**
 * Key rotation's last step: every stored object of the configured resources is written again
 * with the current write key, as upstream's storage migration does (read, then an update that
 * is conditional on the revision read). Each write goes through the backend's compare-and-swap,
 * so a server writing at the same time is never overwritten: on a conflict the object is read
 * again and written with whatever it holds now (or left alone when the server already rewrote it).
 */
import { isStoreConflictError, isStoreNotFoundError } from '../store/index.js';
import type { EncryptingStore, StoredResource } from './encrypting-store.js';

export interface RewriteProgress {
  done: number;
  total: number;
  key: string;
}

export interface RewriteResult {
  /** Objects visited. */
  total: number;
  /** Objects written again (they were read with another key than the write key). */
  rewritten: number;
  /** Per key name (`aescbc/key1`, `identity`...): how many objects it held before the rewrite. */
  byKey: Map<string, number>;
}

const PAGE = 500;
const ATTEMPTS = 5;

/** Rewrites every object of `resources` that an entry of the store's configuration names. */
export async function rewriteStored(
  store: EncryptingStore,
  resources: readonly StoredResource[],
  onProgress: (p: RewriteProgress) => void = () => {},
): Promise<RewriteResult> {
  const prefixes = [...new Set(resources.filter((r) => store.encryption.covers(r.group, r.resource)).map((r) => r.storagePrefix))].sort();
  const inner = store.inner;
  let total = 0;
  for (const prefix of prefixes) total += await inner.count(prefix);
  const result: RewriteResult = { total: 0, rewritten: 0, byKey: new Map() };
  for (const prefix of prefixes) {
    let startAfter: string | undefined;
    for (;;) {
      const page = await inner.list(prefix, { limit: PAGE, countRemaining: false, ...(startAfter !== undefined ? { startAfter } : {}) });
      for (const kv of page.items) {
        const read = await store.read(kv.key, kv.value);
        result.byKey.set(read.keyName, (result.byKey.get(read.keyName) ?? 0) + 1);
        if (read.stale && (await rewriteOne(store, kv.key, kv.value, kv.modRevision))) result.rewritten++;
        result.total++;
        onProgress({ done: result.total, total: Math.max(total, result.total), key: kv.key });
      }
      if (!page.more || page.items.length === 0) break;
      startAfter = page.items[page.items.length - 1]!.key;
    }
  }
  return result;
}

/** One conditional rewrite, read again on a conflict; false when the object is gone or already current. */
async function rewriteOne(store: EncryptingStore, key: string, stored: string, modRevision: number): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const read = await store.read(key, stored);
    if (!read.stale) return false;
    try {
      await store.inner.update(key, await store.write(key, read.value), { expectedModRevision: modRevision });
      return true;
    } catch (e) {
      if (isStoreNotFoundError(e)) return false;
      if (!isStoreConflictError(e) || attempt === ATTEMPTS) throw e;
      const now = await store.inner.get(key);
      if (!now) return false;
      stored = now.value;
      modRevision = now.modRevision;
    }
  }
}
