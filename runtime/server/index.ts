export { ApiServer, type ApiServerOptions, type ServingTls, mergeCatalogs } from './server.js';
export { storeObjectGetter } from './object-getter.js';
export { type GroupNamed, withGroupSuffix } from './group-suffix.js';
export type {
  AdmissionHost,
  AdmissionOperation,
  AdmissionPlugin,
  AdmissionPluginSource,
  AdmissionRequest,
  RuleChecker,
} from './admission.js';
export { celRuleChecker, checkRules } from './cel-rules.js';
export type { Stage } from './chain.js';
export type {
  RequestAuthorizer,
  AuthorizationVerdict,
  DeleteTarget,
  HandlerCatalog,
  HookHost,
  KindHook,
  RequestContext,
  CustomResourceHost,
  ServerContext,
  SubresourceHandler,
  SubresourceMethod,
  Target,
  TypeDefaulter,
  VirtualCreateHandler,
} from './context.js';
export {
  DEFAULT_RELEASE,
  ResourceRegistry,
  RuntimeConfigError,
  type ServedResource,
  isRuntimeConfigError,
  storagePrefixOf,
  parseRuntimeConfig,
} from './resources.js';
export {
  ALLOW_ALL,
  ANONYMOUS,
  type ChainPolicies,
  EXPLAIN_PATH,
  IMPERSONATION_GROUP,
  type RequestAuthenticator,
  type RateLimiter,
  servedApiVersion,
} from './stages/index.js';
export { INITIAL_EVENTS_END } from './watch.js';
export {
  type EventLimit,
  type EventLimitType,
  eventRateLimit,
  IMAGE_POLICY_ANNOTATION_MARK,
  IMAGE_POLICY_AUDIT_PREFIX,
  type ImagePolicyConfig,
  imagePolicyWebhook,
  mutatingWebhookAdmission,
  validatingAdmissionPolicy,
  validatingWebhookAdmission,
  compileCondition,
  compilePolicyExpression,
} from './admission-plugins/index.js';

/**
 * The handler kit: what the built-in kinds' handlers (reference/kinds) and a project's own
 * `HandlerCatalog` entries build on: reading, writing and deleting through the store as the verb
 * handlers do, admission of the writes a handler makes, and the objects' encoding.
 */
export { admit, admitControllerDelete, admitControllerWrite, admitSubresourceCreate, invalidObject } from './admission.js';
export { type DeleteOptions, deleteObject, deleteOptions, markDeleted, removeIfFinalized } from './delete.js';
export { type Body, type Reply, parseJsonBody, readBody } from './http.js';
export { collectionPrefix, decodeObject, decodeObjects, encodeObject, objectKey } from './objects.js';
export type { ExternalConversion } from './conversion.js';
export { applyPatch } from './patch.js';
export { writeOptions } from './query.js';
export { readCurrent } from './read.js';
export { StoreFollower } from './store-follower.js';
export { nextForWrite } from './subresource.js';
export { fromStoreError, parseRevision } from './versions.js';
export { updateObject, writeUpdate } from './write.js';
