import { sleep } from './backoff.js';
import { type Codec, JSON_MEDIA_TYPE, isJsonContentType, jsonCodec } from './codec.js';
import type { ByteStream, ClientConfig, FetchLike, FetchResponse, WarningHandler } from './config.js';
import type { Credentials } from './credentials.js';
import { ConnectionError, parseRetryAfter, statusErrorFromResponse } from './errors.js';
import { checkedGroupSuffix } from './served-names.js';
import type { ResourceInfo } from './types.js';
import { parseWarningHeader } from './warnings.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One API request, before credentials, encoding and retries. */
export interface ApiRequest {
  method: HttpMethod;
  /** Absolute path below the server URL (`/api/v1/namespaces/x/pods`). */
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  /** The body's media type when it is not the codec's own (patches, apply). JSON bodies then. */
  contentType?: string;
  /** The resource addressed, so the codec can decline kinds it cannot carry. */
  resource?: ResourceInfo;
  signal?: AbortSignal;
  /** Client-side deadline of the whole call, retries included. */
  timeoutMs?: number;
}

const DEFAULT_MAX_RETRIES = 5;
const DEFAULT_MAX_DELAY_MS = 30_000;

/**
 * The HTTP layer every client shares: request building, credentials (re-asked after a 401),
 * codec negotiation with JSON fallback on 406, bounded retries of 429/504 with Retry-After,
 * warnings, and errors as StatusError. Built on fetch, so it runs in Node and in the browser;
 * when the config has a connector (undici's dispatcher in Node, which TLS material and proxies
 * need) every request goes through it.
 */
export class Transport {
  readonly server: string;
  /** The namespace accessors use when called without one. */
  readonly namespace: string;
  /** The suffix of the served groups (`ClientConfig.groupSuffix`). */
  readonly groupSuffix: string;
  readonly codec: Codec;
  private readonly onWarning: WarningHandler;
  private readonly maxRetries: number;
  private readonly maxDelayMs: number;
  /** Whether responses may come gzip-compressed (`ClientConfig.disableCompression`). */
  private readonly compression: boolean;
  /** Features the server refused (watch-list for a resource), so they are not tried again. */
  readonly refused = new Set<string>();
  /** Resources whose server refused the codec (406): JSON from then on. */
  private readonly jsonOnly = new Set<string>();
  private dispatcher: { key: string; fetch: Promise<{ fetch: FetchLike; close(): Promise<void> }> } | undefined;

  constructor(private readonly config: ClientConfig) {
    this.server = config.server.replace(/\/+$/, '');
    this.namespace = config.namespace ?? 'default';
    this.groupSuffix = checkedGroupSuffix(config.groupSuffix);
    this.codec = config.codec ?? jsonCodec;
    this.onWarning = config.onWarning ?? consoleWarnings();
    this.maxRetries = config.retry?.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.maxDelayMs = config.retry?.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    this.compression = !(config.disableCompression ?? isLoopbackServer(this.server));
  }

  /** Sends the request and decodes the response body. */
  async request<R>(req: ApiRequest): Promise<R> {
    const { response, signal, done } = await this.exchange(req);
    try {
      const type = response.headers.get('content-type');
      if (response.status === 204) return undefined as R;
      if (isJsonContentType(type)) {
        const text = await response.text();
        return (text === '' ? undefined : JSON.parse(text)) as R;
      }
      return this.codec.decode(new Uint8Array(await response.arrayBuffer())) as R;
    } catch (e) {
      throw signal?.aborted ? signal.reason : e;
    } finally {
      done();
    }
  }

  /** Opens a watch: the decoded event documents of a streaming response. */
  async stream(req: ApiRequest): Promise<AsyncIterable<unknown>> {
    const { response, done } = await this.exchange(req);
    const codec = isJsonContentType(response.headers.get('content-type')) ? jsonCodec : this.codec;
    const body = response.body;
    if (!body) {
      done();
      return (async function* () {})();
    }
    const what = `${req.method} ${req.path}`;
    return (async function* () {
      try {
        yield* codec.events(chunksOf(body, what, req.signal));
      } finally {
        done();
      }
    })();
  }

  /** Closes pooled connections of the Node dispatcher, if one was made. */
  async close(): Promise<void> {
    const d = this.dispatcher;
    this.dispatcher = undefined;
    if (d) await (await d.fetch).close();
  }

