import type { Stage } from '../chain.js';
import { AUTHORIZATION_GROUP } from '../../auth/index.js';

/** kubectl's name of the access-review group; its typed client posts there without asking discovery. */
export const KUBECTL_AUTHORIZATION_GROUP = 'authorization.k8s.io';
const PREFIX = `/apis/${KUBECTL_AUTHORIZATION_GROUP}/`;

/** The apiVersion a review body may carry when sent under kubectl's name, mapped to the served one. */
export function servedApiVersion(apiVersion: unknown): unknown {
  return typeof apiVersion === 'string' && apiVersion.startsWith(`${KUBECTL_AUTHORIZATION_GROUP}/`)
    ? `${AUTHORIZATION_GROUP}/${apiVersion.slice(KUBECTL_AUTHORIZATION_GROUP.length + 1)}`
    : apiVersion;
}

/**
 * kubectl names: `kubectl auth can-i` posts its SelfSubjectAccessReview (and `--list` its
 * SelfSubjectRulesReview) to `/apis/authorization.k8s.io/v1/...` with a compiled-in client, never
 * looking at discovery, and decodes only that apiVersion. Such a request is served as the same
 * path under `authorization.svc.io` (and authorized as that group) and answered in kubectl's
 * apiVersion. The group is not in discovery; nothing else is renamed.
 */
export const kubectlNames: Stage = {
  name: 'kubectl-names',
  async handle(ctx, next) {
    if (!ctx.req.path.startsWith(PREFIX)) return next();
    ctx.req.path = `/apis/${AUTHORIZATION_GROUP}/${ctx.req.path.slice(PREFIX.length)}`;
    const reply = await next();
    const body = reply?.body as { apiVersion?: unknown } | undefined;
    if (body && typeof body.apiVersion === 'string' && body.apiVersion.startsWith(`${AUTHORIZATION_GROUP}/`)) {
      body.apiVersion = `${KUBECTL_AUTHORIZATION_GROUP}/${body.apiVersion.slice(AUTHORIZATION_GROUP.length + 1)}`;
    }
    return reply;
  },
};
