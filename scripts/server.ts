/**
 * `svckit/server`: the reference server and the pieces to build one. `startReferenceServer` serves
 * the built-in kinds; `ApiServer` serves any kinds (a project's own generated `allKinds`) over a
 * store from `createStore` (`memory`, or `sqlite:<path>`, which needs the optional better-sqlite3).
 */
export {
  type AdmissionPlugin,
  type AdmissionPluginSource,
  type AdmissionRequest,
  ApiServer,
  type ApiServerOptions,
  type EventLimit,
  eventRateLimit,
  type ImagePolicyConfig,
  imagePolicyWebhook,
  mutatingWebhookAdmission,
  type RuleChecker,
  validatingAdmissionPolicy,
  validatingWebhookAdmission,
} from '../runtime/server/index.js';
export { type Store, type StoreOptions, StoreConfigError, createStore, isStoreConfigError } from '../runtime/store/index.js';
export { type ReferenceServerOptions, type RunningServer, startReferenceServer } from './reference-server.js';
