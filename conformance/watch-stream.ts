import type { StreamResponse } from './http.js';
import type { Json, OpenWatch, WatchEvent } from './types.js';
import { isObject } from './json.js';

/**
 * Splits a byte stream into JSON documents. The spec only says "a series of JSON event documents",
 * so documents are found by bracket depth rather than by newlines.
 */
export class JsonDocumentSplitter {
  #buffer = '';
  #depth = 0;
  #inString = false;
  #escaped = false;
  #start = -1;
  #scanned = 0;

  push(chunk: string): string[] {
    this.#buffer += chunk;
    const docs: string[] = [];
    for (let i = this.#scanned; i < this.#buffer.length; i++) {
      const c = this.#buffer[i];
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === '\\') this.#escaped = true;
        else if (c === '"') this.#inString = false;
        continue;
      }
      if (c === '"') this.#inString = true;
      else if (c === '{' || c === '[') {
        if (this.#depth === 0) this.#start = i;
        this.#depth++;
      } else if (c === '}' || c === ']') {
        this.#depth--;
        if (this.#depth === 0 && this.#start >= 0) {
          docs.push(this.#buffer.slice(this.#start, i + 1));
          this.#buffer = this.#buffer.slice(i + 1);
          i = -1;
          this.#start = -1;
        }
      }
      this.#scanned = i + 1;
    }
    this.#scanned = this.#buffer.length;
    if (this.#depth === 0) {
      // Whitespace between documents is dropped so the buffer does not grow.
      this.#buffer = this.#buffer.trimStart();
      this.#scanned = this.#buffer.length;
    }
    return docs;
  }

  /** Text received after the last complete document. */
  rest(): string {
    return this.#buffer;
  }
}

/**
 * Reads watch events as they arrive; scenarios wait on it with a time bound. It exists as soon as the
 * request is sent: some servers send the response headers only with the first event, so a scenario
 * must be able to make its changes before the watch has answered.
 */
export class WatchReader implements OpenWatch {
  readonly events: WatchEvent[] = [];
  /** Documents that were not `{type, object}` events: the scenario fails on them. */
  readonly malformed: string[] = [];
  ended = false;
  /** Resolves when the status and headers arrived; rejects when the request failed. */
  readonly opened: Promise<void>;
  #stream: StreamResponse | undefined;
  #error: Error | undefined;
  readonly #abort: AbortController;
  readonly #waiters = new Set<() => void>();
  readonly #done: Promise<void>;

  constructor(stream: Promise<StreamResponse>, abort: AbortController) {
    this.#abort = abort;
    this.opened = stream.then(
      (s) => {
        this.#stream = s;
      },
      (e: unknown) => {
        this.#error = e instanceof Error ? e : new Error(String(e));
        throw this.#error;
      },
    );
    this.opened.catch(() => undefined);
    this.#done = this.#read();
  }

  /** 0 until the server answered. */
  get status(): number {
    return this.#stream?.status ?? 0;
  }

  get headers(): Record<string, string | string[]> {
    return this.#stream?.headers ?? {};
  }

  /** Why the request failed before the server answered, if it did. */
  get error(): Error | undefined {
    return this.#error;
  }

  async #read(): Promise<void> {
    const splitter = new JsonDocumentSplitter();
    const decoder = new TextDecoder();
    try {
      await this.opened;
      const stream = this.#stream;
      if (!stream) return;
      for await (const chunk of stream.body) {
        for (const doc of splitter.push(decoder.decode(chunk, { stream: true }))) this.#accept(doc);
      }
    } catch {
      // Closed by us or by the server, or never opened; either way the stream is over.
    } finally {
      const rest = splitter.rest().trim();
      if (rest) this.malformed.push(rest);
      this.ended = true;
      this.#notify();
    }
  }

  #accept(doc: string): void {
    let parsed: Json;
    try {
      parsed = JSON.parse(doc) as Json;
    } catch {
      this.malformed.push(doc);
      this.#notify();
      return;
    }
    if (!isObject(parsed) || typeof parsed.type !== 'string' || !isObject(parsed.object)) {
      this.malformed.push(doc);
    } else {
      this.events.push({ type: parsed.type, object: parsed.object });
    }
    this.#notify();
  }

  #notify(): void {
    for (const w of [...this.#waiters]) w();
  }

  filtered(skip: readonly string[] = []): WatchEvent[] {
    return this.events.filter((e) => !skip.includes(e.type));
  }

  /** Resolves when `count` events not of a skipped type arrived, the stream ended, or time ran out. */
  waitFor(count: number, withinMs: number, skip: readonly string[] = []): Promise<WatchEvent[]> {
    return new Promise((resolve) => {
      const check = (): boolean => {
        const got = this.filtered(skip);
        if (got.length >= count || this.ended || this.malformed.length > 0) {
          finish();
          return true;
        }
        return false;
      };
      const finish = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(onEvent);
        resolve(this.filtered(skip));
      };
      const onEvent = (): void => {
        check();
      };
      const timer = setTimeout(finish, withinMs);
      this.#waiters.add(onEvent);
      check();
    });
  }

  /** Waits `ms` and returns the events that arrived meanwhile beyond the first `seen`. */
  async quiet(ms: number, seen: number, skip: readonly string[] = []): Promise<WatchEvent[]> {
    if (ms > 0 && !this.ended) await this.waitFor(seen + 1, ms, skip);
    return this.filtered(skip).slice(seen);
  }

  close(): void {
    this.#abort.abort();
    this.#stream?.close();
  }

  async closed(): Promise<void> {
    await this.#done;
  }
}
