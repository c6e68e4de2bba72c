/** etcd's gRPC failures as the Store contract's errors, for the store and its watches. */
import {
  StoreClosedError,
  StoreConflictError,
  StoreExpiredError,
  StoreFutureRevisionError,
  StoreKeyExistsError,
  StoreNotFoundError,
  StoreUnavailableError,
} from './errors.js';
import { type GrpcError, GrpcStatus } from './etcd-wire.js';

export function grpcCode(error: unknown): number | undefined {
  return typeof (error as GrpcError)?.code === 'number' ? (error as GrpcError).code : undefined;
}

export function isCompactedError(error: unknown): boolean {
  return grpcCode(error) === GrpcStatus.OUT_OF_RANGE && /compacted/.test((error as GrpcError).details ?? '');
}

export function isFutureRevisionError(error: unknown): boolean {
  return grpcCode(error) === GrpcStatus.OUT_OF_RANGE && /future revision/.test((error as GrpcError).details ?? '');
}

export function isContractError(error: unknown): boolean {
  return (
    error instanceof StoreKeyExistsError ||
    error instanceof StoreNotFoundError ||
    error instanceof StoreConflictError ||
    error instanceof StoreClosedError ||
    error instanceof StoreUnavailableError ||
    error instanceof RangeError
  );
}

/** Any transport or server failure, as the contract's StoreUnavailableError (the cause kept). */
export function unavailable(error: unknown, doing: string): Error {
  if (isContractError(error) || error instanceof StoreExpiredError || error instanceof StoreFutureRevisionError) {
    return error as Error;
  }
  const detail = (error as GrpcError)?.details || (error as Error)?.message || String(error);
  return new StoreUnavailableError(`etcd did not answer while ${doing}: ${detail}`, { cause: error });
}
