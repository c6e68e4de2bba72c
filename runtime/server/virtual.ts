import { StatusError } from '../api/index.js';
import { admit, badRequest } from './admission.js';
import type { RequestContext, Target } from './context.js';
import { deleteObject, deleteOptions } from './delete.js';
import type { Reply } from './http.js';
import { writeOptions } from './query.js';
import type { Body } from './write.js';

/**
 * SubjectAccessReview: a virtual type that is created, never stored. The reference server has no
 * authorization policy, so every well-formed review is allowed, and says why.
 */
export async function reviewAccess(ctx: RequestContext, t: Target, body: Body): Promise<Reply> {
  const object = admit({ r: t.r, object: body.object, fieldValidation: writeOptions(ctx.req.query).fieldValidation, duplicates: body.duplicates, warnings: ctx.warnings, rules: ctx.rules });
  object.metadata = { ...object.metadata, creationTimestamp: undefined };
  object.status = { allowed: true, reason: 'the svckit reference server has no authorization policy: every request is allowed' };
  return { status: 201, body: object };
}

/** pods/<name>/eviction: an Eviction for that pod deletes it with the Eviction's delete options. */
export async function evictPod(ctx: RequestContext, t: Target, body: Body): Promise<Reply> {
  const eviction = body.object;
  if (eviction.kind !== undefined && eviction.kind !== 'Eviction') throw badRequest(`expected an Eviction body, found kind ${JSON.stringify(eviction.kind)}`);
  const name = eviction.metadata?.name;
  if (name !== undefined && name !== t.name) throw badRequest(`name in URL does not match name in Eviction object (${t.name} != ${name})`);
  const write = writeOptions(ctx.req.query);
  const opts = deleteOptions(eviction.deleteOptions, new URLSearchParams(), write);
  const reply = await deleteObject(ctx, { ...t, subresource: undefined }, opts);
  if (reply.status !== 200) throw new StatusError({ code: 500, reason: 'InternalError', message: 'eviction did not delete the pod' });
  return { status: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
}
