/**
 * `svckit/server`: the reference server and the pieces to build one. `startReferenceServer` serves
 * the built-in kinds; `ApiServer` serves any kinds (a project's own generated `allKinds`) over a
 * store from `createStore` (`memory`, or `sqlite:<path>`, which needs the optional better-sqlite3),
 * with the named handlers its kinds declare in its `handlers` option: `builtinHandlers` for the
 * built-in kinds, `mergeCatalogs(builtinHandlers, own)` to add a project's own.
 * `EncryptionAtRest.load(file, allKinds)` gives either one encryption at rest (their `encryption` option).
 * `Auditor` with an `AuditPolicy` and a backend (`MemoryAuditBackend` for tests) records requests
 * (`audit` option); `ApiServerMetrics` are the metrics `/metrics` exports; `parseFeatureGates`
 * reads a `--feature-gates` value for the `featureGates` option; the admission plugins (webhooks,
 * ValidatingAdmissionPolicy, EventRateLimit, ImagePolicyWebhook) go in the `admission` option.
 */
export { FeatureGateError, FeatureGates, KNOWN_FEATURES, isFeatureGateError, parseFeatureGates } from '../runtime/features/index.js';
export {
  type AuditEvent,
  AuditPolicy,
  Auditor,
  LogFileAuditBackend,
  MemoryAuditBackend,
  type PolicyInput,
  StreamAuditBackend,
  unionBackend,
} from '../runtime/audit/index.js';
export { ApiServerMetrics, MetricRegistry } from '../runtime/metrics/index.js';
export {
  type AdmissionPlugin,
  type AdmissionPluginSource,
  type AdmissionRequest,
  ApiServer,
  type ApiServerOptions,
  type HandlerCatalog,
  mergeCatalogs,
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
export {
  EncryptionAtRest,
  EncryptionConfigError,
  type KmsPluginOptions,
  type RunningKmsPlugin,
  isEncryptionConfigError,
  startKmsPlugin,
} from '../runtime/encryption/index.js';
export { builtinHandlers } from './kinds/index.js';
export { DEFAULT_STORE, type ReferenceServerOptions, type RunningServer, startReferenceServer } from './reference-server.js';

// The wiring svckit's own commands (scripts/: flags to these options), benchmarks and checks build on.
export {
  AUTHORIZATION_MODES,
  type AccessControlOptions,
  type AuthorizationMode,
  accessControl,
  authenticates,
  refusesAnonymous,
} from './access-control.js';
export { startConformanceServer } from './conformance-server.js';
export { type SecureServing, prepareSecureServing, writeAdminClientConfig } from './secure-serving.js';
export type { ServiceAccountOptions } from './service-accounts.js';
