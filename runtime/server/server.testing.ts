/**
 * Shared harness of the handler-level server tests: a fresh ApiServer over a fresh store per test,
 * with an injectable clock, a namespace to work in, request helpers on supertest, and a reader for
 * the chunked JSON lines of a watch. Tests import the generated kinds; the runtime itself never does.
 */
import { type IncomingMessage, get as httpGet, request as httpRequest } from 'node:http';
import request from 'supertest';
import { expect } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { parseFeatureGates } from '../features/index.js';
import { type Store, createStore } from '../store/index.js';
import { celRuleChecker } from './cel-rules.js';
import { ApiServer, type ApiServerOptions, mergeCatalogs } from './server.js';
import { builtinHandlers } from '../../reference/kinds/index.js';

/** A JSON value as the tests read it. */
export type Json = any;

/** A clock that moves only when told to: the store's history window and the continue-token lifetime read it. */
export class TestClock {
  ms = Date.UTC(2024, 0, 1, 0, 0, 0);

  readonly now = (): number => this.ms;
  readonly date = (): Date => new Date(this.ms);

  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface HarnessOptions {
  /** A store to use instead of a fresh in-memory one (it is closed with the server). */
  store?: Store;
  historyWindowMs?: number;
  continueTtlMs?: number;
  futureRevisionWaitMs?: number;
  bookmarkIntervalMs?: number;
  maxBodyBytes?: number;
  /** The namespace of the test (default `test`). */
  namespace?: string;
  /** Whether to create it (default true; false when it exists already, as after a restart). */
  createNamespace?: boolean;
  server?: Partial<ApiServerOptions>;
}

export const HISTORY_WINDOW_MS = 60_000;
export const CONTINUE_TTL_MS = 30_000;

export const CRONTABS = '/apis/stable.example.svc.io/v1';
export const crontabs = (ns: string): string => `${CRONTABS}/namespaces/${ns}/crontabs`;
export const crontab = (ns: string, name: string): string => `${crontabs(ns)}/${name}`;
export const services = (ns: string): string => `/api/v1/namespaces/${ns}/services`;
export const service = (ns: string, name: string): string => `${services(ns)}/${name}`;
export const NODES = '/api/v1/nodes';
export const NAMESPACES = '/api/v1/namespaces';

/** A valid CronTab; `spec` and `metadata` are merged over the defaults. */
export function cronTabBody(
  name: string,
  extra: { labels?: Record<string, string>; spec?: Json; metadata?: Json; status?: Json } = {},
): Json {
  const body: Json = {
    apiVersion: 'stable.example.svc.io/v1',
    kind: 'CronTab',
    metadata: { name, ...(extra.labels ? { labels: extra.labels } : {}), ...extra.metadata },
    spec: { cronSpec: '*/5 * * * *', image: 'registry.example/cron:1', ...extra.spec },
  };
  if (extra.status !== undefined) body.status = extra.status;
  return body;
}

/** A valid Service with one port. */
export function serviceBody(name: string, extra: { labels?: Record<string, string>; spec?: Json } = {}): Json {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, ...(extra.labels ? { labels: extra.labels } : {}) },
    spec: { ports: [{ name: 'http', port: 80 }], ...extra.spec },
  };
}

/** One test's server: the server, its store and clock, the namespace, and request helpers. */
export class Harness {
  constructor(
    readonly server: ApiServer,
    readonly store: Store,
    readonly clock: TestClock,
    readonly url: string,
    readonly ns: string,
  ) {}

  /** A supertest agent bound to the listening server. */
  get http(): ReturnType<typeof request> {
    return request(this.server.http);
  }

  get(path: string): request.Test {
    return this.http.get(path);
  }

  post(path: string, body: unknown): request.Test {
    return this.http.post(path).set('content-type', 'application/json').send(JSON.stringify(body));
  }

  put(path: string, body: unknown): request.Test {
    return this.http.put(path).set('content-type', 'application/json').send(JSON.stringify(body));
  }

