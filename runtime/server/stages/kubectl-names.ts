import type { Outcome, Stage } from '../chain.js';
import type { Reply } from '../http.js';
import { forgetAttributes } from './attributes.js';
import { groupWithSuffix } from '../../api/index.js';
import { AUTHORIZATION_GROUP } from '../../auth/index.js';

/** kubectl's name of the access-review group (the real system's); its typed client posts there without asking discovery. */
export const KUBECTL_AUTHORIZATION_GROUP = groupWithSuffix(AUTHORIZATION_GROUP, 'k8s.io');

/** The apiVersion a review body may carry when sent under kubectl's name, mapped to the served group's. */
export function servedApiVersion(apiVersion: unknown, servedGroup: string): unknown {
  return typeof apiVersion === 'string' && apiVersion.startsWith(`${KUBECTL_AUTHORIZATION_GROUP}/`)
    ? `${servedGroup}/${apiVersion.slice(KUBECTL_AUTHORIZATION_GROUP.length + 1)}`
    : apiVersion;
}

/**
 * kubectl names: `kubectl auth can-i` posts its SelfSubjectAccessReview (and `--list` its
 * SelfSubjectRulesReview) to `/apis/authorization.k8s.io/v1/...` with a compiled-in client, never
 * looking at discovery, and decodes only that apiVersion. When the server's groups are not the
 * real system's (`--group-suffix`, default svc.io), such a request is served as the same path under
 * the served authorization group (and authorized as that group) and answered in kubectl's
 * apiVersion. The group is not in discovery; nothing else is renamed. Under `--group-suffix
 * k8s.io` the group is served by its own name and this stage lets requests through untouched.
 */
export const kubectlNames: Stage = {
  name: 'kubectl-names',
  handle(ctx, next) {
    const { segments } = ctx.req;
    if (segments[0] !== 'apis' || segments[1] !== KUBECTL_AUTHORIZATION_GROUP) return next();
    const served = ctx.registry.servedGroup(AUTHORIZATION_GROUP);
    if (served === KUBECTL_AUTHORIZATION_GROUP) return next();
    const rest = segments.slice(2);
    // Path and segments change together: routing and authorization read the same request.
    ctx.req.segments = ['apis', served, ...rest];
    ctx.req.path = `/apis/${served}/${rest.join('/')}`;
    forgetAttributes(ctx);
    return answerInKubectlNames(next(), served);
  },
};

/** The reply with the served authorization group's apiVersion written in kubectl's name. */
async function answerInKubectlNames(outcome: Outcome, served: string): Promise<Reply | undefined> {
  const reply = await outcome;
  const body = reply?.body as { apiVersion?: unknown } | undefined;
  if (reply && body && typeof body.apiVersion === 'string' && body.apiVersion.startsWith(`${served}/`)) {
    reply.body = { ...body, apiVersion: `${KUBECTL_AUTHORIZATION_GROUP}/${body.apiVersion.slice(served.length + 1)}` };
  }
  return reply;
}
