import type { ObjectGetter } from '../auth/index.js';
import type { ServerContext } from './context.js';
import { readCurrent } from './read.js';

/**
 * The service-account token authenticator's view of the server's core objects: a read of the
 * store at its current revision, so a deleted account or pod revokes its tokens for the very next
 * request. `server` is read lazily: the authenticator is made before the server whose store it reads.
 */
export function storeObjectGetter(server: () => Pick<ServerContext, 'store' | 'registry'>): ObjectGetter {
  return async (resource, namespace, name) => {
    const ctx = server();
    const r = ctx.registry.get('', 'v1', resource);
    return r ? (await readCurrent(ctx, r, namespace, name))?.object : undefined;
  };
}
