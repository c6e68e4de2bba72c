import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type RequestTarget,
  type StatusError,
  badRequest,
  goQuote,
  isPathError,
  parseRequestTarget,
  requestEntityTooLarge,
} from '../api/index.js';
import { beginTurn } from './fairness.js';

/** A request with its target read once (`parseRequestTarget`), as every stage and handler receives it. */
export interface Request {
  method: string;
  /** The decoded path (see RequestTarget). */
  path: string;
  /** The decoded segments routing and authorization both read. */
  segments: readonly string[];
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  raw: IncomingMessage;
}

/** What a handler answers: a status, a JSON body, and the warnings gathered on the way. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** A text (health checks) or binary body is sent as it is with this type; JSON otherwise. */
  contentType?: string;
  /**
   * The JSON text of `body` followed by the newline every JSON response ends with, when the handler
   * has it already (a stored object as served): a plain JSON response sends it as it is, with no
   * copy of a large text to append the newline. Setting `body` drops it (`JsonTextReply`).
   */
  readonly jsonLine?: string | undefined;
}

/** Warnings for the `Warning` response header, one item each (RFC 7234 section 5.5, code 299). */
export class Warnings {
  readonly items: string[] = [];
  readonly #seen = new Set<string>();
  #truncating = false;

  /**
   * Adds a warning once. Past {@link WARNINGS_TOTAL_LIMIT} characters in all, as upstream's warning
   * recorder: every item is cut to {@link WARNING_ITEM_LIMIT} characters, items are dropped from
   * the end until the total fits, and later warnings are ignored.
   */
  add(text: string): void {
    if (this.#truncating || text === '' || this.#seen.has(text)) return;
    this.#seen.add(text);
    // Upstream's NewWarningHeader refuses text that is not valid UTF-8 or has control characters,
    // and its recorder drops such a warning: a header cannot carry it.
    if (!canCarryInHeader(text)) return;
    this.items.push(text);
    if (totalLength(this.items) <= WARNINGS_TOTAL_LIMIT) return;
    this.#truncating = true;
    for (const [i, item] of this.items.entries()) this.items[i] = [...item].slice(0, WARNING_ITEM_LIMIT).join('');
    while (totalLength(this.items) > WARNINGS_TOTAL_LIMIT) this.items.pop();
  }

  /**
   * The header values: `299 - "text"`, quotes and backslashes escaped, the text in UTF-8 as
   * upstream writes it (Node writes header strings byte per character, so the UTF-8 bytes are
   * given as such characters; a client decodes them as UTF-8 again).
   */
  headerValues(): string[] {
    return this.items.map((w) => Buffer.from(`299 - "${w.replace(/["\\]/g, (c) => `\\${c}`)}"`, 'utf8').toString('latin1'));
  }
}

/** Control characters (Go's unicode.IsControl) and lone surrogates (invalid UTF-8 in Go). */
const NOT_IN_HEADER = /[\p{Cc}\p{Cs}]/u;

function canCarryInHeader(text: string): boolean {
  return !NOT_IN_HEADER.test(text);
}

/** Characters of all warnings of a response beyond which they are truncated (upstream's 4 Ki runes). */
export const WARNINGS_TOTAL_LIMIT = 4 * 1024;
/** Characters each warning is cut to once truncating (upstream's 256 runes). */
export const WARNING_ITEM_LIMIT = 256;

function totalLength(items: readonly string[]): number {
  return items.reduce((n, w) => n + [...w].length, 0);
}

/** 413 as upstream's limitedReadBody: `Request entity too large: limit is 3145728`. */
function bodyTooLarge(limit: number) {
  return requestEntityTooLarge(`limit is ${limit}`);
}

/** Reads the body up to `limit` bytes; a larger one is a 413 before it is read to the end. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw bodyTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) {
      req.resume();
      throw bodyTooLarge(limit);
    }
    chunks.push(buf);
  }
  beginTurn(req);
  return Buffer.concat(chunks);
}

/**
 * The Request of an incoming message, its target read once; `malformed` is the 400 for a target
 * that cannot be read (an invalid percent-escape), answered once the request has its audit ID.
 */
export function readRequest(raw: IncomingMessage): { req: Request; malformed?: StatusError } {
  const request = (target: RequestTarget): Request => ({
    method: raw.method ?? 'GET',
    path: target.path,
    segments: target.segments,
    query: target.query,
    headers: raw.headers,
    raw,
  });
  try {
    return { req: request(parseRequestTarget(raw.url ?? '/')) };
  } catch (e) {
    if (!isPathError(e)) throw e;
    const malformed = badRequest(`the request target ${goQuote(raw.url ?? '')} is not a valid URL path: ${e.detail}`);
    return { req: request({ path: '/', segments: [], query: new URLSearchParams() }), malformed };
  }
}

/**
 * Body decoding lives in `./body.js` (over runtime/codec); these names stay here for the built-in
 * handlers that import them from this file until they move with the reference server.
 * @deprecated Import them from `./body.js`.
 */
export { type Body, parseJsonBody } from './body.js';

/**
 * Writes a response body with its type, headers and the warnings (one `Warning` item each). The
 * headers are set, not written ahead (`writeHead`): `end` then knows the body, sends it with a
 * Content-Length (not chunked, as Go's server does for a body written at once) and, for text, in
 * the same write as the headers.
 */
export function sendBody(
  res: ServerResponse,
  status: number,
  body: string | Uint8Array,
  contentType: string,
  headers: Record<string, string>,
  warnings: Warnings,
): void {
  res.statusCode = status;
  res.setHeader('content-type', contentType);
  res.setHeader('cache-control', 'no-cache, private');
  for (const name in headers) res.setHeader(name, headers[name]!);
  const w = warnings.headerValues();
  if (w.length > 0) res.setHeader('warning', w);
  // Node writes text headers with a text body in the body's encoding (UTF-8): a header byte above
  // 0x7f (an echoed Audit-ID, a warning's text) would go out as two. Such headers go in a write of
  // their own (latin1, byte for byte as received or escaped), the body as bytes after them.
  const auditId = res.getHeader('audit-id');
  const ascii = Object.values(headers).every(isAscii) && w.every(isAscii) && (typeof auditId !== 'string' || isAscii(auditId));
  res.end(ascii || typeof body !== 'string' ? body : Buffer.from(body));
}

const isAscii = (text: string): boolean => /^[\x00-\x7f]*$/.test(text);
