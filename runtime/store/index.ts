export type * from './types.js';
export { createStore } from './create-store.js';
export { MemoryStore } from './memory-store.js';
export { SqliteStore, type SqlitePragmas } from './sqlite-store.js';
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
  isContinueTokenExpiredError,
  isContinueTokenInvalidError,
  isStoreClosedError,
  isStoreConflictError,
  isStoreExpiredError,
  isStoreFutureRevisionError,
  isStoreKeyExistsError,
  isStoreNotFoundError,
} from './errors.js';
