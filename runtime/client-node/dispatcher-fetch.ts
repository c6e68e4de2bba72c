import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createGunzip, createInflate, gunzip, gunzipSync, inflate, inflateSync } from 'node:zlib';
import type { Dispatcher } from 'undici';
import type { ByteStream, FetchLike, FetchResponse } from '../client/index.js';

/** Bodies up to this size are inflated at once; larger ones off the event loop. */
const SYNC_INFLATE_BYTES = 256 * 1024;
const inflaters = {
  gzip: { sync: gunzipSync, async: promisify(gunzip), stream: createGunzip },
  deflate: { sync: inflateSync, async: promisify(inflate), stream: createInflate },
} as const;

/** Redirects fetch follows, and how many before it gives up. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/**
 * The transport's fetch over undici's request API. WHATWG fetch wraps every exchange in Request,
 * Response, Headers and web streams, and inflates gzip through a stream pipeline: on a loopback
 * page of 100 ConfigMaps that was half the client's CPU (issue 27). This reads the body as Node
 * buffers and inflates it in one call. It asks for gzip as fetch does, follows redirects as fetch
 * does (here rather than with undici's redirect interceptor, which cost a tenth of a paged list's
 * CPU and a fifth of a get's), and fails as fetch does (a TypeError whose cause is the socket's
 * error), so the transport cannot tell the two apart.
 */
export function dispatcherFetch(dispatcher: Dispatcher): FetchLike {
  return async (url, init) => {
    let target = new URL(url);
    let method = init.method;
    let body = init.body;
    let headers = 'accept-encoding' in init.headers ? init.headers : { ...init.headers, 'accept-encoding': 'gzip, deflate' };
    for (let redirects = 0; ; redirects++) {
      let answer: Dispatcher.ResponseData;
      try {
        answer = await dispatcher.request({
          origin: target.origin,
          path: target.pathname + target.search,
          method: method as Dispatcher.HttpMethod,
          headers,
          ...(body !== undefined ? { body } : {}),
          ...(init.signal ? { signal: init.signal } : {}),
        });
      } catch (e) {
        if (init.signal?.aborted) throw init.signal.reason;
        throw new TypeError('fetch failed', { cause: e });
      }
      const location = answer.headers.location;
      if (!REDIRECT_STATUSES.has(answer.statusCode) || typeof location !== 'string') return new DispatcherResponse(answer);
      await answer.body.dump();
      if (redirects === MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
      // As fetch: 303 (and 301/302 after a POST) is fetched with GET and no body; another origin
      // is not sent the credentials.
      const next = new URL(location, target);
      if (answer.statusCode === 303 ? method !== 'HEAD' : answer.statusCode <= 302 && method === 'POST') {
        method = 'GET';
        body = undefined;
        headers = without(headers, ['content-type', 'content-length']);
      }
      if (next.origin !== target.origin) headers = without(headers, ['authorization', 'cookie']);
      target = next;
    }
  };
}

function without(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
}

class DispatcherResponse implements FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly #body: Readable;
  readonly #encoding: keyof typeof inflaters | undefined;

  constructor(answer: Dispatcher.ResponseData) {
    this.status = answer.statusCode;
    const raw = answer.headers;
    // Repeated headers (Warning) joined as fetch's Headers joins them.
    this.headers = { get: (name) => joined(raw[name.toLowerCase()]) };
    this.#body = answer.body;
    const encoding = joined(raw['content-encoding'])?.trim().toLowerCase();
    this.#encoding = encoding === 'gzip' || encoding === 'x-gzip' ? 'gzip' : encoding === 'deflate' ? 'deflate' : undefined;
  }

  get body(): ByteStream {
    const source = this.#encoding ? this.#body.pipe(inflaters[this.#encoding].stream()) : this.#body;
    const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    return {
      getReader: () => ({
        read: async () => {
          const next = await chunks.next();
          return next.done ? { done: true } : { done: false, value: next.value };
        },
        cancel: async () => {
          await chunks.return?.();
          this.#body.destroy();
        },
      }),
    };
  }

  async text(): Promise<string> {
    return (await this.#bytes()).toString('utf8');
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async #bytes(): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const part of this.#body) parts.push(part as Buffer);
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    if (!this.#encoding) return bytes;
    const inflater = inflaters[this.#encoding];
    return bytes.byteLength <= SYNC_INFLATE_BYTES ? inflater.sync(bytes) : inflater.async(bytes);
  }
}

function joined(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return typeof value === 'string' ? value : value.join(', ');
}
