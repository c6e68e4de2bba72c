import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Node, isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import {
  type JsonApiObject,
  type RequestTarget,
  type StatusError,
  badRequest,
  goQuote,
  isPathError,
  parseRequestTarget,
  requestEntityTooLarge,
  unsupportedMediaType,
} from '../api/index.js';
import {
  MEDIA_PROTOBUF,
  MEDIA_PROTOBUF_K8S,
  type ProtobufCodecs,
  decodeYaml,
  findDuplicateKeys,
  isProtobufCodecError,
  isProtobufEnvelopeError,
} from '../codec/index.js';
import { isObject } from '../validate/index.js';
import { beginTurn } from './fairness.js';
import { checkDepth, checkYamlDepth } from './object-shape.js';

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
export function decodeBody(
  bytes: Buffer,
  contentType: string | undefined,
  protobuf: ProtobufBody | undefined,
  opts: { mergeDuplicates?: boolean } = {},
): Body {
  const text = bytes.toString('utf8');
  const type = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  let object: unknown;
  if (type === 'application/json' || type === '') {
    object = parseJsonBody(text, opts.mergeDuplicates ?? false);
    checkDepth(object);
    if (isObject(object)) return { object, duplicates: findDuplicateKeys(text) };
  } else if (type === 'application/yaml') {
    let duplicates: string[];
    checkYamlDepth(text);
    try {
      // A body that decodes without duplicate keys takes the codec's path (and its errors).
      object = decodeYaml(text);
      duplicates = [];
    } catch (e) {
      const tolerant = isDuplicateKeyError(e) ? decodeYamlWithDuplicates(text) : undefined;
      if (!tolerant) throw badRequest(`the request body is not valid YAML: ${(e as Error).message}`);
      ({ value: object, duplicates } = tolerant);
    }
    checkDepth(object);
    checkIntegers(object, '');
    if (isObject(object)) return { object, duplicates };
  } else if ((type === MEDIA_PROTOBUF || type === MEDIA_PROTOBUF_K8S) && protobuf) {
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

/**
 * A JSON request body as the real system's decoder reads it: a key given twice in an object keeps
 * the last value, except that with `merge` (built-in kinds, decoded into Go structs and typed
 * maps, which the decoder fills in place) two objects under the same key are merged, the later
 * one's fields winning. An integer beyond what a JSON number holds exactly (2^53) is a 400 naming
 * the field rather than a silently changed value.
 */
export function parseJsonBody(text: string, merge: boolean, what = 'the request body'): unknown {
  let value: unknown;
  try {
    value = new JsonReader(text, merge).document();
  } catch (e) {
    if (e instanceof UnsafeIntegerError) throw unsafeInteger(e.path, e.literal, what);
    // The reader only reads valid JSON; the platform's parser names the problem.
    return parseJsonOrThrow(text, what);
  }
  return value;
}

function parseJsonOrThrow(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`${what} is not valid JSON: ${(e as Error).message}`);
  }
}

class UnsafeIntegerError extends Error {
  constructor(
    readonly path: string,
    readonly literal: string,
  ) {
    super(`unsafe integer at ${path}`);
  }
}

function unsafeInteger(path: string, literal: string, what: string) {
  const field = path === '' ? '<root>' : path;
  const message = `${field}: Invalid value: ${literal}: integers beyond 2^53-1 (9007199254740991) cannot be held exactly`;
  return badRequest(`${what} cannot be decoded: ${message}`, [{ type: 'FieldValueInvalid', message, field }]);
}

const child = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/** A recursive-descent reader of valid JSON (anything else throws and JSON.parse reports it). */
class JsonReader {
  private i = 0;

  constructor(
    private readonly text: string,
    private readonly merge: boolean,
  ) {}

  document(): unknown {
    const v = this.value('');
    this.space();
    if (this.i !== this.text.length) throw new SyntaxError('trailing text');
    return v;
  }

