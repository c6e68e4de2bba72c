/**
 * A test-only HTTP proxy between the conformance runner and a server. Without a mutation it forwards
 * every exchange as is: status, every header (repeated ones stay repeated), bytes, and watch streams
 * chunk by chunk. With one, it changes the exchanges the mutation matches, and counts how often the
 * mutation changed something, so a mutation that never fired is told apart from one that was missed.
 */
import {
  Agent,
  type ClientRequest,
  createServer,
  type IncomingMessage,
  request as httpRequest,
  STATUS_CODES,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from '../types.js';
import { JsonDocumentSplitter } from '../watch-stream.js';
import type { EventTransform, ExchangeMatcher, HeaderMap, Mutation, ProxiedRequest, ProxiedResponse, WatchEventDocument } from './types.js';
import { isObject } from '../json.js';

export interface MutationProxyOptions {
  /** Base URL of the server behind the proxy (http only). */
  target: string;
  mutation?: Mutation;
  port?: number;
}

export interface MutationProxy {
  url: string;
  /** How many times the mutation changed a request, an answer or a watch event. */
  readonly applied: number;
  close(): Promise<void>;
}

/** Connection-level headers: they describe one hop, so each side of the proxy sets its own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
]);

/** The deprecated watch routes: `/api/v1/watch/...`, `/apis/<group>/<version>/watch/...`. */
export const WATCH_PATH = /^\/api\/[^/]+\/watch\/|^\/apis\/[^/]+\/[^/]+\/watch\//;

/**
 * A watch as a 1.30 server reads one: a `watch` parameter that is not `0` or `false` (any case),
 * or a path under `/watch/` (the deprecated watch routes).
 */
export function isWatchRequest(req: Pick<ProxiedRequest, 'path' | 'query'>): boolean {
  if (WATCH_PATH.test(req.path)) return true;
  const w = req.query.get('watch');
  return w !== null && w !== '0' && w.toLowerCase() !== 'false';
}

function headerMap(headers: NodeJS.Dict<string[]>): HeaderMap {
  const out: HeaderMap = {};
  for (const [name, values] of Object.entries(headers)) if (values) out[name.toLowerCase()] = [...values];
  return out;
}

function forwardable(headers: HeaderMap): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) out[name] = values;
  return out;
}

