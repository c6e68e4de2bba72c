/**
 * The signing keys of one issuer, found by OIDC discovery: the discovery document (at
 * `{issuer}/.well-known/openid-configuration` or the configured discoveryURL) must name the same
 * issuer, and its `jwks_uri` gives the key set. Keys rotate: a token signed with a key id the
 * cached set does not have makes the set be fetched again (no more often than `minRefreshMs`, so a
 * flood of tokens with made-up key ids cannot turn the server into a load generator against the
 * issuer). Fetching is lazy, on the first token, and a failed fetch is retried on a later token.
 */
import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import { httpsJson } from '../https-client.js';
import { jose } from '../jose.js';

export interface IssuerKeysOptions {
  readonly issuerURL: string;
  readonly discoveryURL: string;
  readonly certificateAuthority?: string;
  readonly timeoutMs: number;
  readonly minRefreshMs: number;
  readonly retryAfterFailureMs: number;
  readonly now: () => number;
}

interface KeyState {
  readonly jwksURI: string;
  readonly getKey: JWTVerifyGetKey;
  readonly kids: ReadonlySet<string>;
  readonly fetchedAt: number;
}

export class IssuerKeys {
  private state: KeyState | undefined;
  private inflight: Promise<KeyState> | undefined;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private lastFailure: { at: number; error: Error } | undefined;

  constructor(private readonly options: IssuerKeysOptions) {}

  /** The key set, fetching it when there is none yet. */
  async current(): Promise<JWTVerifyGetKey> {
    if (this.state) return this.state.getKey;
    return (await this.refresh(true)).getKey;
  }

  /** Whether the cached set has `kid` (a token without kid: whether there is any set at all). */
  has(kid: string | undefined): boolean {
    if (!this.state) return false;
    return kid === undefined || this.state.kids.has(kid);
  }

  /**
   * Fetches the key set again, unless it was fetched less than minRefreshMs ago (then the cached
   * one is returned). `force` ignores that limit (used when there is no set at all).
   */
  async refresh(force = false): Promise<KeyState> {
    const now = this.options.now();
    if (this.state && !force && now - this.lastAttempt < this.options.minRefreshMs) return this.state;
    if (this.inflight) return this.inflight;
    const failed = this.lastFailure;
    if (failed && now - failed.at < this.options.retryAfterFailureMs) {
      if (this.state) return this.state;
      throw failed.error;
    }
    this.lastAttempt = now;
    this.inflight = this.fetch().finally(() => {
      this.inflight = undefined;
    });
    try {
      this.state = await this.inflight;
      this.lastFailure = undefined;
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      this.lastFailure = { at: now, error };
      throw error;
    }
    return this.state;
  }

  private async fetch(): Promise<KeyState> {
    const { issuerURL, discoveryURL, certificateAuthority, timeoutMs } = this.options;
    const tls = { ...(certificateAuthority !== undefined ? { ca: certificateAuthority } : {}), timeoutMs };
    const discovery = await httpsJson(discoveryURL, tls);
    if (discovery.status !== 200) throw new Error(`OIDC discovery at ${discoveryURL} answered ${discovery.status}`);
    const doc = discovery.json as { issuer?: unknown; jwks_uri?: unknown } | undefined;
    if (!doc || typeof doc.issuer !== 'string' || typeof doc.jwks_uri !== 'string') {
      throw new Error(`OIDC discovery at ${discoveryURL}: the document lacks issuer or jwks_uri`);
    }
    if (doc.issuer !== issuerURL) {
      throw new Error(
        `OIDC discovery at ${discoveryURL}: issuer ${JSON.stringify(doc.issuer)} does not match the configured ${JSON.stringify(issuerURL)}`,
      );
    }
    const jwks = await httpsJson(doc.jwks_uri, tls);
    if (jwks.status !== 200) throw new Error(`JWKS at ${doc.jwks_uri} answered ${jwks.status}`);
    const set = jwks.json as JSONWebKeySet | undefined;
    if (!set || !Array.isArray(set.keys)) throw new Error(`JWKS at ${doc.jwks_uri} is not a key set`);
    const kids = new Set(set.keys.flatMap((k) => (typeof k.kid === 'string' ? [k.kid] : [])));
    return { jwksURI: doc.jwks_uri, getKey: (await jose()).createLocalJWKSet(set), kids, fetchedAt: this.options.now() };
  }
}
