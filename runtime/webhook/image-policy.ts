import { isJsonObject } from '../json/index.js';
import { type JsonHandler, WebhookRequestError } from './handler.js';
import type { ImageReview } from './types.js';

/** An image policy backend's decision; `reason` is shown to the client on denial. */
export interface ImagePolicyVerdict {
  allowed: boolean;
  reason?: string;
  /** Keys without prefix: the admission plugin prefixes them (`imagepolicywebhook.image-policy.svc.io/`). */
  auditAnnotations?: Record<string, string>;
}

/** Decides on the images of one pod (`spec.containers` lists every container, init and ephemeral too). */
export type ImagePolicyHandler = (spec: ImageReview['spec']) => ImagePolicyVerdict | Promise<ImagePolicyVerdict>;

/** An image policy backend: reads an ImageReview and answers it with `status` filled. */
export function imagePolicyBackend(handler: ImagePolicyHandler): JsonHandler {
  return async (body) => {
    if (!isJsonObject(body) || body.kind !== 'ImageReview' || !isJsonObject(body.spec))
      throw new WebhookRequestError('expected an ImageReview with a spec');
    const review = body as unknown as ImageReview;
    const verdict = await handler(review.spec);
    const status: NonNullable<ImageReview['status']> = { allowed: verdict.allowed };
    if (!verdict.allowed && verdict.reason) status.reason = verdict.reason;
    if (verdict.auditAnnotations) status.auditAnnotations = verdict.auditAnnotations;
    return { apiVersion: review.apiVersion, kind: 'ImageReview', spec: review.spec, status } satisfies ImageReview;
  };
}
