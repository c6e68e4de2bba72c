export type * from './types.js';
export { StoreConfigError, createStore, isStoreConfigError } from './create-store.js';
export { MemoryStore } from './memory-store.js';
export type { SqliteStore, SqlitePragmas } from './sqlite-store.js';
export type { EtcdStore, EtcdStoreOptions } from './etcd-store.js';
export {
  type ContinuePosition,
  type DecodeContinueTokenOptions,
  DEFAULT_CONTINUE_TOKEN_TTL_MS,
  createContinueTokenSecret,
  decodeContinueToken,
  encodeContinueToken,
} from './continue-token.js';
export {
  ContinueTokenExpiredError,
  ContinueTokenInvalidError,
  StoreClosedError,
  StoreConflictError,
  StoreExpiredError,
  StoreFutureRevisionError,
  StoreKeyExistsError,
  StoreNotFoundError,
  StoreUnavailableError,
  isContinueTokenExpiredError,
  isContinueTokenInvalidError,
  isStoreClosedError,
  isStoreConflictError,
  isStoreExpiredError,
  isStoreFutureRevisionError,
  isStoreKeyExistsError,
  isStoreNotFoundError,
  isStoreUnavailableError,
} from './errors.js';
