export { ApiServer, type ApiServerOptions, type ServingTls } from './server.js';
export { StoreRbacLister } from './rbac-lister.js';
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
export {
  builtinHandlers,
  DEFAULT_SERVICE_CIDR,
  kubernetesServiceIP,
  parseServiceCidr,
  namespaceDefaults,
  type NamespaceDefaultsOptions,
  serviceClusterIPs,
  tokenRequest,
  type TokenRequestOptions,
} from './builtin/index.js';
export { celRuleChecker, checkRules } from './cel-rules.js';
export { defaultErrors, ruleErrors, storedDefinitionResources } from './custom-resources/index.js';
export type { Stage } from './chain.js';
export type {
  Authorizer,
  Decision,
  DeleteTarget,
  HandlerCatalog,
  HookHost,
  KindHook,
  RequestContext,
  SubresourceHandler,
  SubresourceMethod,
  Target,
  VirtualCreateHandler,
} from './context.js';
export type { Body, Reply } from './http.js';
export {
  DEFAULT_RELEASE,
  ResourceRegistry,
  RuntimeConfigError,
  type ServedResource,
  isRuntimeConfigError,
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
} from './admission-plugins/index.js';
