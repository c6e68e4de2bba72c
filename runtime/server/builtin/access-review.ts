import type { VirtualCreateHandler } from '../context.js';
import { admit } from '../admission.js';
import { writeOptions } from '../query.js';

/**
 * An access review: a virtual kind that is created, never stored. The reference server has no
 * authorization policy (its authorize stage allows every request), so every well-formed review is
 * allowed, and says why.
 */
export const reviewAccess: VirtualCreateHandler = async (ctx, t, body) => {
  const object = await admit(ctx, { resource: t.resource, object: body.object, fieldValidation: writeOptions(ctx.req.query).fieldValidation, duplicates: body.duplicates });
  object.metadata = { ...object.metadata, creationTimestamp: undefined };
  object.status = { allowed: true, reason: 'the svckit reference server has no authorization policy: every request is allowed' };
  return { status: 201, body: object };
};
