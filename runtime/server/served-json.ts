import type { KeyValue } from '../store/index.js';
import type { Reply } from './http.js';
import { isPromise } from './chain.js';
import { decodeObjectNow } from './objects.js';
import type { ServedResource } from './resources.js';
import { servedTextOf } from './stored-text.js';

/**
 * A reply whose body is known as JSON text (a stored object as served): the text goes out as it is
 * when the response is plain JSON, and the body is parsed only when something reads it (a Table,
 * YAML, Protobuf, pretty printing, the audit). A stage that changes the body sets `body`, which
 * drops the text; changing the object read from `body` in place is not allowed.
 */
export class JsonTextReply implements Reply {
  readonly status: number;
  #jsonLine: string | undefined;
  #body: unknown;

  /** `jsonLine`: the body's JSON text and a final newline. */
  constructor(status: number, jsonLine: string, body?: unknown) {
    this.status = status;
    this.#jsonLine = jsonLine;
    this.#body = body;
  }

  get body(): unknown {
    this.#body ??= JSON.parse(this.#jsonLine!);
    return this.#body;
  }

  set body(value: unknown) {
    this.#body = value;
    this.#jsonLine = undefined;
  }

  /** The JSON text of the body and the response's final newline, until the body is set. */
  get jsonLine(): string | undefined {
    return this.#jsonLine;
  }
}

/**
 * A get's reply for a stored object. An object stored at the version asked for is served as its
 * stored text with its resourceVersion spliced in (stored-text.ts), never parsed; one that needs
 * conversion, or is stored in another layout (encrypted, written by an older release), is decoded.
 */
export function storedObjectReply(kv: KeyValue, r: ServedResource): Reply | Promise<Reply> {
  const text = servedTextOf(kv.value, kv.modRevision, r.apiVersion);
  if (text !== undefined) return new JsonTextReply(200, `${text}\n`);
  const object = decodeObjectNow(kv, r);
  if (isPromise(object)) return object.then((body) => ({ status: 200, body }));
  return new JsonTextReply(200, `${JSON.stringify(object)}\n`, object);
}
