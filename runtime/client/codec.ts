import type { ResourceInfo } from './types.js';

/**
 * How bodies are written and read. JSON is built in; a Protobuf codec plugs in here later
 * (`ClientConfig.codec`) without touching the transport. A response is always decoded by its own
 * Content-Type, so a server that answers JSON to a Protobuf request is still understood.
 */
export interface Codec {
  /** Media type of request bodies, and the first choice for responses. */
  readonly mediaType: string;
  /** Response bodies are bytes (read as ArrayBuffer) rather than text. */
  readonly binary: boolean;
  encode(value: unknown): string | Uint8Array<ArrayBuffer>;
  decode(body: string | Uint8Array): unknown;
  /** Splits a watch response body into event documents (`{type, object}`). */
  events(chunks: AsyncIterable<Uint8Array>): AsyncIterable<unknown>;
  /** Whether the codec can carry this resource (Protobuf: built-in kinds only). */
  supports(info: ResourceInfo): boolean;
}

export const JSON_MEDIA_TYPE = 'application/json';

/** JSON, as every server and every kind supports. Watch events are one JSON document per line. */
export const jsonCodec: Codec = {
  mediaType: JSON_MEDIA_TYPE,
  binary: false,
  encode: (value) => JSON.stringify(value),
  decode: (body) => JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body)) as unknown,
  events: jsonLines,
  supports: () => true,
};

/** Newline-delimited JSON documents from a byte stream; a trailing partial line is ignored. */
async function* jsonLines(chunks: AsyncIterable<Uint8Array>): AsyncIterable<unknown> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of chunks) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line !== '') yield JSON.parse(line) as unknown;
      newline = buffered.indexOf('\n');
    }
  }
  // A complete document without its newline (a server that ends the stream right after it).
  const rest = (buffered + decoder.decode()).trim();
  if (rest !== '') {
    let last: unknown;
    try {
      last = JSON.parse(rest);
    } catch {
      return; // cut off mid-document by a disconnect: the resume re-delivers it
    }
    yield last;
  }
}

/** True when a Content-Type header names JSON (`application/json; charset=utf-8`, `...+json`). */
export function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return true;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === JSON_MEDIA_TYPE || type.endsWith('+json');
}
