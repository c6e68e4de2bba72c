/**
 * AES providers with node:crypto, laid out as upstream's value/encrypt/aes: GCM writes a random
 * 12-byte nonce then ciphertext and tag, authenticated with the storage key (a value copied to
 * another key does not open); CBC writes a random 16-byte IV then PKCS#7-padded ciphertext, with
 * no authenticated data (upstream has none for CBC either).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KeyTransformer } from './transformer.js';

const NONCE = 12;
const TAG = 16;
const IV = 16;

/** AES-GCM with a 16, 24 or 32 byte key. */
export function aesGcm(name: string, secret: Buffer): KeyTransformer {
  const algorithm = `aes-${secret.length * 8}-gcm` as const;
  return {
    prefix: `k8s:enc:aesgcm:v1:${name}:`,
    name: `aesgcm/${name}`,
    seal: async (plaintext, key) => gcmSeal(algorithm, secret, plaintext, key),
    open: async (payload, key) => ({ plaintext: gcmOpen(algorithm, secret, payload, key) }),
  };
}

/** AES-CBC with a 32 byte key. */
export function aesCbc(name: string, secret: Buffer): KeyTransformer {
  return {
    prefix: `k8s:enc:aescbc:v1:${name}:`,
    name: `aescbc/${name}`,
    seal: async (plaintext) => {
      const iv = randomBytes(IV);
      const cipher = createCipheriv('aes-256-cbc', secret, iv);
      return Buffer.concat([iv, cipher.update(plaintext), cipher.final()]);
    },
    open: async (payload) => {
      if (payload.length < IV || (payload.length - IV) % IV !== 0) throw new Error('the stored data is not a whole number of AES blocks');
      const decipher = createDecipheriv('aes-256-cbc', secret, payload.subarray(0, IV));
      try {
        return { plaintext: Buffer.concat([decipher.update(payload.subarray(IV)), decipher.final()]) };
      } catch {
        throw new Error('invalid padding: the key does not match the one that encrypted the value');
      }
    },
  };
}

/** AES-GCM sealing shared with the KMS v2 envelope (its derived per-write keys). */
export function gcmSeal(algorithm: string, secret: Buffer, plaintext: Buffer, key: string): Buffer {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv(algorithm as 'aes-256-gcm', secret, nonce);
  cipher.setAAD(Buffer.from(key));
  return Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

export function gcmOpen(algorithm: string, secret: Buffer, payload: Buffer, key: string): Buffer {
  if (payload.length < NONCE + TAG) throw new Error('the stored data was shorter than the required size');
  const decipher = createDecipheriv(algorithm as 'aes-256-gcm', secret, payload.subarray(0, NONCE));
  decipher.setAAD(Buffer.from(key));
  decipher.setAuthTag(payload.subarray(payload.length - TAG));
  try {
    return Buffer.concat([decipher.update(payload.subarray(NONCE, payload.length - TAG)), decipher.final()]);
  } catch {
    throw new Error('message authentication failed: a wrong key, or a value moved from another storage key');
  }
}
