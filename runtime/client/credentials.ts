/**
 * Where a client's credentials come from. A source may cache and refresh as it sees fit; the
 * transport asks before every request and calls `refresh` after a 401. Secrets live only in
 * private fields (never enumerable, never in an error message).
 */
export interface Credentials {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** PEM client certificate (with intermediates) and key, for mutual TLS. */
  clientCertificate?: { cert: string; key: string };
}

export interface CredentialSource {
  /** The credentials to use now. */
  credentials(signal?: AbortSignal): Promise<Credentials>;
  /** Called after a 401: drop what is cached; true when new credentials may differ (worth one retry). */
  refresh?(): Promise<boolean>;
}

/** A fixed bearer token. */
export function bearerToken(token: string): CredentialSource {
  return new StaticToken(token);
}

class StaticToken implements CredentialSource {
  readonly #token: string;

  constructor(token: string) {
    this.#token = token;
  }

  async credentials(): Promise<Credentials> {
    return { token: this.#token };
  }
}

/** A fixed client certificate and key (PEM). */
export function clientCertificate(cert: string, key: string): CredentialSource {
  return new StaticCertificate(cert, key);
}

class StaticCertificate implements CredentialSource {
  readonly #cert: string;
  readonly #key: string;

  constructor(cert: string, key: string) {
    this.#cert = cert;
    this.#key = key;
  }

  async credentials(): Promise<Credentials> {
    return { clientCertificate: { cert: this.#cert, key: this.#key } };
  }
}
