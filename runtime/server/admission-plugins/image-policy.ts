import { forbidden } from '../../api/index.js';
import { TtlCache, type WebhookConnection, httpsJson } from '../../auth/index.js';
import { isJsonObject } from '../../json/index.js';
import type { AdmissionHost, AdmissionPlugin, AdmissionRequest } from '../admission.js';

/** The `imagePolicy` member of the ImagePolicyWebhook plugin's configuration (TTLs in seconds, backoff in ms). */
export interface ImagePolicyConfig {
  /** Where the backend is and how to trust it (read from the configuration's kubeConfigFile). */
  connection: WebhookConnection;
  /** Default 300 s. */
  allowTTL?: number;
  /** Default 30 s. */
  denyTTL?: number;
  /** Default 500 ms; the wait before the one retry of a failed call. */
  retryBackoff?: number;
  /** Whether pods are admitted when the backend cannot be reached (with an audit annotation). */
  defaultAllow?: boolean;
}

export interface ImagePolicyOptions {
  now?: () => number;
  /** Per-call timeout; default 10 s. */
  timeoutMs?: number;
}

/**
 * Pod annotations with this in their key are sent to the backend (upstream's `*.image-policy.k8s.io/*`).
 * These names are the spec's; a server with another group suffix uses them under it.
 */
export const IMAGE_POLICY_ANNOTATION_MARK = '.image-policy.svc.io/';
/** The prefix of the plugin's audit annotations. */
export const IMAGE_POLICY_AUDIT_PREFIX = 'imagepolicywebhook.image-policy.svc.io/';
const IMAGE_REVIEW_API_VERSION = 'imagepolicy.svc.io/v1alpha1';

interface ReviewStatus {
  allowed: boolean;
  reason?: string;
  auditAnnotations?: Record<string, string>;
}

/**
 * ImagePolicyWebhook: asks an image policy backend, with an ImageReview, whether the images of a
 * pod (containers, init and ephemeral containers) may run. Answers are cached by review for
 * allowTTL or denyTTL; a denial is 403. When the backend cannot be reached the pod is refused, or
 * with `defaultAllow` admitted and the request annotated `failed-open`.
 */
export function imagePolicyWebhook(config: ImagePolicyConfig, options: ImagePolicyOptions = {}): (host: AdmissionHost) => AdmissionPlugin {
  const now = options.now ?? Date.now;
  const cache = new TtlCache<ReviewStatus>(10_000, now);
  const allowTtlMs = (config.allowTTL || 300) * 1000;
  const denyTtlMs = (config.denyTTL || 30) * 1000;
  const ask = async (review: Record<string, unknown>): Promise<ReviewStatus> => {
    let last: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, config.retryBackoff ?? 500));
      try {
        const res = await httpsJson(config.connection.url, {
          method: 'POST',
          body: review,
          timeoutMs: options.timeoutMs ?? 10_000,
          ...(config.connection.ca ? { ca: config.connection.ca } : {}),
          ...(config.connection.cert ? { cert: config.connection.cert, key: config.connection.key } : {}),
          ...(config.connection.token ? { headers: { authorization: `Bearer ${config.connection.token}` } } : {}),
        });
        if (res.status < 200 || res.status >= 300) throw new Error(`Error contacting webhook: ${res.status}`);
        const status = isJsonObject(res.json) && isJsonObject(res.json.status) ? res.json.status : undefined;
        if (!status || typeof status.allowed !== 'boolean') throw new Error('the webhook answered no ImageReview status');
        return status as unknown as ReviewStatus;
      } catch (e) {
        last = e;
      }
    }
    throw last;
  };
  return (host) => {
    // The review, the annotations it carries and those the plugin adds, under the served group names.
    const apiVersion = host.registry.servedApiVersion(IMAGE_REVIEW_API_VERSION);
    const auditPrefix = host.registry.servedApiVersion(IMAGE_POLICY_AUDIT_PREFIX);
    const mark = `.${host.registry.servedApiVersion(IMAGE_POLICY_ANNOTATION_MARK.slice(1))}`;
    return {
      name: 'ImagePolicyWebhook',
      async validate(request) {
        const r = request.resource;
        if (r.group !== '' || r.resource !== 'pods') return;
        if (request.subresource !== undefined && request.subresource !== 'ephemeralcontainers') return;
        if ((request.operation !== 'CREATE' && request.operation !== 'UPDATE') || !request.object) return;
        const spec = imageReviewSpec(request, mark);
        const key = JSON.stringify(spec);
        let status = cache.get(key);
        if (!status) {
          try {
            status = await ask({ apiVersion, kind: 'ImageReview', spec });
          } catch (e) {
            if (config.defaultAllow) {
              request.auditAnnotations[`${auditPrefix}failed-open`] = 'true';
              return;
            }
            throw forbidden(r, request.name, e as Error);
          }
          cache.set(key, status, status.allowed ? allowTtlMs : denyTtlMs);
        }
        for (const [k, v] of Object.entries(status.auditAnnotations ?? {})) request.auditAnnotations[`${auditPrefix}${k}`] = String(v);
        if (!status.allowed) {
          const why = status.reason
            ? `image policy webhook backend denied one or more images: ${status.reason}`
            : 'one or more images rejected by webhook backend';
          throw forbidden(r, request.name, why);
        }
      },
    };
  };
}

/** The ImageReview spec of a pod: every container's image, the marked annotations, the namespace. */
function imageReviewSpec(request: AdmissionRequest, mark: string): Record<string, unknown> {
  const pod = request.object as { metadata?: { annotations?: Record<string, string> }; spec?: Record<string, unknown> };
  const containers = ['containers', 'initContainers', 'ephemeralContainers'].flatMap((field) =>
    ((pod.spec?.[field] as Array<{ image?: string }> | undefined) ?? []).map((c) => ({ image: c.image ?? '' })),
  );
  const annotations = Object.fromEntries(Object.entries(pod.metadata?.annotations ?? {}).filter(([k]) => k.includes(mark)));
  return { containers, annotations, namespace: request.namespace ?? '' };
}
