/**
 * The secretbox provider: XSalsa20-Poly1305 (NaCl's secretbox) with tweetnacl, laid out as
 * upstream's value/encrypt/secretbox: a random 24-byte nonce then the sealed box. No
 * authenticated data, as upstream.
 */
import { randomBytes } from 'node:crypto';
import type { KeyTransformer } from './transformer.js';

/** NaCl's secretbox nonce and tag lengths (tweetnacl's `secretbox.nonceLength`, `overheadLength`). */
const NONCE = 24;
const OVERHEAD = 16;

/** tweetnacl, imported on the first seal or open: a server without a secretbox key need not load it to start (issue 27). */
async function naclSecretbox() {
  return (await import('tweetnacl')).default.secretbox;
}

export function secretbox(name: string, secret: Buffer): KeyTransformer {
  const key = new Uint8Array(secret);
  return {
    prefix: `k8s:enc:secretbox:v1:${name}:`,
    name: `secretbox/${name}`,
    seal: async (plaintext) => {
      const nonce = randomBytes(NONCE);
      return Buffer.concat([nonce, (await naclSecretbox())(plaintext, nonce, key)]);
    },
    open: async (payload) => {
      if (payload.length < NONCE + OVERHEAD) throw new Error('the stored data was shorter than the required size');
      const opened = (await naclSecretbox()).open(payload.subarray(NONCE), payload.subarray(0, NONCE), key);
      if (!opened) throw new Error('output array is null: a wrong key');
      return { plaintext: Buffer.from(opened) };
    },
  };
}
