import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ContinuePosition, createContinueTokenSecret, decodeContinueToken, encodeContinueToken } from './continue-token.js';
import { ContinueTokenExpiredError, ContinueTokenInvalidError, isContinueTokenInvalidError } from './errors.js';

const secret = createContinueTokenSecret();
const issuedAt = Date.UTC(2024, 0, 1);
const position: ContinuePosition = {
  prefix: '/apps/deployments/ns1/',
  startAfter: '/apps/deployments/ns1/web',
  revision: 42,
  issuedAt,
};
const options = { prefix: position.prefix, secret, now: () => issuedAt + 1000 };

describe('continue tokens', () => {
  it('round-trips a position', () => {
    const token = encodeContinueToken(position, secret);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeContinueToken(token, options)).toEqual(position);
  });

  it('rejects a tampered payload', () => {
    const [, signature] = encodeContinueToken(position, secret).split('.');
    const forged = Buffer.from(JSON.stringify({ p: position.prefix, s: `${position.prefix}zzz`, r: 1, t: issuedAt })).toString('base64url');
    expect(() => decodeContinueToken(`${forged}.${signature}`, options)).toThrow(ContinueTokenInvalidError);
  });

  it('rejects a token signed with another secret, or with a mangled signature', () => {
    const foreign = encodeContinueToken(position, createContinueTokenSecret());
    expect(() => decodeContinueToken(foreign, options)).toThrow(/signature does not match/);
    const token = encodeContinueToken(position, secret);
    expect(() => decodeContinueToken(`${token}!`, options)).toThrow(ContinueTokenInvalidError);
  });

  it('rejects malformed tokens', () => {
    for (const token of ['', 'abc', 'a.b.c', '.sig', 'payload.']) {
      const error = (() => {
        try {
          decodeContinueToken(token, options);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(isContinueTokenInvalidError(error), token).toBe(true);
    }
  });

  it('rejects a token issued for another collection', () => {
    const token = encodeContinueToken(position, secret);
    expect(() => decodeContinueToken(token, { ...options, prefix: '/apps/deployments/ns2/' })).toThrow(/issued for another collection/);
  });

  it('expires after the lifetime, 5 minutes by default', () => {
    const token = encodeContinueToken(position, secret);
    expect(decodeContinueToken(token, { ...options, now: () => issuedAt + 5 * 60_000 })).toEqual(position);
    expect(() => decodeContinueToken(token, { ...options, now: () => issuedAt + 5 * 60_000 + 1 })).toThrow(ContinueTokenExpiredError);
    expect(() => decodeContinueToken(token, { ...options, ttlMs: 500 })).toThrow(ContinueTokenExpiredError);
  });

  it('carries the count of the rest, and reads a token without one (issued before it was carried)', () => {
    const counted = { ...position, remaining: 1234 };
    expect(decodeContinueToken(encodeContinueToken(counted, secret), options)).toEqual(counted);
    expect(decodeContinueToken(encodeContinueToken(position, secret), options)).not.toHaveProperty('remaining');
  });

  it('rejects a signed count that is not a non-negative integer', () => {
    for (const c of [-1, 1.5, '3', null]) {
      const payload = Buffer.from(JSON.stringify({ p: position.prefix, s: position.startAfter, r: 42, t: issuedAt, c })).toString(
        'base64url',
      );
      const signature = createHmac('sha256', secret).update(payload).digest('base64url');
      expect(() => decodeContinueToken(`${payload}.${signature}`, options), String(c)).toThrow(/wrong type/);
    }
  });
});
