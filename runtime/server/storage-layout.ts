/**
 * Objects are keyed as kube-apiserver keys them (`/registry/<resource>/...`). Stores written before
 * that layout kept `/<group or core>/<resource>/...`: their objects would silently vanish behind
 * the new keys, so a server refuses such a store, saying why, and changes nothing.
 */
import { type Store, StoreConfigError } from '../store/index.js';

/** Every store of the old layout holds its namespaces here (the server creates `default` at start). */
const OLD_LAYOUT_NAMESPACES = '/core/namespaces/';

export async function assertStorageLayout(store: Store): Promise<void> {
  if ((await store.count(OLD_LAYOUT_NAMESPACES)) === 0) return;
  throw new StoreConfigError(
    'the store holds objects in the key layout of an earlier svckit (/core/<resource>/...), not under /registry/; ' +
      'export them with the old version (kubectl get -o yaml) and start this one on a new store, or keep using the old version',
  );
}
