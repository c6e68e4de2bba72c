import { fieldInvalid, invalid } from '../../runtime/api/index.js';
import { AUTHORIZATION_GROUP, type AuthorizationRequest, accessRequestOfReview } from '../../runtime/auth/index.js';
import {
  admit,
  ANONYMOUS,
  type Body,
  type AuthorizationVerdict,
  type RequestContext,
  servedApiVersion,
  type Target,
  type VirtualCreateHandler,
  writeOptions,
} from '../../runtime/server/index.js';

/** The review as admitted (defaulted, validated), with no creationTimestamp: it is never stored. */
async function admitted(ctx: RequestContext, t: Target, body: Body) {
  const sent = body.object as { apiVersion?: unknown };
  const object = await admit(ctx, {
    resource: t.resource,
    object: { ...sent, apiVersion: servedApiVersion(sent.apiVersion, ctx.registry.servedGroup(AUTHORIZATION_GROUP)) } as Body['object'],
    fieldValidation: writeOptions(ctx.req.query, ctx.req.method).fieldValidation,
    duplicates: body.duplicates,
  });
  object.metadata = { ...object.metadata, creationTimestamp: undefined };
  return object;
}

/** The review's status: `denied` only when an authorizer said Deny (no opinion from all is not a denial). */
function reviewStatus(d: AuthorizationVerdict): Record<string, unknown> {
  const denied = d.decision ? d.decision === 'Deny' : !d.allowed;
  const errors = (d.steps ?? []).flatMap((s) => (s.error ? [`${s.authorizer}: ${s.error}`] : []));
  return {
    allowed: d.allowed,
    ...(denied ? { denied: true } : {}),
    // Omitted when empty, as Go's omitempty: a plain RBAC no-match gives no reason.
    ...(d.reason ? { reason: d.reason } : {}),
    ...(errors.length > 0 ? { evaluationError: errors.join('; ') } : {}),
  };
}

/**
 * An access review (upstream's SubjectAccessReview, and LocalSubjectAccessReview when created in
 * a namespace): a virtual kind that is created, never stored. The server's authorizer (the same
 * one the authorize stage asks) decides the access the review describes; with no authorization
 * policy configured every well-formed review is allowed, and says why.
 */
export const reviewAccess: VirtualCreateHandler = async (ctx, t, body) => {
  const object = await admitted(ctx, t, body);
  if (t.namespace !== undefined) {
    // A local review is about its own namespace only (upstream's LocalSubjectAccessReview validation).
    const spec = object.spec as { resourceAttributes?: { namespace?: string }; nonResourceAttributes?: unknown };
    const kind = { group: t.resource.group, kind: t.resource.kind };
    if (spec.nonResourceAttributes !== undefined)
      throw invalid(kind, '', [
        fieldInvalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'),
      ]);
    const ns = spec.resourceAttributes?.namespace ?? '';
    if (ns !== '' && ns !== t.namespace)
      throw invalid(kind, '', [
        fieldInvalid('spec.resourceAttributes.namespace', ns, `must match the namespace of the request, ${t.namespace}`),
      ]);
    spec.resourceAttributes = { ...spec.resourceAttributes, namespace: t.namespace };
  }
  object.status = reviewStatus(await ctx.authorizer.authorize(accessRequestOfReview(object.spec)));
  return { status: 201, body: object };
};

/** SelfSubjectAccessReview (`kubectl auth can-i`): the access the review describes, for the user who sends it. */
export const reviewOwnAccess: VirtualCreateHandler = async (ctx, t, body) => {
  const object = await admitted(ctx, t, body);
  const { attributes } = accessRequestOfReview(object.spec);
  const request: AuthorizationRequest = { user: ctx.user ?? ANONYMOUS, attributes };
  object.status = reviewStatus(await ctx.authorizer.authorize(request));
  return { status: 201, body: object };
};

/**
 * SelfSubjectRulesReview (`kubectl auth can-i --list`): the rules the sender has in a namespace,
 * from every authorizer that can list them; `incomplete` when one cannot (a webhook).
 */
export const reviewOwnRules: VirtualCreateHandler = async (ctx, t, body) => {
  const object = await admitted(ctx, t, body);
  const namespace = (object.spec as { namespace?: string } | undefined)?.namespace ?? '';
  const rules = ctx.authorizer.rulesFor
    ? await ctx.authorizer.rulesFor(ctx.user ?? ANONYMOUS, namespace)
    : { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'the authorizer cannot list rules' };
  object.status = rules;
  return { status: 201, body: object };
};
