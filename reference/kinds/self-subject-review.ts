import { timestamp } from '../../runtime/api/index.js';
import { userInfoObject } from '../../runtime/auth/index.js';
import { admit, ANONYMOUS, type VirtualCreateHandler, writeOptions } from '../../runtime/server/index.js';

/**
 * SelfSubjectReview (`kubectl auth whoami`): the user the request was authenticated (or
 * impersonated) as. A virtual kind: the body is admitted and otherwise not read, and the answer
 * is a new review carrying only its creation time, as upstream's REST builds it.
 */
export const reviewSelf: VirtualCreateHandler = async (ctx, t, body) => {
  await admit(ctx, {
    resource: t.resource,
    object: body.object,
    fieldValidation: writeOptions(ctx.req.query, ctx.req.method).fieldValidation,
    duplicates: body.duplicates,
  });
  return {
    status: 201,
    body: {
      apiVersion: t.resource.apiVersion,
      kind: t.resource.kind,
      metadata: { creationTimestamp: timestamp(ctx.settings.now()) },
      status: { userInfo: userInfoObject(ctx.user ?? ANONYMOUS) },
    },
  };
};
