/**
 * `svckit/server`: the reference server and the pieces to build one. `startReferenceServer` serves
 * the built-in kinds; `ApiServer` serves any kinds (a project's own generated `allKinds`) over a
 * store from `createStore` (`memory`, or `sqlite:<path>`, which needs the optional better-sqlite3).
 * `EncryptionAtRest.load(file, allKinds)` gives either one encryption at rest (their `encryption` option).
 */
export { ApiServer, type ApiServerOptions, type RuleChecker } from '../runtime/server/index.js';
export { type Store, type StoreOptions, StoreConfigError, createStore, isStoreConfigError } from '../runtime/store/index.js';
export {
  EncryptionAtRest,
  EncryptionConfigError,
  type KmsPluginOptions,
  type RunningKmsPlugin,
  isEncryptionConfigError,
  startKmsPlugin,
} from '../runtime/encryption/index.js';
export { type ReferenceServerOptions, type RunningServer, startReferenceServer } from './reference-server.js';
