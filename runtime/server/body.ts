import { type JsonApiObject, badRequest, unsupportedMediaType } from '../api/index.js';
import {
  MEDIA_PROTOBUF,
  MEDIA_PROTOBUF_K8S,
  type ProtobufCodecs,
  checkSafeIntegers,
  decodeYaml,
  decodeYamlWithDuplicates,
  isDuplicateKeyError,
  isProtobufCodecError,
  isProtobufEnvelopeError,
  isUnsafeIntegerError,
  readJsonWithDuplicates,
} from '../codec/index.js';
import { isObject } from '../validate/index.js';
import { checkDepth, checkYamlDepth } from './object-shape.js';

/** A decoded request body and the duplicate keys found in it. */
export interface Body {
  object: JsonApiObject;
  duplicates: readonly string[];
}

/** The Protobuf codecs that may decode a body, when the target kind has messages. */
export interface ProtobufBody {
  codecs: ProtobufCodecs;
}

/**
 * An object body in JSON, YAML or (for kinds with messages) Protobuf, by Content-Type, with its
 * duplicate keys; 400 when it cannot be decoded or is not an object, 415 for any other type.
 */
export function decodeBody(
  bytes: Buffer,
  contentType: string | undefined,
  protobuf: ProtobufBody | undefined,
  opts: { mergeDuplicates?: boolean } = {},
): Body {
  const text = bytes.toString('utf8');
  const type = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  let object: unknown;
  if (type === 'application/json' || type === '') {
    const read = parseJsonBody(text, opts.mergeDuplicates ?? false);
    object = read.value;
    checkDepth(object);
    if (isObject(object)) return { object, duplicates: read.duplicates };
  } else if (type === 'application/yaml') {
    let duplicates: string[];
    checkYamlDepth(text);
    try {
      // A body that decodes without duplicate keys takes the codec's path (and its errors).
      object = decodeYaml(text);
      duplicates = [];
    } catch (e) {
      const tolerant = isDuplicateKeyError(e) ? decodeYamlWithDuplicates(text) : undefined;
      if (!tolerant) throw badRequest(`the request body is not valid YAML: ${(e as Error).message}`);
      ({ value: object, duplicates } = tolerant);
    }
    checkDepth(object);
    checkIntegers(object);
    if (isObject(object)) return { object, duplicates };
  } else if ((type === MEDIA_PROTOBUF || type === MEDIA_PROTOBUF_K8S) && protobuf) {
    try {
      const decoded = protobuf.codecs.decode(bytes) as JsonApiObject;
      checkDepth(decoded);
      return { object: decoded, duplicates: [] };
    } catch (e) {
      if (isProtobufEnvelopeError(e) || isProtobufCodecError(e))
        throw badRequest(`the Protobuf request body cannot be decoded: ${e.message}`);
      throw e;
    }
  } else {
    throw unsupportedMediaType(['application/json', 'application/yaml', ...(protobuf ? [MEDIA_PROTOBUF] : [])]);
  }
  throw badRequest(`the request body must be a JSON object, not ${Array.isArray(object) ? 'an array' : typeof object}`);
}

/** An optional JSON body (DeleteOptions): undefined when empty. */
export function decodeOptionalJson(bytes: Buffer): unknown {
  const text = bytes.toString('utf8').trim();
  if (text === '') return undefined;
  const value = parseJson(text);
  checkDepth(value);
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`the request body is not valid JSON: ${(e as Error).message}`);
  }
}

/**
 * A JSON request body read by the codec's `readJson` (duplicate keys as the real system's decoder
 * has them, `merge` for built-in kinds) and the paths of its duplicate keys: 400 when it is not
 * JSON or holds an integer beyond 2^53, naming the field.
 */
export function parseJsonBody(text: string, merge: boolean, what = 'the request body'): { value: unknown; duplicates: readonly string[] } {
  try {
    return readJsonWithDuplicates(text, merge);
  } catch (e) {
    if (isUnsafeIntegerError(e)) throw unsafeInteger(e.path, e.literal, what);
    throw badRequest(`${what} is not valid JSON: ${(e as Error).message}`);
  }
}

/** Integers a YAML body holds beyond 2^53 are refused as in JSON (the YAML reader rounds them). */
export function checkIntegers(value: unknown): void {
  try {
    checkSafeIntegers(value);
  } catch (e) {
    if (isUnsafeIntegerError(e)) throw unsafeInteger(e.path, e.literal, 'the request body');
    throw e;
  }
}

function unsafeInteger(path: string, literal: string, what: string) {
  const field = path === '' ? '<root>' : path;
  const message = `${field}: Invalid value: ${literal}: integers beyond 2^53-1 (9007199254740991) cannot be held exactly`;
  return badRequest(`${what} cannot be decoded: ${message}`, [{ type: 'FieldValueInvalid', message, field }]);
}
