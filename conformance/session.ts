/**
 * One scenario's view of the server: every request goes through here, so it is traced for the
 * report, checked against the run's safety rule, and, when it created something, remembered for
 * cleanup.
 */
import { stringify as toYaml } from 'yaml';
import { UnsafeRequestError } from './errors.js';
import { rewriteDeep, rewriteGroupSuffix } from './group-suffix.js';
import type { HttpClient, RawResponse } from './http.js';
import type { HttpResult, Json, RequestOptions, TraceEntry } from './types.js';
import { WatchReader } from './watch-stream.js';
import { isObject } from './json.js';

/** Objects the run created, by path, so cleanup removes them and nothing else. */
export class CreatedObjects {
  readonly paths = new Set<string>();

  add(path: string): void {
    this.paths.add(path);
  }
}

export interface SessionOptions {
  client: HttpClient;
  /** The run's name prefix (`svckit-conf-<random>-`): every write must name it. */
  prefix: string;
  groupSuffix: string;
  created: CreatedObjects;
  /** Characters of a body kept in the trace. */
  traceBodyLimit?: number;
}

function isDryRun(query: Record<string, Json> | undefined): boolean {
  // A bare `dryRun` (null) is not a dry run (spec: "No value ... allows side effects").
  const v = query?.dryRun;
  return v === 'All' || (Array.isArray(v) && v.includes('All'));
}

/** How long opening a watch waits for the response headers before the scenario goes on. */
export const WATCH_OPEN_WAIT_MS = 2000;

