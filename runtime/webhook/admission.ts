import { cloneJson, isJsonObject, type JsonValue } from '../json/index.js';
import { jsonPatchDiff } from '../patch/index.js';
import { type JsonHandler, WebhookRequestError } from './handler.js';
import type { AdmissionRequest, AdmissionResponse, AdmissionReview } from './types.js';

/** What an admission handler decides; `allow()` and `deny()` build one. */
export type AdmissionVerdict =
  | {
      allowed: true;
      /** The object as it should be stored; the kit sends the JSON patch from the request's object. */
      object?: Record<string, unknown>;
      warnings?: string[];
      auditAnnotations?: Record<string, string>;
    }
  | {
      allowed: false;
      message: string;
      /** HTTP code of the client's error; default 403. */
      code?: number;
      reason?: string;
      warnings?: string[];
      auditAnnotations?: Record<string, string>;
    };

/** Lets the request through; `object` (mutating webhooks) is the object to store instead. */
export function allow(options: Omit<Extract<AdmissionVerdict, { allowed: true }>, 'allowed'> = {}): AdmissionVerdict {
  return { allowed: true, ...options };
}

/** Refuses the request with `message` (the client sees it in the Status). */
export function deny(
  message: string,
  options: Omit<Extract<AdmissionVerdict, { allowed: false }>, 'allowed' | 'message'> = {},
): AdmissionVerdict {
  return { allowed: false, message, ...options };
}

/**
 * Decides on one request. `request.object` is the handler's own copy: changing it in place, or
 * returning `allow({ object })`, mutates (the kit computes the patch). Returning nothing allows.
 */
export type AdmissionHandler = (request: AdmissionRequest) => AdmissionVerdict | undefined | Promise<AdmissionVerdict | undefined>;

/**
 * An admission webhook: decodes the AdmissionReview (v1 or v1beta1), runs `handler`, and answers
 * an AdmissionReview of the same version whose response echoes the request's uid and carries the
 * verdict, a base64 JSON Patch when the object changed, warnings and audit annotations.
 */
export function admissionWebhook(handler: AdmissionHandler): JsonHandler {
  return async (body) => {
    const review = readReview(body);
    const request = review.request;
    const original = request.object ?? null;
    const copy = original === null ? null : (cloneJson(original as JsonValue) as Record<string, unknown>);
    const verdict = (await handler({ ...request, object: copy })) ?? allow();
    const response: AdmissionResponse = { uid: request.uid, allowed: verdict.allowed };
    if (verdict.allowed) {
      const next = verdict.object ?? copy;
      if (original !== null && next !== null) {
        const ops = jsonPatchDiff(original, next);
        if (ops.length > 0) {
          response.patchType = 'JSONPatch';
          response.patch = Buffer.from(JSON.stringify(ops)).toString('base64');
        }
      }
    } else {
      response.status = { code: verdict.code ?? 403, message: verdict.message, ...(verdict.reason ? { reason: verdict.reason } : {}) };
    }
    if (verdict.warnings?.length) response.warnings = verdict.warnings;
    if (verdict.auditAnnotations && Object.keys(verdict.auditAnnotations).length > 0) response.auditAnnotations = verdict.auditAnnotations;
    const answer: AdmissionReview = { apiVersion: review.apiVersion, kind: 'AdmissionReview', response };
    return answer;
  };
}

function readReview(body: unknown): AdmissionReview & { request: AdmissionRequest } {
  if (!isJsonObject(body) || body.kind !== 'AdmissionReview')
    throw new WebhookRequestError('expected an AdmissionReview (kind AdmissionReview)');
  // The real system's group too: a server started with `--group-suffix k8s.io` sends admission.k8s.io.
  if (typeof body.apiVersion !== 'string' || !/^admission\.(svc|k8s)\.io\/v1(beta1)?$/.test(body.apiVersion))
    throw new WebhookRequestError(`unsupported AdmissionReview version ${JSON.stringify(body.apiVersion)}; v1 and v1beta1 are accepted`);
  const request = body.request;
  if (!isJsonObject(request) || typeof request.uid !== 'string' || request.uid === '')
    throw new WebhookRequestError('the AdmissionReview has no request.uid');
  return body as unknown as AdmissionReview & { request: AdmissionRequest };
}
