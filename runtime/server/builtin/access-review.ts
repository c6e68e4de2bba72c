import { accessRequestOfReview } from '../../auth/index.js';
import type { VirtualCreateHandler } from '../context.js';
import { admit } from '../admission.js';
import { writeOptions } from '../query.js';

/**
 * An access review (upstream's SubjectAccessReview): a virtual kind that is created, never
 * stored. The server's authorizer (the same one the authorize stage asks) decides the access the
 * review describes; with no authorization policy configured every well-formed review is allowed,
 * and says why.
 */
export const reviewAccess: VirtualCreateHandler = async (ctx, t, body) => {
  const object = await admit(ctx, {
    resource: t.resource,
    object: body.object,
    fieldValidation: writeOptions(ctx.req.query).fieldValidation,
    duplicates: body.duplicates,
  });
  object.metadata = { ...object.metadata, creationTimestamp: undefined };
  const decision = await ctx.authorizer.authorize(accessRequestOfReview(object.spec));
  object.status = { allowed: decision.allowed, ...(decision.allowed ? {} : { denied: true }), reason: decision.reason };
  return { status: 201, body: object };
};
