/**
 * JSON values and the operations every runtime area needs on them: type tests, own-property access
 * that keeps `__proto__` plain data, checked and unchecked deep copies, structural equality,
 * canonical text, JSON Pointer tokens and short renderings for error messages.
 */
export {
  type InvalidJsonHandler,
  type JsonObject,
  type JsonPrimitive,
  type JsonValue,
  MAX_JSON_DEPTH,
  canonicalJson,
  cloneJson,
  deleteOwn,
  describeJson,
  escapePointerToken,
  exceedsJsonDepth,
  exceedsTextNesting,
  getOwn,
  hasOwn,
  isEmptyObject,
  isJsonObject,
  isJsonPrimitive,
  isObject,
  isPlainObject,
  jsonEqual,
  pointerOf,
  sameJson,
  setOwn,
  toOwnedJson,
} from './json.js';