export function matchesExchange(m: ExchangeMatcher, req: Omit<ProxiedRequest, 'body'>): boolean {
  if (m.method !== undefined) {
    const methods = typeof m.method === 'string' ? [m.method] : m.method;
    if (!methods.includes(req.method)) return false;
  }
  if (m.path && !m.path.test(req.path)) return false;
  if (m.query && !m.query(req.query)) return false;
  if (m.watch !== undefined && m.watch !== isWatchRequest(req)) return false;
  for (const [name, pattern] of Object.entries(m.headers ?? {})) {
    const values = req.headers[name.toLowerCase()];
    if (!values || !pattern.test(values.join(', '))) return false;
  }
  return true;
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function asEvent(doc: string): WatchEventDocument | undefined {
  try {
    const parsed = JSON.parse(doc) as Json;
    if (isObject(parsed) && typeof parsed.type === 'string' && isObject(parsed.object)) return { type: parsed.type, object: parsed.object };
  } catch {
    // Not JSON: forwarded untouched, the runner judges it.
  }
  return undefined;
}

function requestTarget(path: string, query: URLSearchParams, rawQuery: string | undefined, queryChanged: boolean): string {
  // An unchanged query is sent byte for byte: re-encoding would turn a bare `?dryRun` into `dryRun=`.
  const q = queryChanged ? query.toString() : rawQuery;
  return q ? `${path}?${q}` : path;
}

/** What every exchange through one proxy shares: the target, its connection pool, the mutation, and how often it changed something. */
interface ProxyContext {
  readonly target: URL;
  readonly agent: Agent;
  readonly mutation: Mutation | undefined;
  applied: number;
}

/** Opens a request to the target: the caller writes the body, then awaits the answer. */
function openUpstream(
  ctx: ProxyContext,
  method: string,
  pathAndQuery: string,
  headers: HeaderMap,
): { outgoing: ClientRequest; answer: Promise<IncomingMessage> } {
  const outgoing = httpRequest({
    host: ctx.target.hostname,
    port: ctx.target.port,
    method,
    path: pathAndQuery,
    headers: { ...forwardable(headers), host: ctx.target.host },
    agent: ctx.agent,
  });
  const answer = new Promise<IncomingMessage>((resolve, reject) => {
    outgoing.on('error', reject);
    outgoing.on('response', resolve);
  });
  return { outgoing, answer };
}

async function upstreamRequest(ctx: ProxyContext, r: ProxiedRequest): Promise<ProxiedResponse> {
  const headers = { ...r.headers };
  delete headers['content-length'];
  if (r.body.length > 0) headers['content-length'] = [String(r.body.length)];
  const { outgoing, answer } = openUpstream(ctx, r.method, requestTarget(r.path, r.query, undefined, true), headers);
  outgoing.end(r.body.length > 0 ? r.body : undefined);
  const upstream = await answer;
  return { status: upstream.statusCode ?? 502, headers: headerMap(upstream.headersDistinct), body: await readAll(upstream) };
}

function writeHead(res: ServerResponse, status: number, headers: HeaderMap): void {
  res.writeHead(status, forwardable(headers));
}

/**
 * Writes the status line, headers and body straight to the socket, then closes it: for headers node
 * refuses to send (a control character, a character above U+00FF), which a faulty server can send.
 * Each character of a header value goes out as one byte, as node writes Latin-1.
 */
function sendRaw(res: ServerResponse, r: ProxiedResponse): void {
  const lines = [`HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? 'Unknown'}`];
  for (const [name, values] of Object.entries(forwardable(r.headers))) {
    if (name === 'content-length') continue;
    for (const v of values) lines.push(`${name}: ${v}`);
  }
  lines.push(`content-length: ${r.body.length}`, 'connection: close', '', '');
  res.socket?.end(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), r.body]));
}

function sendWhole(res: ServerResponse, r: ProxiedResponse, hadLength: boolean): void {
  const headers = { ...r.headers };
  delete headers['content-length'];
  if (hadLength) headers['content-length'] = [String(r.body.length)];
  // Header bytes above 0x7F (UTF-8 Warning text) go out byte for byte: node's header path would
  // encode them again when it sends the head with the body.
  if (Object.values(headers).some((values) => values.some((v) => /[\x80-\xff]/.test(v)))) {
    sendRaw(res, { ...r, headers });
    return;
  }
  try {
    writeHead(res, r.status, headers);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_INVALID_CHAR') throw e;
    sendRaw(res, r);
    return;
  }
  res.end(r.body);
}

function streamEvents(ctx: ProxyContext, res: ServerResponse, upstream: IncomingMessage, transform: EventTransform): void {
  const splitter = new JsonDocumentSplitter();
  const decoder = new TextDecoder();
  writeHead(res, upstream.statusCode ?? 200, headerMap(upstream.headersDistinct));
  res.flushHeaders();
  const write = (text: string): void => {
    if (!res.destroyed) res.write(text);
  };
  const emit = (events: WatchEventDocument[]): void => {
    for (const e of events) write(`${JSON.stringify(e)}\n`);
  };
  upstream.on('data', (chunk: Buffer) => {
    for (const doc of splitter.push(decoder.decode(chunk, { stream: true }))) {
      const event = asEvent(doc);
      const replaced = event ? transform.next(event) : undefined;
      if (replaced === undefined) write(`${doc}\n`);
      else {
        ctx.applied++;
        emit(replaced);
      }
    }
  });
  upstream.on('end', () => {
    const held = transform.end?.() ?? [];
    if (held.length > 0) ctx.applied++;
    emit(held);
    const rest = splitter.rest();
    if (rest.trim()) write(rest);
    res.end();
  });
  upstream.on('close', () => {
    if (!upstream.complete) res.destroy();
  });
}