  patch(path: string, body: unknown, type: 'json' | 'merge' | 'strategic' | string = 'merge'): request.Test {
    const contentType =
      type === 'json'
        ? 'application/json-patch+json'
        : type === 'merge'
          ? 'application/merge-patch+json'
          : type === 'strategic'
            ? 'application/strategic-merge-patch+json'
            : type;
    return this.http
      .patch(path)
      .set('content-type', contentType)
      .send(typeof body === 'string' ? body : JSON.stringify(body));
  }

  delete(path: string, body?: unknown): request.Test {
    const req = this.http.delete(path);
    return body === undefined ? req : req.set('content-type', 'application/json').send(JSON.stringify(body));
  }

  /** POSTs and expects 201; returns the created object. */
  async create(collection: string, body: unknown): Promise<Json> {
    const res = await this.post(collection, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  async createCronTab(name: string, extra: Parameters<typeof cronTabBody>[1] = {}, ns = this.ns): Promise<Json> {
    return this.create(crontabs(ns), cronTabBody(name, extra));
  }

  /** Creates a namespace and waits for the server's controllers to fill it (its `default` ServiceAccount). */
  async createNamespace(name: string): Promise<Json> {
    const ns = await this.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await this.server.context.hooks.idle();
    return ns;
  }

  /** GETs and expects 200; returns the body. */
  async read(path: string): Promise<Json> {
    const res = await this.get(path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }

  /** The store's current revision as a resourceVersion string. */
  async currentRv(): Promise<string> {
    return String(await this.store.currentRevision());
  }

  /** Opens a watch (the path should carry `watch=1`); resolves once the response headers arrived. */
  watch(path: string): Promise<WatchReader> {
    return WatchReader.open(`${this.url}${path}`);
  }

  /** Advances the clock past the history window and compacts: everything written before is history. */
  async expireHistory(): Promise<void> {
    this.clock.advance(HISTORY_WINDOW_MS + 1);
    await this.store.compact();
  }

  async close(): Promise<void> {
    await this.server.close();
  }
}

/** Starts a server on a free port over a fresh store (memory unless given), with a namespace for the test. */
export async function startServer(options: HarnessOptions = {}): Promise<Harness> {
  const clock = new TestClock();
  const store =
    options.store ??
    (await createStore('memory', {
      historyWindowMs: options.historyWindowMs ?? HISTORY_WINDOW_MS,
      now: clock.now,
      compactionIntervalMs: 0,
    }));
  const server = new ApiServer({
    kinds: allKinds,
    store,
    rules: celRuleChecker(),
    continueTtlMs: options.continueTtlMs ?? CONTINUE_TTL_MS,
    futureRevisionWaitMs: options.futureRevisionWaitMs ?? 50,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 50,
    now: clock.date,
    log: () => undefined,
    // The handler tests exercise watch-list too; the gate's 1.30 default (off) is tested on its own.
    featureGates: parseFeatureGates('WatchList=true').gates,
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...options.server,
    // The built-in kinds' behaviour, as the reference server serves them; a test's own names over them.
    handlers: mergeCatalogs(builtinHandlers, options.server?.handlers ?? {}),
  });
  const url = await server.listen(0);
  const ns = options.namespace ?? 'test';
  const h = new Harness(server, store, clock, url, ns);
  if (options.createNamespace ?? true) await h.createNamespace(ns);
  return h;
}

/** The items of the `Warning` response header, unquoted (`299 - "text"` gives `text`). */
export function warningsOf(res: request.Response): string[] {
  const raw = (res as unknown as { res: IncomingMessage }).res.rawHeaders;
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'warning') continue;
    // The server writes the text as UTF-8 bytes, which Node hands over one character per byte.
    const m = /^299 - "((?:[^"\\]|\\.)*)"$/.exec(Buffer.from(raw[i + 1]!, 'latin1').toString('utf8'));
    expect(m, `malformed Warning header ${raw[i + 1]}`).not.toBeNull();
    out.push(m![1]!.replace(/\\(.)/g, '$1'));
  }
  return out;
}

