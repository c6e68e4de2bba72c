/**
 * Service-account issuer discovery, as upstream serves it: `/.well-known/openid-configuration`
 * (the issuer, where its keys are, what it signs with) and `/openid/v1/jwks` (the public keys), so
 * that an OIDC relying party (another cluster, a cloud's workload identity, svckit's own JWT
 * authenticator) can verify the tokens without calling the server's API. As upstream, only an
 * `https` issuer URL without query or fragment has discovery documents.
 */
import type { ServiceAccountIssuer } from './issuer.js';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

/** Why the issuer has no discovery documents, or undefined when it has them. */
export function discoveryUnavailable(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return `the service-account issuer ${JSON.stringify(issuer)} is not a URL`;
  }
  if (url.protocol !== 'https:') return `issuer URL must use https scheme, got: ${issuer}`;
  if (url.search !== '') return `issuer URL may not include a query, got: ${issuer}`;
  if (url.hash !== '') return `issuer URL may not include a fragment, got: ${issuer}`;
  return undefined;
}

/** The OpenID provider configuration; `serverUrl` gives the default `jwks_uri` (`<server>/openid/v1/jwks`). */
export function openIdConfiguration(issuer: ServiceAccountIssuer, serverUrl: string): Record<string, unknown> {
  const algorithms = [...new Set(issuer.publicKeys().keys.map((k) => k.alg ?? ''))].sort();
  return {
    issuer: issuer.issuer,
    jwks_uri: issuer.jwksUri ?? `${serverUrl.replace(/\/$/, '')}${JWKS_PATH}`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: algorithms,
  };
}
