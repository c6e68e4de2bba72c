/**
 * The service-account token issuer of a server: it signs tokens with the signing key and checks
 * tokens against every verification key, for the issuers it accepts (`--service-account-issuer`,
 * repeatable: the first issues, all are accepted, so an issuer can be renamed without invalidating
 * the tokens already out) and the API server's audiences (`--api-audiences`, default the issuer).
 */
import { createPublicKey, type KeyObject, randomUUID } from 'node:crypto';
import type * as Jose from 'jose';
import type { JSONWebKeySet, JWTPayload } from 'jose';
import { goQuoteList } from '../../api/index.js';
import { type ClaimsInput, type ServiceAccountClaims, serviceAccountClaims } from './claims.js';
import { publicKeySet, type SigningKey } from './keys.js';
import { jose } from '../jose.js';

export interface ServiceAccountIssuerOptions {
  /** The issuers accepted; the first is written in new tokens. */
  readonly issuers: readonly string[];
  readonly signingKey: SigningKey;
  /** Further public keys that verify (tokens of a previous signing key, of another server). */
  readonly verificationKeys?: readonly KeyObject[];
  /** The audiences the API server identifies itself with; default the first issuer. */
  readonly apiAudiences?: readonly string[];
  /** `--service-account-max-token-expiration` in seconds: longer requests are shortened; 0 or absent, no cap. */
  readonly maxExpirationSeconds?: number;
  /** `--service-account-jwks-uri`: the `jwks_uri` the discovery document names; by default the server's own. */
  readonly jwksUri?: string;
  /** The clock (a test server's); default the system's. */
  readonly now?: () => Date;
}

/** Upstream's leeway for `exp`, `nbf` and deletions (go-jose's DefaultLeeway). */
export const LEEWAY_SECONDS = 60;

/** The outcome of checking a token: not ours, or verified claims, or a reason to refuse it. */
export type TokenCheck =
  | { readonly outcome: 'skip' }
  | { readonly outcome: 'verified'; readonly payload: JWTPayload; readonly audiences: readonly string[] }
  | { readonly outcome: 'reject'; readonly reason: string };

export class ServiceAccountIssuer {
  readonly issuer: string;
  readonly issuers: readonly string[];
  readonly apiAudiences: readonly string[];
  readonly maxExpirationSeconds: number;
  readonly jwksUri: string | undefined;
  readonly now: () => Date;
  readonly #signingKey: SigningKey;
  readonly #keySet: JSONWebKeySet;
  /** Made on the first check (jose is loaded on first use). */
  #verifyKey: ReturnType<typeof Jose.createLocalJWKSet> | undefined;

  constructor(options: ServiceAccountIssuerOptions) {
    const [issuer] = options.issuers;
    if (!issuer) throw new Error('a service-account token issuer needs at least one issuer');
    this.issuer = issuer;
    this.issuers = [...options.issuers];
    this.apiAudiences = options.apiAudiences && options.apiAudiences.length > 0 ? [...options.apiAudiences] : [issuer];
    this.maxExpirationSeconds = options.maxExpirationSeconds ?? 0;
    this.jwksUri = options.jwksUri;
    this.now = options.now ?? (() => new Date());
    this.#signingKey = options.signingKey;
    this.#keySet = publicKeySet([createPublicKey(options.signingKey.privateKey), ...(options.verificationKeys ?? [])]);
  }

  /** The public keys that verify this issuer's tokens (`/openid/v1/jwks`). */
  publicKeys(): JSONWebKeySet {
    return structuredClone(this.#keySet);
  }

  /** Signs a new token for the claims (everything but the issuer, the clock and the token id). */
  async issue(input: Omit<ClaimsInput, 'issuer' | 'now' | 'jti'>): Promise<{ token: string; claims: ServiceAccountClaims }> {
    const claims = serviceAccountClaims({ ...input, issuer: this.issuer, now: this.now(), jti: randomUUID() });
    const { SignJWT } = await jose();
    const token = await new SignJWT({ ...claims, aud: [...claims.aud] } as JWTPayload)
      .setProtectedHeader({ alg: this.#signingKey.algorithm, kid: this.#signingKey.keyId })
      .sign(this.#signingKey.privateKey);
    return { token, claims };
  }

  /**
   * Checks a bearer token: a token that is not a JWT, or names another issuer, is not ours
   * (another authenticator may know it); for ours, the signature with one of the keys, the
   * issuer, `exp` and `nbf` (with upstream's minute of leeway) and the audiences, which must
   * share one with `targets` (the API server's unless a TokenReview names others); the shared
   * ones are the audiences the token is verified for.
   */
  async check(token: string, targets: readonly string[] = this.apiAudiences): Promise<TokenCheck> {
    const lib = await jose();
    let unverified: JWTPayload;
    try {
      unverified = lib.decodeJwt(token);
    } catch {
      return { outcome: 'skip' };
    }
    if (typeof unverified.iss !== 'string' || !this.issuers.includes(unverified.iss)) return { outcome: 'skip' };
    let payload: JWTPayload;
    this.#verifyKey ??= lib.createLocalJWKSet(this.#keySet);
    try {
      ({ payload } = await lib.jwtVerify(token, this.#verifyKey, {
        issuer: [...this.issuers],
        currentDate: this.now(),
        clockTolerance: LEEWAY_SECONDS,
        requiredClaims: ['exp'],
      }));
    } catch (e) {
      return { outcome: 'reject', reason: describe(e, lib.errors) };
    }
    const tokenAudiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const audiences = tokenAudiences.length > 0 ? tokenAudiences : this.apiAudiences;
    const shared = targets.filter((a) => audiences.includes(a));
    if (shared.length === 0) {
      return {
        outcome: 'reject',
        reason: `token audiences ${goQuoteList(audiences)} is invalid for the target audiences ${goQuoteList(targets)}`,
      };
    }
    return { outcome: 'verified', payload, audiences: shared };
  }
}

/** Upstream's words for a token that fails verification. */
function describe(e: unknown, joseErrors: typeof Jose.errors): string {
  if (e instanceof joseErrors.JWTExpired) return 'service account token has expired';
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === 'nbf' || e.claim === 'iat') return 'service account token is not valid yet';
    return `service account token claims could not be validated: ${e.message}`;
  }
  if (e instanceof joseErrors.JWSSignatureVerificationFailed || e instanceof joseErrors.JWKSNoMatchingKey)
    return 'invalid bearer token: no service-account key verifies its signature';
  if (e instanceof joseErrors.JOSEError) return `invalid bearer token: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
