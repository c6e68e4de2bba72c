/**
 * Plain HTTP to the server under test, on undici. Nothing here knows the protocol: it sends bytes,
 * returns status, headers and bytes, and records both for the report.
 */
import { gunzipSync } from 'node:zlib';
import { Agent, type Dispatcher } from 'undici';
import type { Json } from './types.js';

export interface Credentials {
  token?: string;
  cert?: Buffer;
  key?: Buffer;
  ca?: Buffer;
  insecureSkipTlsVerify?: boolean;
  serverName?: string;
}

export interface HttpClientOptions extends Credentials {
  baseUrl: string;
  /** For requests that are not watches. */
  timeoutMs?: number;
  userAgent?: string;
}

export interface SendOptions {
  query?: Record<string, Json>;
  headers?: Record<string, string>;
  body?: Buffer | string;
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[]>;
  /** The body as sent on the wire (still compressed when the server compressed it). */
  wire: Buffer;
  /** The body with gzip undone. */
  raw: Buffer;
  text: string;
  json: Json | undefined;
  /** Request headers as sent (credentials redacted), for the trace. */
  sentHeaders: Record<string, string>;
  url: string;
}

export interface StreamResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: AsyncIterable<Buffer>;
  sentHeaders: Record<string, string>;
  url: string;
  /** Stops reading and closes the connection. */
  close(): void;
}

export const DEFAULT_USER_AGENT = 'svckit-conformance/0.1';

/** Builds `?a=1&flag&b=x`: a null value is a bare flag (`?dryRun`), a list repeats the key. */
export function buildQuery(query: Record<string, Json> | undefined): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      const k = encodeURIComponent(key);
      if (v === null) parts.push(k);
      else parts.push(`${k}=${encodeURIComponent(typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v))}`);
    }
  }
  return parts.join('&');
}

export function joinUrl(baseUrl: string, path: string, query?: Record<string, Json>): string {
  const base = baseUrl.replace(/\/+$/, '');
  const q = buildQuery(query);
  if (!q) return `${base}${path}`;
  return `${base}${path}${path.includes('?') ? '&' : '?'}${q}`;
}

function normalizeHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

export function parseJson(text: string): Json | undefined {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

function isGzip(headers: Record<string, string | string[]>): boolean {
  const v = headers['content-encoding'];
  return (Array.isArray(v) ? v.join(',') : (v ?? '')).toLowerCase().includes('gzip');
}

export class HttpClient {
  readonly baseUrl: string;
  readonly #dispatcher: Dispatcher;
  /** `scheme://host:port` of baseUrl, and its path (a prefix of every request path, often empty). */
  readonly #origin: string;
  readonly #prefix: string;
  readonly #token: string | undefined;
  readonly #timeoutMs: number;
  readonly #userAgent: string;

  constructor(options: HttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const base = new URL(this.baseUrl);
    this.#origin = base.origin;
    this.#prefix = base.pathname.replace(/\/+$/, '');
    this.#token = options.token;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#dispatcher = new Agent({
      connect: {
        ...(options.cert ? { cert: options.cert } : {}),
        ...(options.key ? { key: options.key } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
        ...(options.serverName ? { servername: options.serverName } : {}),
        rejectUnauthorized: !options.insecureSkipTlsVerify,
      },
      // Watches stay open as long as a scenario needs; other requests use their own timeout.
      bodyTimeout: 0,
      headersTimeout: 0,
      connections: 64,
    });
  }

  #headers(extra: Record<string, string> | undefined): { send: Record<string, string>; shown: Record<string, string> } {
    const send: Record<string, string> = { 'user-agent': this.#userAgent, accept: 'application/json' };
    for (const [k, v] of Object.entries(extra ?? {})) send[k.toLowerCase()] = v;
    if (this.#token && send.authorization === undefined) send.authorization = `Bearer ${this.#token}`;
    const shown = { ...send };
    if (shown.authorization) shown.authorization = shown.authorization.replace(/^(\S+)\s.*$/, '$1 <redacted>');
    return { send, shown };
  }

  /**
   * Sends a request with the session's headers; `stop` ends it (with the caller's own signal). The
   * path goes out byte for byte: undici's `request(url)` parses the URL as a browser does, which
   * resolves `.` and `..` segments (`%2E` too), so `configmaps/.` would reach the server as the
   * collection; the dispatcher is handed the origin and the path as written instead.
   */
  async #request(method: string, path: string, options: SendOptions, stop: AbortSignal) {
    const url = joinUrl(this.baseUrl, path, options.query);
    const { send, shown } = this.#headers(options.headers);
    const signal = options.signal ? AbortSignal.any([options.signal, stop]) : stop;
    const res = await this.#dispatcher.request({
      origin: this.#origin,
      path: joinUrl(this.#prefix, path, options.query),
      method: method as Dispatcher.HttpMethod,
      headers: send,
      body: options.body ?? null,
      signal,
    });
    return { res, url, shown };
  }

  async send(method: string, path: string, options: SendOptions = {}): Promise<RawResponse> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const { res, url, shown } = await this.#request(method, path, options, timeout);
    const wire = Buffer.from(await res.body.arrayBuffer());
    const headers = normalizeHeaders(res.headers);
    let raw = wire;
    if (isGzip(headers) && wire.length > 0) {
      try {
        raw = gunzipSync(wire);
      } catch {
        raw = wire;
      }
    }
    const text = raw.toString('utf8');
    return { status: res.statusCode, headers, wire, raw, text, json: parseJson(text), sentHeaders: shown, url };
  }

  /** Opens a streaming GET (a watch) and returns once the status and headers arrived. */
  async stream(method: string, path: string, options: SendOptions = {}): Promise<StreamResponse> {
    const controller = new AbortController();
    const { res, url, shown } = await this.#request(method, path, options, controller.signal);
    const body = res.body;
    body.on('error', () => {
      // An aborted watch ends with an error on the body; the reader already stopped.
    });
    return {
      status: res.statusCode,
      headers: normalizeHeaders(res.headers),
      body: body as AsyncIterable<Buffer>,
      sentHeaders: shown,
      url,
      close: () => {
        controller.abort();
        body.destroy();
      },
    };
  }

  async close(): Promise<void> {
    await this.#dispatcher.destroy();
  }
}