  /** Sends until a success, a non-retryable error, or the retry budget is spent. */
  private async exchange(req: ApiRequest): Promise<{ response: FetchResponse; signal: AbortSignal | undefined; done: () => void }> {
    const deadline = req.timeoutMs !== undefined ? AbortSignal.timeout(req.timeoutMs) : undefined;
    const signal = deadline && req.signal ? AbortSignal.any([req.signal, deadline]) : (deadline ?? req.signal);
    let retries = 0;
    let refreshed = false;
    for (;;) {
      const codec = this.codecFor(req.resource);
      const response = await this.send(req, codec, signal);
      for (const w of parseWarningHeader(response.headers.get('warning'))) this.onWarning(w, { method: req.method, path: req.path });
      if (response.status < 300) return { response, signal, done: () => {} };

      const text = await response.text().catch(() => '');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      const error = statusErrorFromResponse(response.status, body, text, retryAfter, `${req.method} ${req.path}`);

      if (response.status === 401 && !refreshed && this.config.credentials?.refresh) {
        refreshed = true;
        if (await this.config.credentials.refresh()) continue;
      }
      if (response.status === 406 && codec !== jsonCodec && req.resource) {
        this.jsonOnly.add(resourceKey(req.resource));
        continue;
      }
      if ((response.status === 429 || response.status === 504) && retryAfter !== undefined && retries < this.maxRetries) {
        const backoff = 100 * 2 ** retries;
        retries++;
        await sleep(Math.min(this.maxDelayMs, Math.max(retryAfter * 1000, backoff)), signal);
        continue;
      }
      throw error;
    }
  }

  private async send(req: ApiRequest, codec: Codec, signal: AbortSignal | undefined): Promise<FetchResponse> {
    const credentials = this.config.credentials ? await this.config.credentials.credentials(signal) : {};
    const headers: Record<string, string> = { accept: codec === jsonCodec ? JSON_MEDIA_TYPE : `${codec.mediaType}, ${JSON_MEDIA_TYPE}` };
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (req.body !== undefined) {
      const bodyCodec = req.contentType ? jsonCodec : codec;
      headers['content-type'] = req.contentType ?? bodyCodec.mediaType;
      body = bodyCodec.encode(req.body);
    }
    if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
    if (this.config.userAgent) headers['user-agent'] = this.config.userAgent;
    if (!this.compression) headers['accept-encoding'] = 'identity';
    const query = req.query?.toString();
    const url = `${this.server}${req.path}${query ? `?${query}` : ''}`;
    const fetch = await this.fetchFor(credentials);
    try {
      return await fetch(url, { method: req.method, headers, ...(body !== undefined ? { body } : {}), ...(signal ? { signal } : {}) });
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      // The URL carries no secret (credentials travel in headers), so it is safe to name.
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new ConnectionError(`${req.method} ${url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`, { cause: e });
    }
  }

  private codecFor(resource: ResourceInfo | undefined): Codec {
    if (this.codec === jsonCodec || !resource) return jsonCodec;
    if (!this.codec.supports(resource) || this.jsonOnly.has(resourceKey(resource))) return jsonCodec;
    return this.codec;
  }

  /**
   * The config's connector (Node: undici's dispatcher), which TLS material, a proxy and client
   * certificates need; otherwise the platform's fetch.
   */
  private async fetchFor(credentials: Credentials): Promise<FetchLike> {
    if (this.config.fetch) return this.config.fetch;
    const { tls, proxyUrl } = this.config;
    const certificate = credentials.clientCertificate;
    if (!tls && !proxyUrl && !certificate && !this.config.connector) return platformFetch;
    // A rotated client certificate (an exec plugin re-run) needs new connections.
    const key = certificate ? `${certificate.cert}\0${certificate.key}` : '';
    if (this.dispatcher?.key !== key) {
      const previous = this.dispatcher;
      const { connector } = this.config;
      if (!connector) {
        throw new TypeError(
          'TLS settings, a proxy or a client certificate need a connector: use a config from svckit/client/node (loadClientConfig, clientConfigFromFile) or set connector: nodeConnector',
        );
      }
      this.dispatcher = { key, fetch: connector(tls ?? {}, proxyUrl, certificate) };
      if (previous) void previous.fetch.then((d) => d.close()).catch(() => undefined);
    }
    return (await this.dispatcher.fetch).fetch;
  }
}

const platformFetch: FetchLike = (url, init) => fetch(url, init);

/**
 * True when the server is this machine (`localhost` and its subdomains, 127.0.0.0/8, [::1]): gzip
 * there costs CPU on both ends and saves no bandwidth worth having (docs/decisions.md).
 */
function isLoopbackServer(server: string): boolean {
  let host: string;
  try {
    host = new URL(server).hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function resourceKey(r: ResourceInfo): string {
  return `${r.group}/${r.version}/${r.resource}`;
}

/**
 * Reads a web stream with a reader (async iteration of ReadableStream is not in every browser). A
 * broken connection is a ConnectionError, so a watcher knows to resume.
 */
async function* chunksOf(body: ByteStream, what: string, signal: AbortSignal | undefined): AsyncIterable<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      let chunk: { done: boolean; value?: Uint8Array };
      try {
        chunk = await reader.read();
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        throw new ConnectionError(`${what}: the connection broke: ${(e as Error).message}`, { cause: e });
      }
      if (chunk.done || !chunk.value) return;
      yield chunk.value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Each distinct warning once, as kubectl prints them. */
function consoleWarnings(): WarningHandler {
  const seen = new Set<string>();
  return (warning) => {
    if (seen.has(warning)) return;
    seen.add(warning);
    console.warn(`Warning: ${warning}`);
  };
}
