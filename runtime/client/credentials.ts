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

export interface TokenFileOptions {
  /** Re-read the file when the cached token is older than this; default 60 s (client-go's period). */
  reloadAfterMs?: number;
}

/**
 * A bearer token read from a file and re-read when it rotates: after `reloadAfterMs`, and at once
 * after a 401 (a projected service account token is replaced before it expires). Node only.
 */
export function tokenFile(path: string, options: TokenFileOptions = {}): CredentialSource {
  return new TokenFile(path, options.reloadAfterMs ?? 60_000);
}

class TokenFile implements CredentialSource {
  #token: string | undefined;
  #readAt = 0;

  constructor(
    private readonly path: string,
    private readonly reloadAfterMs: number,
  ) {}

  async credentials(): Promise<Credentials> {
    if (this.#token === undefined || Date.now() - this.#readAt >= this.reloadAfterMs) await this.read();
    return { token: this.#token! };
  }

  async refresh(): Promise<boolean> {
    const before = this.#token;
    await this.read();
    return this.#token !== before;
  }

  private async read(): Promise<void> {
    const { readFile } = await import('node:fs/promises');
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      throw new Error(`cannot read the token file ${this.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const token = text.trim();
    if (token === '') throw new Error(`the token file ${this.path} is empty`);
    this.#token = token;
    this.#readAt = Date.now();
  }
}
