import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from '../api/index.js';

/** A request with its parsed URL, as every handler receives it. */
export interface Request {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  raw: IncomingMessage;
}

/** What a handler answers: a status, a JSON body, and the warnings gathered on the way. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** A text body (health checks) is sent as it is with this type; JSON otherwise. */
  contentType?: string;
}

/** Warnings for the `Warning` response header, one item each (RFC 7234 section 5.5, code 299). */
export class Warnings {
  readonly items: string[] = [];

  add(text: string): void {
    if (!this.items.includes(text)) this.items.push(text);
  }

  /** The header values: `299 - "text"`, quotes and backslashes escaped. */
  headerValues(): string[] {
    return this.items.map((w) => `299 - "${w.replace(/["\\]/g, (c) => `\\${c}`)}"`);
  }
}

/** Reads the body up to `limit` bytes; a larger one is a 413 before it is read to the end. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) {
      req.resume();
      throw tooLarge(limit);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): StatusError {
  return new StatusError({ code: 413, reason: 'RequestEntityTooLarge', message: `the request body is larger than the limit of ${limit} bytes` });
}

/** Writes a response body with its type, headers and the warnings (one `Warning` item each). */
export function sendBody(res: ServerResponse, status: number, body: string | Uint8Array, contentType: string, headers: Record<string, string>, warnings: Warnings): void {
  const all: Record<string, string | string[]> = { 'content-type': contentType, 'cache-control': 'no-cache, private', ...headers };
  const w = warnings.headerValues();
  if (w.length > 0) all.warning = w;
  res.writeHead(status, all);
  res.end(body);
}
