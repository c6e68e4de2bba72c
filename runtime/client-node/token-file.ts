import type { CredentialSource, Credentials } from '../client/index.js';

export interface TokenFileOptions {
  /** Re-read the file when the cached token is older than this; default 60 s (client-go's period). */
  reloadAfterMs?: number;
}

/**
 * A bearer token read from a file and re-read when it rotates: after `reloadAfterMs`, and at once
 * after a 401 (a projected service account token is replaced before it expires).
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
