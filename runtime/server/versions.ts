import { StatusError, tooLargeResourceVersion as tooLarge } from '../api/index.js';
import {
  isContinueTokenExpiredError,
  isContinueTokenInvalidError,
  isStoreConflictError,
  isStoreExpiredError,
  isStoreFutureRevisionError,
  isStoreKeyExistsError,
  isStoreNotFoundError,
} from '../store/index.js';
import type { ServerContext } from './context.js';
import type { ServedResource } from './resources.js';

/** A resourceVersion as a store revision; anything but decimal digits is a 400. */
export function parseRevision(rv: string): number {
  if (!/^\d+$/.test(rv) || !Number.isSafeInteger(Number(rv))) {
    throw new StatusError({ code: 400, reason: 'BadRequest', message: `invalid resource version: ${JSON.stringify(rv)}: a resource version is a string of digits returned by the server` });
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

export function expired(message: string): StatusError {
  return new StatusError({ code: 410, reason: 'Expired', message });
}

/** The Status error for a store error, named after the resource; undefined for other errors. */
export function fromStoreError(e: unknown, r: ServedResource, name: string | undefined): StatusError | undefined {
  const resource = r.group ? `${r.resource}.${r.group}` : r.resource;
  const details = { name: name ?? '', group: r.group, kind: r.resource };
  if (isStoreNotFoundError(e)) return new StatusError({ code: 404, reason: 'NotFound', message: `${resource} "${name}" not found`, details });
  if (isStoreKeyExistsError(e)) return alreadyExists(r, name ?? '');
  if (isStoreConflictError(e)) return conflict(r, name ?? '', 'the object has been modified; please apply your changes to the latest version and try again');
  if (isStoreExpiredError(e)) return expired(`too old resource version: ${e.requestedRevision} (${e.compactedRevision})`);
  if (isStoreFutureRevisionError(e)) return tooLargeResourceVersion(e.requestedRevision, e.currentRevision);
  return fromTokenError(e);
}

/** The Status error for a continue-token error: 410 when expired, 400 when forged or malformed. */
export function fromTokenError(e: unknown): StatusError | undefined {
  if (isContinueTokenExpiredError(e)) {
    return expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
  }
  if (isContinueTokenInvalidError(e)) return new StatusError({ code: 400, reason: 'BadRequest', message: e.message });
  return undefined;
}

export function conflict(r: ServedResource, name: string, why: string): StatusError {
  const resource = r.group ? `${r.resource}.${r.group}` : r.resource;
  return new StatusError({ code: 409, reason: 'Conflict', message: `Operation cannot be fulfilled on ${resource} "${name}": ${why}`, details: { name, group: r.group, kind: r.resource } });
}

export function notFound(r: ServedResource, name: string): StatusError {
  const resource = r.group ? `${r.resource}.${r.group}` : r.resource;
  return new StatusError({ code: 404, reason: 'NotFound', message: `${resource} "${name}" not found`, details: { name, group: r.group, kind: r.resource } });
}

export function alreadyExists(r: ServedResource, name: string): StatusError {
  const resource = r.group ? `${r.resource}.${r.group}` : r.resource;
  return new StatusError({ code: 409, reason: 'AlreadyExists', message: `${resource} "${name}" already exists`, details: { name, group: r.group, kind: r.resource } });
}