  private space(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i]!)) this.i++;
  }

  private value(path: string): unknown {
    this.space();
    const c = this.text[this.i];
    if (c === '{') return this.object(path);
    if (c === '[') return this.array(path);
    if (c === '"') return this.string();
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.i, this.i + 400));
    if (m && m[0] !== '' && m[0] !== '-') {
      this.i += m[0].length;
      const n = Number(m[0]);
      if (m[2] === undefined && m[3] === undefined && !Number.isSafeInteger(n)) throw new UnsafeIntegerError(path, m[0]);
      return n;
    }
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    throw new SyntaxError('unexpected character');
  }

  private string(): string {
    const start = this.i;
    this.i++;
    for (;;) {
      const c = this.text[this.i];
      if (c === undefined) throw new SyntaxError('unterminated string');
      if (c === '\\') this.i += 2;
      else if (c === '"') break;
      else this.i++;
    }
    this.i++;
    return JSON.parse(this.text.slice(start, this.i)) as string;
  }

  private object(path: string): Record<string, unknown> {
    this.i++;
    const out: Record<string, unknown> = {};
    this.space();
    if (this.text[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text[this.i] !== '"') throw new SyntaxError('expected a key');
      const key = this.string();
      this.space();
      if (this.text[this.i++] !== ':') throw new SyntaxError('expected :');
      const v = this.value(child(path, key));
      const before = Object.hasOwn(out, key) ? out[key] : undefined;
      const next = this.merge && isObject(before) && isObject(v) ? mergeInto(before, v) : v;
      Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
      this.space();
      const sep = this.text[this.i++];
      if (sep === '}') return out;
      if (sep !== ',') throw new SyntaxError('expected , or }');
    }
  }

  private array(path: string): unknown[] {
    this.i++;
    const out: unknown[] = [];
    this.space();
    if (this.text[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(`${path}[${out.length}]`));
      this.space();
      const sep = this.text[this.i++];
      if (sep === ']') return out;
      if (sep !== ',') throw new SyntaxError('expected , or ]');
    }
  }
}

/** Go's decoder filling a struct it already holds: the later fields win, objects merge. */
function mergeInto(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(b)) {
    const before = Object.hasOwn(a, k) ? a[k] : undefined;
    const next = isObject(before) && isObject(v) ? mergeInto(before, v) : v;
    Object.defineProperty(a, k, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return a;
}

/** Integers a YAML body holds beyond 2^53 are refused as in JSON (the YAML reader rounds them). */
export function checkIntegers(value: unknown, path: string): void {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) throw unsafeInteger(path, String(BigInt(value)), 'the request body');
  } else if (Array.isArray(value)) value.forEach((v, i) => checkIntegers(v, `${path}[${i}]`));
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) checkIntegers(v, child(path, k));
}

/** True for the YAML reader's refusal of a key given twice (the only error read again tolerantly). */
export function isDuplicateKeyError(e: unknown): boolean {
  return e instanceof Error && /keys must be unique/i.test(e.message);
}

/** The YAML reading of the codec (YAML 1.1 scalars, timestamps as strings), duplicate keys allowed. */
const YAML_11 = {
  version: '1.1' as const,
  customTags: (tags: readonly (string | { tag: string })[]) =>
    tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
  uniqueKeys: false,
};

/**
 * A YAML document read as the real system's YAML decoder reads one with a key given twice (the
 * last value wins), with the paths of the duplicate keys; undefined when it is not valid YAML for
 * another reason or holds several documents. Only for a text the strict reader refused for a
 * duplicate key, its depth checked (checkYamlDepth).
 */
export function decodeYamlWithDuplicates(text: string, yaml11 = true): { value: unknown; duplicates: string[] } | undefined {
  const docs = parseAllDocuments(text, (yaml11 ? YAML_11 : { uniqueKeys: false }) as never);
  if (!Array.isArray(docs) || docs.length !== 1) return undefined;
  const doc = docs[0]!;
  if (doc.errors.length > 0) return undefined;
  const duplicates = new Set<string>();
  const walk = (node: unknown, path: string): void => {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const at = child(path, key);
        if (seen.has(key)) duplicates.add(at);
        seen.add(key);
        walk(pair.value, at);
      }
    } else if (isSeq(node)) node.items.forEach((item, i) => walk(item as Node, `${path}[${i}]`));
  };
  walk(doc.contents, '');
  return { value: doc.toJS({ maxAliasCount: 100 }) as unknown, duplicates: [...duplicates] };
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
