/**
 * `svckit/server`: the reference server and the pieces to build one. `startReferenceServer` serves
 * the built-in kinds; `ApiServer` serves any kinds (a project's own generated `allKinds`) over a
 * store from `createStore` (`memory`, or `sqlite:<path>`, which needs the optional better-sqlite3);
 * `parseFeatureGates` reads a `--feature-gates` value for its `featureGates` option.
 */
export { FeatureGateError, FeatureGates, KNOWN_FEATURES, isFeatureGateError, parseFeatureGates } from '../runtime/features/index.js';
export { ApiServer, type ApiServerOptions, type RuleChecker } from '../runtime/server/index.js';
export { type Store, type StoreOptions, StoreConfigError, createStore, isStoreConfigError } from '../runtime/store/index.js';
export { type ReferenceServerOptions, type RunningServer, startReferenceServer } from './reference-server.js';