/** One exchange: match it against the mutation, change the request, then the answer or each watch event. */
async function handle(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rawUrl = req.url ?? '/';
  const q = rawUrl.indexOf('?');
  const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const rawQuery = q < 0 ? undefined : rawUrl.slice(q + 1);
  const request: ProxiedRequest = {
    method: req.method ?? 'GET',
    path,
    query: new URLSearchParams(rawQuery ?? ''),
    headers: headerMap(req.headersDistinct),
    body: Buffer.alloc(0),
  };
  const m = ctx.mutation && matchesExchange(ctx.mutation.match, request) ? ctx.mutation : undefined;
  const buffered = Boolean(m?.request || m?.response);
  let queryChanged = false;
  if (buffered) {
    request.body = await readAll(req);
    const before = request.query.toString();
    if (m?.request?.(request)) {
      ctx.applied++;
      queryChanged = request.query.toString() !== before;
      delete request.headers['content-length'];
      if (request.body.length > 0) request.headers['content-length'] = [String(request.body.length)];
      delete request.headers['transfer-encoding'];
    }
  }
  const { outgoing, answer } = openUpstream(
    ctx,
    request.method,
    requestTarget(request.path, request.query, rawQuery, queryChanged),
    request.headers,
  );
  if (buffered) outgoing.end(request.body.length > 0 ? request.body : undefined);
  else req.pipe(outgoing);
  // A client that goes away (a closed watch) closes the exchange with the server too.
  res.on('close', () => {
    if (!res.writableFinished) outgoing.destroy();
  });
  const upstream = await answer;
  const status = upstream.statusCode ?? 502;
  const stream = isWatchRequest(request) && status === 200;
  if (m?.events && stream) {
    streamEvents(ctx, res, upstream, m.events());
    return;
  }
  // Node's flushHeaders sends a head with bytes above 0x7F (UTF-8 Warning text) encoded again: such
  // an answer goes out whole, byte for byte.
  const highBytes = Object.values(upstream.headersDistinct).some((values) => values?.some((v) => /[\x80-\xff]/.test(v)));
  if (highBytes && !stream && !m?.response) {
    sendWhole(
      res,
      { status, headers: headerMap(upstream.headersDistinct), body: await readAll(upstream) },
      upstream.headers['content-length'] !== undefined,
    );
    return;
  }
  if (m?.response && !stream) {
    const original: ProxiedResponse = { status, headers: headerMap(upstream.headersDistinct), body: await readAll(upstream) };
    const changed = await m.response(original, { request, upstream: (r) => upstreamRequest(ctx, r) });
    if (changed) ctx.applied++;
    sendWhole(res, changed ?? original, original.headers['content-length'] !== undefined);
    return;
  }
  writeHead(res, status, headerMap(upstream.headersDistinct));
  // Headers and chunks go out as they come, so a watch is open and its events are not held back.
  res.flushHeaders();
  upstream.pipe(res);
  upstream.on('close', () => {
    if (!upstream.complete) res.destroy();
  });
}

export async function startMutationProxy(options: MutationProxyOptions): Promise<MutationProxy> {
  const target = new URL(options.target);
  if (target.protocol !== 'http:') throw new Error(`mutation proxy: only http targets are supported, got ${options.target}`);
  // One connection per exchange: node's Agent does not read the server's Keep-Alive timeout, so a
  // reused idle socket can meet the server closing it, and the exchange fails with a 502 from here
  // that no server caused (seen once in five control runs). Loopback connections cost nothing.
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const ctx: ProxyContext = { target, agent, mutation: options.mutation, applied: 0 };
  const server = createServer({ maxHeaderSize: 1 << 20 }, (req, res) => {
    handle(ctx, req, res).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`mutation proxy: ${e instanceof Error ? e.message : String(e)}`);
      } else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get applied() {
      return ctx.applied;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      ctx.agent.destroy();
    },
  };
}
