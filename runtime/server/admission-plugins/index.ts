/**
 * The admission plugins of the reference server (upstream's names): MutatingAdmissionWebhook and
 * ValidatingAdmissionWebhook (configurations read from the store), EventRateLimit and
 * ImagePolicyWebhook (configured from an AdmissionConfiguration).
 */
export { mutatingWebhookAdmission, validatingWebhookAdmission, type WebhookAdmissionOptions } from './webhooks.js';
export { type EventLimit, type EventLimitType, type EventRateLimitOptions, eventRateLimit } from './event-rate-limit.js';
export {
  IMAGE_POLICY_ANNOTATION_MARK,
  IMAGE_POLICY_AUDIT_PREFIX,
  type ImagePolicyConfig,
  type ImagePolicyOptions,
  imagePolicyWebhook,
} from './image-policy.js';
export { compileCondition } from './webhook-configs.js';
export { compilePolicyExpression, validatingAdmissionPolicy } from './policies.js';
