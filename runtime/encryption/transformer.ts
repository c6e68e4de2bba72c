/**
 * Value transformers as the real system's storage/value package has them: each provider key
 * seals a stored value behind its own prefix (`k8s:enc:<provider>:v1:<key>:`); a list of them is
 * read by prefix, and the first one writes. The store contract holds text, so the sealed bytes
 * after the (ASCII) prefix are kept as base64; identity keeps the JSON as it is.
 */

/** One provider key: seals and opens the bytes after its prefix. */
export interface KeyTransformer {
  /** `k8s:enc:aescbc:v1:key1:`; empty for identity. */
  readonly prefix: string;
  /** What `svckit encryption rewrite` counts by: `aescbc/key1`, `kms/<name>`, `identity`. */
  readonly name: string;
  /** `key` is the storage key: the authenticated data of the ciphers that take some (as upstream). */
  seal(plaintext: Buffer, key: string): Promise<Buffer>;
  /** `stale` when the value should be rewritten with the current key of this provider (KMS key id change). */
  open(payload: Buffer, key: string): Promise<{ plaintext: Buffer; stale?: boolean }>;
}

/** A stored value could not be turned back into an object: a server fault, answered 500. */
export class TransformError extends Error {
  override readonly name = 'TransformError';
}

export function isTransformError(e: unknown): e is TransformError {
  return e instanceof TransformError;
}

/** What reading a stored value learned besides the value. */
export interface ReadValue {
  value: string;
  /** Read with a key other than the one writes use now: an update rewrites it even when unchanged. */
  stale: boolean;
  /** The key that opened it ({@link KeyTransformer.name}). */
  keyName: string;
}

/** The written marker of every encrypted value, whatever the provider. */
const ENCRYPTED = 'k8s:enc:';

/** Identity: writes plaintext, reads plaintext, refuses to read what a provider encrypted. */
export const identity: KeyTransformer = {
  prefix: '',
  name: 'identity',
  seal: async (plaintext) => plaintext,
  open: async (payload) => {
    if (payload.subarray(0, ENCRYPTED.length).toString('latin1') === ENCRYPTED) {
      throw new TransformError('identity transformer tried to read encrypted data');
    }
    return { plaintext: payload };
  },
};

/** The providers of one resource, in configuration order: the first writes, any reads by prefix. */
export class ProviderList {
  constructor(readonly keys: readonly KeyTransformer[]) {
    if (keys.length === 0) throw new Error('a provider list needs at least one provider');
  }

  /** The name of the key new writes use. */
  get writeKeyName(): string {
    return this.keys[0]!.name;
  }

  async write(value: string, storageKey: string): Promise<string> {
    const first = this.keys[0]!;
    if (first.prefix === '') return (await first.seal(Buffer.from(value), storageKey)).toString();
    return first.prefix + (await first.seal(Buffer.from(value), storageKey)).toString('base64');
  }

  /**
   * As upstream's PrefixTransformers: the first key whose prefix the value carries opens it (its
   * error is final: a wrong key is not retried with another); identity, which matches everything,
   * passes an encrypted value on to the keys after it and is reported only when none opens it.
   */
  async read(stored: string, storageKey: string): Promise<ReadValue> {
    let identityError: unknown;
    for (const [i, k] of this.keys.entries()) {
      if (!stored.startsWith(k.prefix)) continue;
      const payload = k.prefix === '' ? Buffer.from(stored) : Buffer.from(stored.slice(k.prefix.length), 'base64');
      try {
        const opened = await k.open(payload, storageKey);
        return { value: opened.plaintext.toString(), stale: i !== 0 || opened.stale === true, keyName: k.name };
      } catch (e) {
        if (k.prefix === '') {
          identityError = e;
          continue;
        }
        throw new TransformError(`${storageKey}: ${k.name} could not decrypt the stored value: ${(e as Error).message}`);
      }
    }
    if (identityError) throw new TransformError(`${storageKey}: ${(identityError as Error).message}`);
    // k8s:enc:<provider>:<version>:<key>: names the key that would open it.
    const shown = stored.startsWith(ENCRYPTED) ? `${stored.split(':', 5).join(':')}:` : 'unencrypted';
    throw new TransformError(`${storageKey}: no configured provider reads this value (${shown}); no matching prefix found`);
  }
}
