/**
 * The JWT authenticator of one `jwt[i]` entry of an AuthenticationConfiguration. A bearer token
 * whose (unverified) `iss` is not this issuer is left to other authenticators, since issuer URLs
 * are unique and only one authenticator can validate a token. For this issuer's tokens: signature
 * with a key from the issuer's JWKS (refetched once on an unknown key id), an allowed asymmetric
 * algorithm, `iss`, `aud` (any configured audience matches, MatchAny), `exp` (required), `nbf`;
 * then the claim rules and mappings of config.ts.
 */
import type * as Jose from 'jose';
import type { Authenticator, AuthenticatorResult, RequestCredentials } from '../authenticate.js';
import { userFromClaims } from './claims.js';
import { compileJwtAuthenticator, type CompiledJwtRules, type JwtAuthenticatorConfig, validateJwtAuthenticators } from './config.js';
import { IssuerKeys } from './keys.js';
import { jose } from '../jose.js';

/** The asymmetric algorithms the real system accepts; symmetric (HS*) and `none` never. */
export const DEFAULT_SIGNING_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
];

export interface JwtAuthenticatorOptions {
  readonly signingAlgorithms?: readonly string[];
  /** Timeout of discovery and JWKS requests. */
  readonly fetchTimeoutMs?: number;
  /** Least time between two JWKS fetches triggered by unknown key ids. */
  readonly minKeyRefreshMs?: number;
  /** Least time before discovery and JWKS are fetched again after a failed fetch. */
  readonly retryAfterFailureMs?: number;
  /** Tolerated clock difference for exp and nbf, in seconds. */
  readonly clockSkewSeconds?: number;
  /** The clock, in milliseconds (tests). */
  readonly now?: () => number;
}

function describeVerifyError(e: unknown, rules: CompiledJwtRules, joseErrors: typeof Jose.errors): string {
  if (e instanceof joseErrors.JWTExpired) return 'token has expired';
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === 'aud') return `token audience does not match any of ${JSON.stringify(rules.audiences)}`;
    if (e.claim === 'nbf') return 'token is not valid yet (nbf is in the future)';
    if (e.claim === 'iss') return `token issuer does not match ${JSON.stringify(rules.issuerURL)}`;
    if (e.claim === 'exp') return 'token has no exp claim';
    return `token claim ${JSON.stringify(e.claim)} is invalid: ${e.reason}`;
  }
  if (e instanceof joseErrors.JOSEAlgNotAllowed) return 'token signing algorithm is not allowed';
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  if (e instanceof joseErrors.JWKSNoMatchingKey) return 'no key of the issuer matches the token';
  if (e instanceof joseErrors.JOSEError) return `token is invalid: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

export class JwtAuthenticator implements Authenticator {
  readonly name: string;
  private readonly keys: IssuerKeys;
  private readonly algorithms: string[];
  private readonly now: () => number;

  constructor(
    readonly rules: CompiledJwtRules,
    index: number,
    private readonly options: JwtAuthenticatorOptions = {},
  ) {
    this.name = `jwt[${index}]`;
    this.now = options.now ?? Date.now;
    this.algorithms = [...(options.signingAlgorithms ?? DEFAULT_SIGNING_ALGORITHMS)];
    this.keys = new IssuerKeys({
      issuerURL: rules.issuerURL,
      discoveryURL: rules.discoveryURL,
      ...(rules.certificateAuthority !== undefined ? { certificateAuthority: rules.certificateAuthority } : {}),
      timeoutMs: options.fetchTimeoutMs ?? 10_000,
      minRefreshMs: options.minKeyRefreshMs ?? 10_000,
      retryAfterFailureMs: options.retryAfterFailureMs ?? 5_000,
      now: this.now,
    });
  }

  /** Is this token addressed to this authenticator: a JWT whose unverified `iss` is our issuer. */
  private claimsIssuer(token: string, { decodeJwt, decodeProtectedHeader }: typeof Jose): { kid: string | undefined } | undefined {
    try {
      if (decodeJwt(token).iss !== this.rules.issuerURL) return undefined;
      const kid = decodeProtectedHeader(token).kid;
      return { kid };
    } catch {
      return undefined;
    }
  }

  async authenticate(credentials: RequestCredentials): Promise<AuthenticatorResult> {
    const token = credentials.bearerToken;
    if (token === undefined) return { outcome: 'skip' };
    const lib = await jose();
    const mine = this.claimsIssuer(token, lib);
    if (!mine) return { outcome: 'skip' };

    let payload: Record<string, unknown>;
    try {
      if (!this.keys.has(mine.kid)) await this.keys.refresh(!this.keys.has(undefined));
      const getKey = await this.keys.current();
      const verified = await lib.jwtVerify(token, getKey, {
        issuer: this.rules.issuerURL,
        audience: [...this.rules.audiences],
        algorithms: this.algorithms,
        requiredClaims: ['exp'],
        currentDate: new Date(this.now()),
        clockTolerance: this.options.clockSkewSeconds ?? 0,
      });
      payload = verified.payload as Record<string, unknown>;
    } catch (e) {
      return { outcome: 'reject', reason: describeVerifyError(e, this.rules, lib.errors) };
    }
    try {
      const user = userFromClaims(this.rules, payload);
      return { outcome: 'user', user, detail: `JWT from ${this.rules.issuerURL}` };
    } catch (e) {
      return { outcome: 'reject', reason: e instanceof Error ? e.message : String(e) };
    }
  }
}

/** The input shape: structurally the generated `AuthenticationConfiguration`. */
export interface AuthenticationConfigurationInput {
  readonly jwt: readonly JwtAuthenticatorConfig[];
}

/**
 * Loads every JWT authenticator of a configuration, compiling all expressions now; throws
 * AuthConfigError naming the JSON path of the first problem.
 */
export function loadJwtAuthenticators(config: AuthenticationConfigurationInput, options: JwtAuthenticatorOptions = {}): JwtAuthenticator[] {
  validateJwtAuthenticators(config.jwt);
  return config.jwt.map((c, i) => new JwtAuthenticator(compileJwtAuthenticator(c, i), i, options));
}
