import type { RequestAttributes, VirtualCreateHandler } from '../context.js';
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
  const decision = await ctx.authorizer.authorize(reviewedAccess(object.spec));
  object.status = { allowed: decision.allowed, ...(decision.allowed ? {} : { denied: true }), reason: decision.reason };
  return { status: 201, body: object };
};

type Attributes = Partial<Record<'namespace' | 'verb' | 'group' | 'version' | 'resource' | 'subresource' | 'name' | 'path', string>>;

/** The access a review's spec describes, as the authorizer's attributes. */
function reviewedAccess(spec: unknown): RequestAttributes {
  const s = (spec ?? {}) as { user?: string; groups?: string[]; resourceAttributes?: Attributes; nonResourceAttributes?: Attributes };
  const user = { name: s.user ?? '', groups: s.groups ?? [] };
  const r = s.resourceAttributes;
  if (r) {
    return {
      user,
      verb: r.verb ?? '',
      resourceRequest: true,
      group: r.group ?? '',
      version: r.version ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      namespace: r.namespace ?? '',
      name: r.name ?? '',
      path: '',
    };
  }
  const n = s.nonResourceAttributes ?? {};
  return {
    user,
    verb: n.verb ?? '',
    resourceRequest: false,
    group: '',
    version: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    path: n.path ?? '',
  };
}
