import {
  type StatusError,
  alreadyExists,
  badRequest,
  notFound,
  objectModified,
  resourceExpired,
  serviceUnavailable,
  tooLargeResourceVersion as tooLarge,
  tooOldResourceVersion,
} from '../api/index.js';
import {
  isContinueTokenExpiredError,
  isContinueTokenInvalidError,
  isStoreConflictError,
  isStoreExpiredError,
  isStoreFutureRevisionError,
  isStoreKeyExistsError,
  isStoreNotFoundError,
  isStoreUnavailableError,
} from '../store/index.js';
import type { ServerContext } from './context.js';
import type { ServedResource } from './resources.js';

/** A resourceVersion as a store revision; anything but decimal digits is a 400. */
export function parseRevision(rv: string): number {
  if (!/^\d+$/.test(rv) || !Number.isSafeInteger(Number(rv))) {
    throw badRequest(`invalid resource version: ${JSON.stringify(rv)}: a resource version is a string of digits returned by the server`);
  }
  return Number(rv);
}

/**
 * Waits briefly for a revision the server has not reached; answers 504 "Too large resource
 * version" with Retry-After when it does not arrive, as the real system does.
 */
export async function awaitRevision(ctx: ServerContext, revision: number): Promise<void> {
  try {
    await ctx.store.waitForRevision(revision, ctx.settings.futureRevisionWaitMs);
  } catch (e) {
    if (!isStoreFutureRevisionError(e)) throw e;
    throw tooLargeResourceVersion(revision, await ctx.store.currentRevision());
  }
}

/** 504 `Timeout: Too large resource version: <requested>, current: <current>`, retry after 1 s, as upstream's cacher. */
export function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return tooLarge(requested, current, 1);
}

/** The Status error for a store error, named after the resource; undefined for other errors. */
export function fromStoreError(e: unknown, r: ServedResource, name: string | undefined): StatusError | undefined {
  if (isStoreNotFoundError(e)) return notFound(r, name ?? '');
  if (isStoreKeyExistsError(e)) return alreadyExists(r, name ?? '');
  if (isStoreConflictError(e)) return objectModified(r, name ?? '');
  if (isStoreExpiredError(e)) return tooOldResourceVersion(e.requestedRevision, e.compactedRevision);
  if (isStoreFutureRevisionError(e)) return tooLargeResourceVersion(e.requestedRevision, e.currentRevision);
  // The storage backend (etcd) cannot be reached: the client may retry, as upstream's 503.
  if (isStoreUnavailableError(e)) return serviceUnavailable(e.message);
  return fromTokenError(e);
}

/** The Status error for a continue-token error: 410 when expired, 400 when forged or malformed. */
export function fromTokenError(e: unknown): StatusError | undefined {
  if (isContinueTokenExpiredError(e)) {
    return resourceExpired(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
    );
  }
  if (isContinueTokenInvalidError(e)) return badRequest(e.message);
  return undefined;
}
