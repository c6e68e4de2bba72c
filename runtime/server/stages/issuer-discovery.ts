import type { TLSSocket } from 'node:tls';
import { methodNotAllowed, pathNotFound } from '../../api/index.js';
import {
  discoveryUnavailable,
  JWKS_PATH,
  OPENID_CONFIGURATION_PATH,
  openIdConfiguration,
  type ServiceAccountIssuer,
} from '../../auth/index.js';
import type { Stage } from '../chain.js';
import type { Reply } from '../http.js';

/** As upstream: relying parties may cache the documents for an hour. */
const CACHE_CONTROL = 'public, max-age=3600';

/**
 * `/.well-known/openid-configuration` and `/openid/v1/jwks` of the server's service-account token
 * issuer, after authorization (RBAC grants them with the bootstrap ClusterRole
 * `system:service-account-issuer-discovery`). For an issuer that is not an https URL (upstream then
 * installs neither) both paths are 404, saying why. The default `jwks_uri` names the address the
 * client reached (scheme and Host header).
 */
export function issuerDiscovery(issuer: ServiceAccountIssuer): Stage {
  const unavailable = discoveryUnavailable(issuer.issuer);
  return {
    name: 'issuer-discovery',
    handle(ctx, next) {
      const path = ctx.req.path.replace(/\/$/, '');
      if (path !== OPENID_CONFIGURATION_PATH && path !== JWKS_PATH) return next();
      if (unavailable) throw pathNotFound(`the server could not find the requested resource (${unavailable})`);
      if (ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD') throw methodNotAllowed(ctx.req.method, `${path} is read with GET`);
      const headers = { 'cache-control': CACHE_CONTROL };
      if (path === JWKS_PATH) return json(issuer.publicKeys(), 'application/jwk-set+json', headers);
      const scheme = (ctx.req.raw.socket as TLSSocket).encrypted ? 'https' : 'http';
      return json(openIdConfiguration(issuer, `${scheme}://${ctx.req.headers.host ?? 'localhost'}`), 'application/json', headers);
    },
  };
}

function json(body: unknown, contentType: string, headers: Record<string, string>): Reply {
  return { status: 200, body: JSON.stringify(body), contentType, headers };
}
