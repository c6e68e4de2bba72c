/**
 * Continue tokens of chunked lists: where the next page starts and at which revision, opaque to
 * the client. The payload is base64url JSON followed by an HMAC-SHA256 over it with a per-server
 * secret, so a client can neither forge a position nor replay a token against another collection.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ContinueTokenExpiredError, ContinueTokenInvalidError } from './errors.js';

/** Where a chunked list continues. */
export interface ContinuePosition {
  /** The collection's key prefix the list was issued for. */
  prefix: string;
  /** The last key returned; the next page starts after it. */
  startAfter: string;
  /** The revision of the first page: every page is read at it. */
  revision: number;
  /** When the first token was issued (ms since the epoch); the lifetime counts from here. */
  issuedAt: number;
  /**
   * Keys under the prefix after `startAfter` at `revision`, counted once on the first page and
   * carried along, so later pages need not count the rest again (the list is a snapshot). Tokens
   * issued before it was carried have none; their pages count as before.
   */
  remaining?: number;
}

export interface DecodeContinueTokenOptions {
  /** The key prefix of the collection being listed now. */
  prefix: string;
  secret: Uint8Array | string;
  /** Default Date.now. */
  now?: () => number;
  /** Token lifetime; default 5 minutes. */
  ttlMs?: number;
}

export const DEFAULT_CONTINUE_TOKEN_TTL_MS = 5 * 60_000;

/** A fresh random secret for one server. */
export function createContinueTokenSecret(): Uint8Array {
  return randomBytes(32);
}

export function encodeContinueToken(position: ContinuePosition, secret: Uint8Array | string): string {
  // Short field names: the token travels in every page's URL.
  const payload = Buffer.from(
    JSON.stringify({ p: position.prefix, s: position.startAfter, r: position.revision, t: position.issuedAt, c: position.remaining }),
  ).toString('base64url');
  return `${payload}.${sign(payload, secret)}`;
}

/**
 * The position inside `token`. ContinueTokenInvalidError when it is malformed, not signed with
 * `secret` or issued for another prefix (400); ContinueTokenExpiredError when older than the
 * lifetime (410).
 */
export function decodeContinueToken(token: string, options: DecodeContinueTokenOptions): ContinuePosition {
  const parts = token.split('.');
  const [payload, signature] = parts;
  if (parts.length !== 2 || !payload || !signature) {
    throw new ContinueTokenInvalidError('expected <payload>.<signature>');
  }
  // Compare the text itself: base64url decoding skips stray characters, the signature must not.
  const expected = Buffer.from(sign(payload, options.secret));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ContinueTokenInvalidError('signature does not match');
  }
  const position = parsePayload(payload);
  if (position.prefix !== options.prefix) {
    throw new ContinueTokenInvalidError(`issued for another collection (${JSON.stringify(position.prefix)})`);
  }
  const ttlMs = options.ttlMs ?? DEFAULT_CONTINUE_TOKEN_TTL_MS;
  const now = (options.now ?? Date.now)();
  if (now - position.issuedAt > ttlMs) throw new ContinueTokenExpiredError(position.issuedAt, ttlMs);
  return position;
}

function sign(payload: string, secret: Uint8Array | string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

// Signed payloads come from this module, but a secret shared across versions may still meet an old shape.
function parsePayload(payload: string): ContinuePosition {
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new ContinueTokenInvalidError('payload is not base64url JSON');
  }
  if (typeof data !== 'object' || data === null) throw new ContinueTokenInvalidError('payload is not an object');
  const { p, s, r, t, c } = data as Record<string, unknown>;
  if (
    typeof p !== 'string' ||
    typeof s !== 'string' ||
    !s.startsWith(p) ||
    typeof r !== 'number' ||
    !Number.isSafeInteger(r) ||
    r < 0 ||
    typeof t !== 'number' ||
    !Number.isFinite(t) ||
    (c !== undefined && !isCount(c))
  ) {
    throw new ContinueTokenInvalidError('payload fields are missing or of the wrong type');
  }
  return c === undefined
    ? { prefix: p, startAfter: s, revision: r, issuedAt: t }
    : { prefix: p, startAfter: s, revision: r, issuedAt: t, remaining: c };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
