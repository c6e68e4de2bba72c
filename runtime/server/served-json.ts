import type { KeyValue } from '../store/index.js';
import type { Reply } from './http.js';
import { isPromise } from './chain.js';
import { decodeObjectNow } from './objects.js';
import type { ServedResource } from './resources.js';

/**
 * A reply whose body is known as JSON text (a stored object as served): the text goes out as it is
 * when the response is plain JSON, and the body is parsed only when something reads it (a Table,
 * YAML, Protobuf, pretty printing, the audit). A stage that changes the body sets `body`, which
 * drops the text; changing the object read from `body` in place is not allowed.
 */
export class JsonTextReply implements Reply {
  readonly status: number;
  #json: string | undefined;
  #body: unknown;

  constructor(status: number, json: string, body?: unknown) {
    this.status = status;
    this.#json = json;
    this.#body = body;
  }

  get body(): unknown {
    this.#body ??= JSON.parse(this.#json!);
    return this.#body;
  }

  set body(value: unknown) {
    this.#body = value;
    this.#json = undefined;
  }

  /** The JSON text of the body (without the response's final newline), until the body is set. */
  get json(): string | undefined {
    return this.#json;
  }
}

/** One object's JSON as served, and the stored value it was made from. */
interface ServedJson {
  modRevision: number;
  value: string;
  json: string;
}

/** The texts kept per resource version, oldest first; by the storage key of each object. */
interface ServedTexts {
  byKey: Map<string, ServedJson>;
  bytes: number;
}

/**
 * The characters of JSON text kept per resource version: the objects read most recently, as
 * kube-apiserver's watch cache keeps serialisations of the objects it serves.
 */
const KEPT_CHARS_PER_RESOURCE = 8 * 1024 * 1024;

/** Kept with the served resource: a resource the server no longer serves takes its texts with it. */
const servedTexts = new WeakMap<ServedResource, ServedTexts>();

/**
 * A get's reply for a stored object. An object stored at the version asked for is served without
 * conversion: its JSON (with its resourceVersion) is made once and served again while the store
 * holds the same value at the same revision, so an update, a delete and a recreate are each read
 * anew. An object that needs conversion is decoded on every read (a webhook may convert it).
 */
export function storedObjectReply(kv: KeyValue, r: ServedResource): Reply | Promise<Reply> {
  let texts = servedTexts.get(r);
  const kept = texts?.byKey.get(kv.key);
  if (kept && kept.modRevision === kv.modRevision && kept.value === kv.value) return new JsonTextReply(200, kept.json);
  const object = decodeObjectNow(kv, r);
  if (isPromise(object) || object.apiVersion !== r.apiVersion) return Promise.resolve(object).then((body) => ({ status: 200, body }));
  const json = JSON.stringify(object);
  if (!texts) servedTexts.set(r, (texts = { byKey: new Map(), bytes: 0 }));
  keep(texts, kv, json);
  return new JsonTextReply(200, json, object);
}

function keep(texts: ServedTexts, kv: KeyValue, json: string): void {
  const size = (entry: ServedJson) => entry.json.length + entry.value.length;
  const entry = { modRevision: kv.modRevision, value: kv.value, json };
  if (size(entry) > KEPT_CHARS_PER_RESOURCE / 8) return;
  const old = texts.byKey.get(kv.key);
  if (old) {
    texts.byKey.delete(kv.key);
    texts.bytes -= size(old);
  }
  texts.byKey.set(kv.key, entry);
  texts.bytes += size(entry);
  for (const [key, oldest] of texts.byKey) {
    if (texts.bytes <= KEPT_CHARS_PER_RESOURCE) break;
    texts.byKey.delete(key);
    texts.bytes -= size(oldest);
  }
}
