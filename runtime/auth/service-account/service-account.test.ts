/**
 * The issuer's token checks on their own: what is not its token is left to other authenticators
 * (a token file's opaque token, another issuer's JWT), and what is its token but wrong is refused
 * with upstream's words; key ids are upstream's (the SHA-256 of the public key's DER).
 */
import { createHash, createPublicKey } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { generateSigningKey, keyIdOf, publicKeySet } from './keys.js';
import { ServiceAccountIssuer } from './issuer.js';

const ISSUER = 'https://issuer.example';
let now = new Date('2026-01-01T00:00:00Z');
const key = generateSigningKey();
const issuer = new ServiceAccountIssuer({ issuers: [ISSUER], signingKey: key, now: () => now });
const claims = {
  namespace: 'ns',
  serviceAccount: { name: 'sa', uid: 'u-1' },
  audiences: [ISSUER],
  expirationSeconds: 600,
};

describe('ServiceAccountIssuer.check', () => {
  it('verifies its own tokens', async () => {
    const { token } = await issuer.issue(claims);
    const checked = await issuer.check(token);
    expect(checked.outcome).toBe('verified');
  });

  it('skips what is not its token: an opaque token, another issuer, a JWT without iss', async () => {
    expect(await issuer.check('alice-token')).toEqual({ outcome: 'skip' });
    const other = await new SignJWT({ iss: 'https://other.example', sub: 'x' }).setProtectedHeader({ alg: 'ES256' }).sign(key.privateKey);
    expect(await issuer.check(other)).toEqual({ outcome: 'skip' });
    const anonymous = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'ES256' }).sign(key.privateKey);
    expect(await issuer.check(anonymous)).toEqual({ outcome: 'skip' });
  });

  it('refuses an unsigned token, one not valid yet, and one without exp', async () => {
    const unsigned = new UnsecuredJWT({ iss: ISSUER, aud: [ISSUER], exp: 2e9 }).encode();
    expect(await issuer.check(unsigned)).toMatchObject({ outcome: 'reject' });
    const { token } = await issuer.issue(claims);
    const at = now;
    now = new Date(at.getTime() - 120_000);
    try {
      expect(await issuer.check(token)).toEqual({ outcome: 'reject', reason: 'service account token is not valid yet' });
    } finally {
      now = at;
    }
    const forever = await new SignJWT({ iss: ISSUER, aud: [ISSUER] })
      .setProtectedHeader({ alg: 'ES256', kid: key.keyId })
      .sign(key.privateKey);
    expect(await issuer.check(forever)).toMatchObject({ outcome: 'reject' });
  });
});

describe('keys', () => {
  it("names a key by the base64url SHA-256 of its public key's DER, as upstream", () => {
    const der = createPublicKey(key.privateKey).export({ type: 'spki', format: 'der' });
    const expected = createHash('sha256')
      .update(der)
      .digest()
      .toString('base64')
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    expect(key.keyId).toBe(expected);
    expect(keyIdOf(createPublicKey(key.privateKey))).toBe(expected);
  });

  it('lists each public key once, without private parts', () => {
    const pub = createPublicKey(key.privateKey);
    const set = publicKeySet([pub, pub]);
    expect(set.keys).toHaveLength(1);
    expect(set.keys[0]).toMatchObject({ use: 'sig', kty: 'EC', crv: 'P-256', alg: 'ES256', kid: key.keyId });
    expect(set.keys[0]).not.toHaveProperty('d');
  });
});
