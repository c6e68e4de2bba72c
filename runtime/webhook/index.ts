/**
 * runtime/webhook: the callback kit, for users who write the other side of the server's callbacks
 * in TypeScript. Each builder turns typed logic into a JSON handler; `serveWebhook` serves one over
 * HTTPS (with a self-signed certificate unless given one).
 *
 *   const hook = await serveWebhook(admissionWebhook((req) => {
 *     if (!req.object?.metadata) return deny('no metadata');
 *     (req.object.metadata as any).labels = { ...(req.object.metadata as any).labels, seen: 'yes' };
 *     return allow({ warnings: ['labelled'] });
 *   }));
 *   // register hook.url with caBundle = base64(hook.caBundle) in a MutatingWebhookConfiguration
 */
export { type AdmissionHandler, type AdmissionVerdict, admissionWebhook, allow, deny } from './admission.js';
export { type AuthorizationHandler, type AuthorizationVerdict, authorizationWebhook } from './authorization.js';
export { CONVERSION_REVIEW_API_VERSIONS, type ConversionHandler, conversionWebhook } from './conversion.js';
export { type ExecCredentialHandler, type ExecCredentialStatus, type ExecPluginIo, execCredentialPlugin } from './exec-credential.js';
export { type JsonHandler, WebhookRequestError, isWebhookRequestError } from './handler.js';
export { type ImagePolicyHandler, type ImagePolicyVerdict, imagePolicyBackend } from './image-policy.js';
export { type ServeWebhookOptions, type ServedWebhook, serveWebhook } from './serve.js';
export { type TlsKeyPair, selfSignedCertificate } from './tls.js';
export type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  ConversionReview,
  ExecCredential,
  GroupVersionKind,
  GroupVersionResource,
  ImageReview,
  ImageReviewContainerSpec,
  Operation,
  SubjectAccessReview,
  UserInfo,
} from './types.js';
export { ADMISSION_REVIEW_API_VERSIONS } from './types.js';
