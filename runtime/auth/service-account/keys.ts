/**
 * The keys of service-account tokens: one private key signs (`--service-account-signing-key-file`,
 * or one the server generates), and every public key verifies (the signing key's, plus those of
 * `--service-account-key-file`, so tokens of a previous key stay valid while it rotates out). Key
 * ids are upstream's: the unpadded base64url SHA-256 of the public key's DER (SPKI), so a token's
 * `kid` names the same key in the JWKS an OIDC client reads.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, X509Certificate } from 'node:crypto';
import type { JSONWebKeySet, JWK } from 'jose';

/** A key that signs: the private key, its algorithm and key id. */
export interface SigningKey {
  readonly privateKey: KeyObject;
  readonly algorithm: string;
  readonly keyId: string;
}

/** A key file that holds no key the server can use; the message names the file. */
export class ServiceAccountKeyError extends Error {
  override readonly name = 'ServiceAccountKeyError';
}

/** The JWS algorithm of a key, as upstream chooses it: RS256 for RSA, ES256/384/512 by the curve. */
export function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new ServiceAccountKeyError(`unknown private key curve ${curve}, must be 256, 384, or 521`);
  }
  throw new ServiceAccountKeyError(`unknown key type ${key.asymmetricKeyType}, must be RSA or ECDSA`);
}

/** Upstream's key id: base64url (no padding) of the SHA-256 of the public key's PKIX DER. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

/** A signing key from PEM text (PKCS#1, PKCS#8 or SEC1); `source` names the file in errors. */
export function signingKeyFromPem(pem: string, source: string): SigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch (e) {
    throw new ServiceAccountKeyError(`${source}: not a PEM private key: ${(e as Error).message}`);
  }
  try {
    return { privateKey, algorithm: algorithmOf(privateKey), keyId: keyIdOf(createPublicKey(privateKey)) };
  } catch (e) {
    throw new ServiceAccountKeyError(`${source}: ${(e as Error).message}`);
  }
}

/** A new ES256 signing key (P-256: generated in well under a millisecond, unlike RSA). */
export function generateSigningKey(): SigningKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, algorithm: 'ES256', keyId: keyIdOf(createPublicKey(privateKey)) };
}

/** The PKCS#8 PEM of a signing key, to keep it (the store, a file). */
export function signingKeyPem(key: SigningKey): string {
  return key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;

/**
 * The public keys of a `--service-account-key-file`: every PEM block that is a public key, a
 * private key (its public half) or a certificate (its subject's key), as upstream reads the file.
 */
export function publicKeysFromPem(pem: string, source: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const m of pem.matchAll(PEM_BLOCK)) {
    const [block, type] = m as unknown as [string, string];
    try {
      const key =
        type === 'CERTIFICATE'
          ? new X509Certificate(block).publicKey
          : type.endsWith('PRIVATE KEY')
            ? createPublicKey(createPrivateKey(block))
            : createPublicKey(block);
      algorithmOf(key);
      keys.push(key);
    } catch (e) {
      throw new ServiceAccountKeyError(`${source}: the ${type} block is not an RSA or ECDSA key: ${(e as Error).message}`);
    }
  }
  if (keys.length === 0) throw new ServiceAccountKeyError(`${source}: no PEM public key, private key or certificate found`);
  return keys;
}

/** The verification keys as a JWKS (`/openid/v1/jwks`), each with `use`, `kid` and `alg`, without duplicates. */
export function publicKeySet(keys: readonly KeyObject[]): JSONWebKeySet {
  const seen = new Set<string>();
  const out: JWK[] = [];
  for (const key of keys) {
    const kid = keyIdOf(key);
    if (seen.has(kid)) continue;
    seen.add(kid);
    out.push({ use: 'sig', ...(key.export({ format: 'jwk' }) as JWK), kid, alg: algorithmOf(key) });
  }
  return { keys: out };
}
