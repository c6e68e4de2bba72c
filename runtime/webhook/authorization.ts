import { isJsonObject } from '../json/index.js';
import { type JsonHandler, WebhookRequestError } from './handler.js';
import type { SubjectAccessReview } from './types.js';

/** An authorization decision: allowed, denied (no other authorizer is asked), or neither (no opinion). */
export interface AuthorizationVerdict {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export type AuthorizationHandler = (spec: SubjectAccessReview['spec']) => AuthorizationVerdict | Promise<AuthorizationVerdict>;

/** An authorization webhook: reads a SubjectAccessReview (v1 or v1beta1) and answers it with `status` filled. */
export function authorizationWebhook(handler: AuthorizationHandler): JsonHandler {
  return async (body) => {
    if (!isJsonObject(body) || body.kind !== 'SubjectAccessReview' || !isJsonObject(body.spec))
      throw new WebhookRequestError('expected a SubjectAccessReview with a spec');
    const review = body as unknown as SubjectAccessReview;
    const verdict = await handler(review.spec);
    const status: NonNullable<SubjectAccessReview['status']> = { allowed: verdict.allowed };
    if (verdict.denied) status.denied = true;
    if (verdict.reason) status.reason = verdict.reason;
    if (verdict.evaluationError) status.evaluationError = verdict.evaluationError;
    return { apiVersion: review.apiVersion, kind: 'SubjectAccessReview', spec: review.spec, status } satisfies SubjectAccessReview;
  };
}
