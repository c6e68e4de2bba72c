/**
 * The secretbox provider: XSalsa20-Poly1305 (NaCl's secretbox) with tweetnacl, laid out as
 * upstream's value/encrypt/secretbox: a random 24-byte nonce then the sealed box. No
 * authenticated data, as upstream.
 */
import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import type { KeyTransformer } from './transformer.js';

const NONCE = nacl.secretbox.nonceLength;

export function secretbox(name: string, secret: Buffer): KeyTransformer {
  const key = new Uint8Array(secret);
  return {
    prefix: `k8s:enc:secretbox:v1:${name}:`,
    name: `secretbox/${name}`,
    seal: async (plaintext) => {
      const nonce = randomBytes(NONCE);
      return Buffer.concat([nonce, nacl.secretbox(plaintext, nonce, key)]);
    },
    open: async (payload) => {
      if (payload.length < NONCE + nacl.secretbox.overheadLength) throw new Error('the stored data was shorter than the required size');
      const opened = nacl.secretbox.open(payload.subarray(NONCE), payload.subarray(0, NONCE), key);
      if (!opened) throw new Error('output array is null: a wrong key');
      return { plaintext: Buffer.from(opened) };
    },
  };
}
