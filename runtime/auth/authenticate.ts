/**
 * The authenticator chain: the credentials of a request go to each authenticator in order and the
 * first that recognises one wins. A credential that is presented but rejected fails the request
 * (401) even when anonymous requests are allowed, so that a client with an expired token learns it
 * instead of silently acting as `system:anonymous` (the real system's union-then-anonymous with
 * fail-on-error). Only a request with no credential at all may become anonymous.
 */
import { anonymousUser, type UserInfo, withAuthenticatedGroup } from './user.js';

/**
 * The peer certificate as the TLS layer hands it over: node's `tls.PeerCertificate`
 * (`socket.getPeerCertificate()`) or a `crypto.X509Certificate`. Only the fields used are declared.
 */
export interface PeerCertificateLike {
  readonly subject?: unknown;
  readonly ext_key_usage?: readonly string[];
  readonly keyUsage?: readonly string[];
  readonly raw?: Uint8Array;
}

/** The credentials found on a request, before any is checked. */
export interface RequestCredentials {
  /** The token of an `Authorization: Bearer <token>` header. */
  readonly bearerToken?: string;
  /** The client certificate of the TLS connection, when the client sent one. */
  readonly peerCertificate?: PeerCertificateLike;
  /**
   * Whether the TLS layer verified the client certificate's chain against the client CA
   * (`socket.authorized`). Chain verification is the TLS layer's job, not the authenticator's.
   */
  readonly peerCertificateVerified?: boolean;
  /** `socket.authorizationError`, when the chain did not verify. */
  readonly peerCertificateError?: string;
  /**
   * The audiences the credential must be for (a TokenReview's `spec.audiences`); the API server's
   * when absent. Only audience-aware authenticators read it (service-account tokens).
   */
  readonly audiences?: readonly string[];
}

/** One authenticator's answer: not my kind of credential, a user, or a rejected credential. */
export type AuthenticatorResult =
  | { readonly outcome: 'skip' }
  | {
      readonly outcome: 'user';
      readonly user: UserInfo;
      readonly detail?: string;
      /** The audiences the credential is for, from an audience-aware authenticator. */
      readonly audiences?: readonly string[];
    }
  | { readonly outcome: 'reject'; readonly reason: string };

export interface Authenticator {
  /** Named in explanations and logs (`x509`, `token-file`, `jwt[0]`). */
  readonly name: string;
  authenticate(credentials: RequestCredentials): Promise<AuthenticatorResult> | AuthenticatorResult;
}

/** How a request was authenticated, for audit records and explanations. */
export interface AuthenticationExplanation {
  /** The authenticator that identified the user, or `anonymous`. */
  readonly authenticator?: string;
  readonly detail?: string;
  /** Why each other authenticator did not identify the user (`<name>: <reason>`). */
  readonly rejections: readonly string[];
}

export type AuthenticationResult =
  | {
      readonly authenticated: true;
      readonly user: UserInfo;
      readonly explanation: AuthenticationExplanation;
      /** The audiences the credential is for, when an audience-aware authenticator said so. */
      readonly audiences?: readonly string[];
    }
  | {
      readonly authenticated: false;
      /** Always 401: no credential (with anonymous disabled) or a rejected credential. */
      readonly status: 401;
      readonly message: string;
      readonly explanation: AuthenticationExplanation;
    };

export interface AuthenticatorChainOptions {
  /** Whether a request without credentials becomes `system:anonymous`. */
  readonly anonymous: boolean;
}

/** The value of an Authorization header as a bearer token, or undefined. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m ? m[1] : undefined;
}

function presented(c: RequestCredentials): boolean {
  return c.bearerToken !== undefined || c.peerCertificate !== undefined;
}

export class AuthenticatorChain {
  constructor(
    private readonly authenticators: readonly Authenticator[],
    private readonly options: AuthenticatorChainOptions,
  ) {}

  async authenticate(credentials: RequestCredentials): Promise<AuthenticationResult> {
    const rejections: string[] = [];
    for (const a of this.authenticators) {
      let result: AuthenticatorResult;
      try {
        result = await a.authenticate(credentials);
      } catch (e) {
        result = { outcome: 'reject', reason: e instanceof Error ? e.message : String(e) };
      }
      if (result.outcome === 'user') {
        const explanation = { authenticator: a.name, rejections, ...(result.detail ? { detail: result.detail } : {}) };
        return {
          authenticated: true,
          user: withAuthenticatedGroup(result.user),
          explanation,
          ...(result.audiences ? { audiences: result.audiences } : {}),
        };
      }
      if (result.outcome === 'reject') rejections.push(`${a.name}: ${result.reason}`);
    }
    if (presented(credentials)) {
      const message =
        rejections.length > 0 ? `Unauthorized: ${rejections.join('; ')}` : 'Unauthorized: no authenticator accepted the credential';
      return { authenticated: false, status: 401, message, explanation: { rejections } };
    }
    if (this.options.anonymous) {
      return { authenticated: true, user: anonymousUser(), explanation: { authenticator: 'anonymous', rejections } };
    }
    return { authenticated: false, status: 401, message: 'Unauthorized: no credentials', explanation: { rejections } };
  }
}
