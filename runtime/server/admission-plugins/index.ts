/**
 * The admission plugins of the reference server (upstream's names): MutatingAdmissionWebhook and
 * ValidatingAdmissionWebhook (configurations read from the store), EventRateLimit and
 * ImagePolicyWebhook (configured from an AdmissionConfiguration).
 */
export { mutatingWebhookAdmission, validatingWebhookAdmission, type WebhookAdmissionOptions } from './webhooks.js';
