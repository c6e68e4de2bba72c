/**
 * Errors of the storage layer. Each has a `name` and a type guard, so the server can turn them into
 * Status responses in one place: key exists -> 409 AlreadyExists, not found -> 404, conflict -> 409,
 * expired revision or continue token -> 410, future revision -> 504, invalid continue token -> 400,
 * unavailable backend -> 503.
 */

/** `key` already holds a value (create). */
export class StoreKeyExistsError extends Error {
  override readonly name = 'StoreKeyExistsError';
  constructor(readonly key: string) {
    super(`key ${JSON.stringify(key)} already exists`);
  }
}

/** `key` holds no value (update, delete). */
export class StoreNotFoundError extends Error {
  override readonly name = 'StoreNotFoundError';
  constructor(readonly key: string) {
    super(`key ${JSON.stringify(key)} not found`);
  }
}

/** A conditional write expected another modRevision than the key has. */
export class StoreConflictError extends Error {
  override readonly name = 'StoreConflictError';
  constructor(
    readonly key: string,
    readonly expectedModRevision: number,
    readonly actualModRevision: number,
  ) {
    super(`key ${JSON.stringify(key)} is at revision ${actualModRevision}, the write expected ${expectedModRevision}`);
  }
}

/** A read or watch asked for a revision that compaction has already dropped. */
export class StoreExpiredError extends Error {
  override readonly name = 'StoreExpiredError';
  constructor(
    readonly requestedRevision: number,
    readonly compactedRevision: number,
  ) {
    super(`revision ${requestedRevision} is no longer retained; the oldest readable revision is ${compactedRevision}`);
  }
}

/** A read or watch asked for a revision newer than the current one (the server answers 504). */
export class StoreFutureRevisionError extends Error {
  override readonly name = 'StoreFutureRevisionError';
  constructor(
    readonly requestedRevision: number,
    readonly currentRevision: number,
  ) {
    super(`revision ${requestedRevision} is newer than the current revision ${currentRevision}`);
  }
}

/** The store was closed. */
export class StoreClosedError extends Error {
  override readonly name = 'StoreClosedError';
  constructor() {
    super('the store is closed');
  }
}

/**
 * A networked backend could not answer: the connection is lost, the cluster has no leader, or a
 * call timed out (the server answers 503 ServiceUnavailable; the client retries). For a write, the
 * message says when its outcome is unknown (it may have committed).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A continue token that is malformed, forged, tampered with or issued for another collection. */
export class ContinueTokenInvalidError extends Error {
  override readonly name = 'ContinueTokenInvalidError';
  constructor(readonly reason: string) {
    super(`invalid continue token: ${reason}`);
  }
}

/** A continue token older than its lifetime (the server answers 410). */
export class ContinueTokenExpiredError extends Error {
  override readonly name = 'ContinueTokenExpiredError';
  constructor(
    readonly issuedAt: number,
    readonly ttlMs: number,
  ) {
    super(`continue token issued at ${new Date(issuedAt).toISOString()} expired after ${ttlMs} ms`);
  }
}

export const isStoreKeyExistsError = (e: unknown): e is StoreKeyExistsError => e instanceof StoreKeyExistsError;
export const isStoreNotFoundError = (e: unknown): e is StoreNotFoundError => e instanceof StoreNotFoundError;
export const isStoreConflictError = (e: unknown): e is StoreConflictError => e instanceof StoreConflictError;
export const isStoreExpiredError = (e: unknown): e is StoreExpiredError => e instanceof StoreExpiredError;
export const isStoreFutureRevisionError = (e: unknown): e is StoreFutureRevisionError => e instanceof StoreFutureRevisionError;
export const isStoreUnavailableError = (e: unknown): e is StoreUnavailableError => e instanceof StoreUnavailableError;
export const isStoreClosedError = (e: unknown): e is StoreClosedError => e instanceof StoreClosedError;
export const isContinueTokenInvalidError = (e: unknown): e is ContinueTokenInvalidError => e instanceof ContinueTokenInvalidError;
export const isContinueTokenExpiredError = (e: unknown): e is ContinueTokenExpiredError => e instanceof ContinueTokenExpiredError;