/** Expects a Status error response and returns the Status. */
export function expectStatus(res: request.Response, code: number, reason: string): Json {
  expect({ status: res.status, reason: res.body?.reason }, JSON.stringify(res.body)).toEqual({ status: code, reason });
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason });
  expect(typeof res.body.message).toBe('string');
  return res.body;
}

/** The names of a list's items, in order. */
export function names(list: Json): string[] {
  return (list.items as Json[]).map((i) => i.metadata.name);
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Json;
}

/**
 * Reads a watch response: one JSON document per line, queued as they arrive. `next` waits for the
 * next event with a timeout; `quiet` asserts that nothing arrives for a while; `rest` waits for the
 * end of the stream.
 */
export class WatchReader {
  private readonly queue: WatchEvent[] = [];
  private buffer = '';
  private waiter: (() => void) | undefined;
  ended = false;

  private constructor(readonly res: IncomingMessage) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl).trim();
        this.buffer = this.buffer.slice(nl + 1);
        if (line !== '') this.queue.push(JSON.parse(line) as WatchEvent);
      }
      this.wake();
    });
    const end = () => {
      this.ended = true;
      this.wake();
    };
    res.on('end', end);
    res.on('close', end);
    res.on('error', end);
  }

  static open(url: string): Promise<WatchReader> {
    return new Promise((resolve, reject) => {
      const req = httpGet(url, (res) => resolve(new WatchReader(res)));
      req.on('error', reject);
    });
  }

  get status(): number {
    return this.res.statusCode ?? 0;
  }

  /** The next event; fails after `timeoutMs` or when the stream ends first. */
  async next(timeoutMs = 2000): Promise<WatchEvent> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      if (this.ended) throw new Error('the watch ended before the next event');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms`);
      await this.wait(left);
    }
    return this.queue.shift()!;
  }

  /** The next `n` events. */
  async take(n: number, timeoutMs = 2000): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (let i = 0; i < n; i++) out.push(await this.next(timeoutMs));
    return out;
  }

  /** The next event that is not a BOOKMARK. */
  async nextChange(timeoutMs = 2000): Promise<WatchEvent> {
    for (;;) {
      const e = await this.next(timeoutMs);
      if (e.type !== 'BOOKMARK') return e;
    }
  }

  /** Asserts that no event other than a BOOKMARK arrives within `ms`. */
  async quiet(ms = 150): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    const changes = this.queue.filter((e) => e.type !== 'BOOKMARK');
    expect(changes, 'unexpected watch events').toEqual([]);
    this.queue.length = 0;
  }

  /** The events received and not read yet (read nothing more). */
  pending(): WatchEvent[] {
    return [...this.queue];
  }

  /** Waits for the end of the stream and returns the events not read yet. */
  async rest(timeoutMs = 3000): Promise<WatchEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the watch did not end within ${timeoutMs} ms`);
      await this.wait(left);
    }
    return this.queue.splice(0);
  }

  close(): void {
    this.res.destroy();
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        resolve();
      }, ms);
      this.waiter = () => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve();
      };
    });
  }

  private wake(): void {
    this.waiter?.();
  }
}

/** Query string helper: `qs({ watch: 1, resourceVersion: '5' })` gives `?watch=1&resourceVersion=5`. */
export function qs(params: Record<string, string | number | boolean | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) p.append(k, String(v));
  const s = p.toString();
  return s === '' ? '' : `?${s}`;
}

/** What a raw request got: the status, the body as text, and each `Warning` header's text read as UTF-8. */
export interface RawAnswer {
  status: number;
  body: string;
  warnings: string[];
}

/** A raw request: the target goes on the wire as written (no client normalises it); a body is sent as JSON. */
export function rawRequest(url: string, method: string, target: string, body?: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, method, path: target, headers: body ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          const warnings: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            if (res.rawHeaders[i]!.toLowerCase() === 'warning')
              warnings.push(Buffer.from(res.rawHeaders[i + 1]!, 'latin1').toString('utf8'));
          resolve({ status: res.statusCode ?? 0, body: text, warnings });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