function trim(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}... (${text.length} characters)` : text;
}

export class Session {
  readonly trace: TraceEntry[] = [];
  readonly #o: SessionOptions;
  readonly #watches = new Map<WatchReader, { entry: TraceEntry; started: number }>();

  constructor(options: SessionOptions) {
    this.#o = options;
  }

  /**
   * The safety rule: a write that is not a create must name the run prefix in its path or in its
   * label selector, so a scenario bug cannot change or delete objects the run did not create.
   */
  #guard(method: string, path: string, query: Record<string, Json> | undefined): void {
    if (method === 'GET' || method === 'POST' || method === 'HEAD' || method === 'OPTIONS') return;
    if (path.includes(this.#o.prefix)) return;
    const selector = query?.labelSelector;
    if (typeof selector === 'string' && selector.includes(this.#o.prefix.replace(/-$/, ''))) return;
    throw new UnsafeRequestError(
      `refusing ${method} ${path}: it names no object of this run (prefix ${this.#o.prefix}); writes must target objects the run created`,
    );
  }

  #encode(options: RequestOptions): { body?: Buffer | string; contentType?: string } {
    if (options.bodyRaw) return { body: options.bodyRaw, contentType: options.contentType ?? 'application/json' };
    if (options.bodyText !== undefined) return { body: options.bodyText, contentType: options.contentType ?? 'application/json' };
    if (options.body === undefined) return options.contentType ? { contentType: options.contentType } : {};
    const contentType = options.contentType ?? 'application/json';
    const body = /yaml/i.test(contentType) ? toYaml(options.body) : JSON.stringify(options.body);
    return { body, contentType };
  }

  #rewrite(path: string, options: RequestOptions): { path: string; options: RequestOptions } {
    const s = this.#o.groupSuffix;
    const out: RequestOptions = { ...options };
    if (options.query) out.query = rewriteDeep(options.query, s);
    if (options.headers) out.headers = rewriteDeep(options.headers, s);
    if (options.body !== undefined) out.body = rewriteDeep(options.body, s);
    if (options.bodyText !== undefined) out.bodyText = rewriteGroupSuffix(options.bodyText, s);
    if (options.contentType !== undefined) out.contentType = rewriteGroupSuffix(options.contentType, s);
    return { path: rewriteGroupSuffix(path, s), options: out };
  }

  #track(method: string, path: string, query: Record<string, Json> | undefined, res: RawResponse): void {
    if (res.status !== 200 && res.status !== 201 && res.status !== 202) return;
    if (isDryRun(query)) return;
    const clean = path.split('?')[0] ?? path;
    const body = res.json;
    const meta = isObject(body) ? body.metadata : undefined;
    const name = isObject(meta) && typeof meta.name === 'string' ? meta.name : undefined;
    if (!name || (isObject(body) && body.kind === 'Status')) return;
    if (method === 'POST' && !clean.endsWith(`/${name}`)) this.#o.created.add(`${clean}/${name}`);
    if ((method === 'PUT' || method === 'PATCH') && res.status === 201 && clean.endsWith(`/${name}`)) this.#o.created.add(clean);
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult> {
    const r = this.#rewrite(path, options);
    this.#guard(method, r.path, r.options.query);
    const { body, contentType } = this.#encode(r.options);
    const headers: Record<string, string> = {};
    if (contentType && body !== undefined) headers['content-type'] = contentType;
    for (const [k, v] of Object.entries(r.options.headers ?? {})) headers[k.toLowerCase()] = v;
    const started = Date.now();
    const entry: TraceEntry = { step: options.step ?? '', method, url: r.path, requestHeaders: {}, millis: 0 };
    if (body !== undefined)
      entry.requestBody = trim(Buffer.isBuffer(body) ? `<${body.length} bytes>` : body, this.#o.traceBodyLimit ?? 2000);
    this.trace.push(entry);
    try {
      const res = await this.#o.client.send(method, r.path, {
        ...(r.options.query ? { query: r.options.query } : {}),
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      entry.url = res.url.slice(this.#o.client.baseUrl.length);
      entry.requestHeaders = res.sentHeaders;
      entry.status = res.status;
      entry.responseHeaders = res.headers;
      const binary = res.raw.includes(0);
      entry.responseBody = binary
        ? `<${res.raw.length} bytes: ${res.raw.subarray(0, 24).toString('hex')}...>`
        : trim(res.text, this.#o.traceBodyLimit ?? 2000);
      entry.millis = Date.now() - started;
      this.#track(method, r.path, r.options.query, res);
      return { status: res.status, headers: res.headers, text: res.text, raw: res.raw, json: res.json };
    } catch (e) {
      entry.error = e instanceof Error ? e.message : String(e);
      entry.millis = Date.now() - started;
      throw e;
    }
  }

  /**
   * Opens a watch. Resolves once the server answered with a status and headers, or after
   * `openWaitMs` without them (the reader fills them in when they come), so that a scenario can make
   * the changes a server holding its headers until the first event would wait for.
   */
  async watch(path: string, options: RequestOptions = {}, openWaitMs = WATCH_OPEN_WAIT_MS): Promise<WatchReader> {
    const r = this.#rewrite(path, options);
    const query: Record<string, Json> = { ...(r.options.query ?? {}) };
    if (!('watch' in query)) query.watch = '1';
    const started = Date.now();
    const entry: TraceEntry = { step: options.step ?? '', method: 'GET', url: r.path, requestHeaders: {}, millis: 0, events: [] };
    this.trace.push(entry);
    const abort = new AbortController();
    const stream = this.#o.client.stream('GET', r.path, {
      query,
      signal: abort.signal,
      ...(r.options.headers ? { headers: r.options.headers } : {}),
    });
    const reader = new WatchReader(stream, abort);
    this.#watches.set(reader, { entry, started });
    stream.then(
      (s) => {
        entry.url = s.url.slice(this.#o.client.baseUrl.length);
        entry.requestHeaders = s.sentHeaders;
        entry.status = s.status;
        entry.responseHeaders = s.headers;
      },
      (e: unknown) => {
        entry.error = e instanceof Error ? e.message : String(e);
      },
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([reader.opened, new Promise<void>((resolve) => (timer = setTimeout(resolve, openWaitMs)))]).finally(() =>
      clearTimeout(timer),
    );
    return reader;
  }

  /** Copies what a watch received so far into its trace entry. */
  sync(reader: WatchReader): void {
    const w = this.#watches.get(reader);
    if (!w) return;
    const limit = Math.min(this.#o.traceBodyLimit ?? 2000, 600);
    w.entry.events = [
      ...reader.events.map((e) => trim(JSON.stringify(e), limit)),
      ...reader.malformed.map((m) => `(not an event) ${trim(m, limit)}`),
    ];
    w.entry.millis = Date.now() - w.started;
  }

  /** Closes every watch still open; the runner calls it when the scenario ends. */
  closeAll(): void {
    for (const reader of this.#watches.keys()) {
      reader.close();
      this.sync(reader);
    }
    this.#watches.clear();
  }
}
