/**
 * Snapshots of a server's objects, and restoring one in place: what a test server's `reset()`
 * does between tests instead of a restart. A restore writes through the store, so watchers see
 * the changes as events and resource versions keep rising (a restored object gets a new one).
 */
import type { Store } from '../../runtime/store/index.js';

/** Every stored object, by key, as stored. */
export type Snapshot = ReadonlyMap<string, string>;

/** Where the server keeps objects (resources' prefixes start here; its own bookkeeping does not). */
const OBJECTS = '/registry/';

export async function takeSnapshot(store: Store): Promise<Snapshot> {
  const page = await store.list(OBJECTS);
  return new Map(page.items.map((kv) => [kv.key, kv.value]));
}

/** Makes the store hold exactly the snapshot's objects: deletes the others, writes what differs. */
export async function restoreSnapshot(store: Store, snapshot: Snapshot): Promise<void> {
  const page = await store.list(OBJECTS);
  const current = new Map(page.items.map((kv) => [kv.key, kv]));
  for (const [key, kv] of current) {
    if (!snapshot.has(key)) await store.delete(key, { expectedModRevision: kv.modRevision });
  }
  for (const [key, value] of snapshot) {
    const kv = current.get(key);
    if (!kv) await store.create(key, value);
    else if (kv.value !== value) await store.update(key, value, { expectedModRevision: kv.modRevision });
  }
}
