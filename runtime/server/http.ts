import type { IncomingMessage, ServerResponse } from 'node:http';
import { type JsonApiObject, badRequest, tooLarge, unsupportedMediaType } from '../api/index.js';
import {
  MEDIA_PROTOBUF,
  type ProtobufCodecs,
  decodeYaml,
  findDuplicateKeys,
  isProtobufCodecError,
  isProtobufEnvelopeError,
} from '../codec/index.js';
import { isObject } from '../validate/index.js';
import { checkDepth } from './object-shape.js';

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

/**
 * The URL of a request target: an origin-form path (`/api/v1/pods?watch=1`, also `//x`) or an
 * absolute URL; undefined when it is neither, which the server answers with 400.
 */
export function requestUrl(target: string | undefined): URL | undefined {
  try {
    return target?.startsWith('/') ? new URL(`http://localhost${target}`) : new URL(target ?? '/');
  } catch {
    return undefined;
  }
}

/** A decoded request body and the duplicate keys found in it. */
export interface Body {
  object: JsonApiObject;
  duplicates: readonly string[];
}

/** The Protobuf codecs that may decode a body, when the target kind has messages. */
export interface ProtobufBody {
  codecs: ProtobufCodecs;
}

/**
 * An object body in JSON, YAML or (for kinds with messages) Protobuf, by Content-Type, with its
 * duplicate keys; 400 when it cannot be decoded or is not an object, 415 for any other type.
 */
export function decodeBody(bytes: Buffer, contentType: string | undefined, protobuf: ProtobufBody | undefined): Body {
  const text = bytes.toString('utf8');
  const type = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  let object: unknown;
  if (type === 'application/json' || type === '') {
    object = parseJson(text);
    checkDepth(object);
    if (isObject(object)) return { object, duplicates: findDuplicateKeys(text) };
  } else if (type === 'application/yaml') {
    try {
      object = decodeYaml(text);
    } catch (e) {
      throw badRequest(`the request body is not valid YAML: ${(e as Error).message}`);
    }
    checkDepth(object);
    if (isObject(object)) return { object, duplicates: [] };
  } else if (type === MEDIA_PROTOBUF && protobuf) {
    try {
      const decoded = protobuf.codecs.decode(bytes) as JsonApiObject;
      checkDepth(decoded);
      return { object: decoded, duplicates: [] };
    } catch (e) {
      if (isProtobufEnvelopeError(e) || isProtobufCodecError(e))
        throw badRequest(`the Protobuf request body cannot be decoded: ${e.message}`);
      throw e;
    }
  } else {
    throw unsupportedMediaType(['application/json', 'application/yaml', ...(protobuf ? [MEDIA_PROTOBUF] : [])]);
  }
  throw badRequest(`the request body must be a JSON object, not ${Array.isArray(object) ? 'an array' : typeof object}`);
}

/** An optional JSON body (DeleteOptions): undefined when empty. */
export function decodeOptionalJson(bytes: Buffer): unknown {
  const text = bytes.toString('utf8').trim();
  if (text === '') return undefined;
  const value = parseJson(text);
  checkDepth(value);
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`the request body is not valid JSON: ${(e as Error).message}`);
  }
}

/** Writes a response body with its type, headers and the warnings (one `Warning` item each). */
export function sendBody(
  res: ServerResponse,
  status: number,
  body: string | Uint8Array,
  contentType: string,
  headers: Record<string, string>,
  warnings: Warnings,
): void {
  const all: Record<string, string | string[]> = { 'content-type': contentType, 'cache-control': 'no-cache, private', ...headers };
  const w = warnings.headerValues();
  if (w.length > 0) all.warning = w;
  res.writeHead(status, all);
  res.end(body);
}
