/**
 * Plain JSON values and the few operations every engine needs on them (patch, apply, codecs, CEL).
 * Objects are read and written through own-property helpers so that keys such as `__proto__` or
 * `constructor` stay plain data: never an inherited value, never a prototype change.
 */

export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Deeper input is refused rather than risking a stack overflow (the real system stops at 10000). */
export const MAX_JSON_DEPTH = 1000;

/**
 * True when `value` nests objects or arrays deeper than `limit` levels. Iterative, so that it can
 * be asked about any input before recursive code (duplicate-key scans, pruning, field sets) sees it.
 */
export function exceedsJsonDepth(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * True when JSON or YAML flow text opens more than `limit` brackets (`[`, `{`) at once, counted
 * outside quoted strings: a check a parser can be spared, since some parsers recurse (or build
 * regular expressions) per level and fail the whole process on input nested thousands deep.
 */
export function exceedsTextNesting(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
      continue;
    }
    // A quote opens a string only where a scalar can start (YAML's `it's` is plain text).
    if ((c === '"' || c === "'") && (i === 0 || /[\s[{,:]/.test(text[i - 1]!))) quote = c;
    else if (c === '[' || c === '{') {
      if (++depth > limit) return true;
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return false;
}

/** An object that is neither null nor an array, its members typed as JSON. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The same test for values not known to be JSON: the members stay `unknown`. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object whose prototype is `Object.prototype` or null: not an array, a Date, a Map or a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function isJsonPrimitive(value: unknown): value is JsonPrimitive {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

export function hasOwn(target: JsonObject, key: string): boolean {
  return Object.hasOwn(target, key);
}

/** Whether an object has no own enumerable keys, found without listing them. */
export function isEmptyObject(target: JsonObject): boolean {
  for (const key in target) if (Object.hasOwn(target, key)) return false;
  return true;
}

/** The value of an own property only: `getOwn({}, 'toString')` is undefined. */
export function getOwn(target: JsonObject, key: string): JsonValue | undefined {
  return hasOwn(target, key) ? target[key] : undefined;
}

/** Assignment would run the `__proto__` setter; a defined property is plain data. */
export function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

export function deleteOwn(target: JsonObject, key: string): void {
  if (hasOwn(target, key)) delete target[key];
}

/** What `toOwnedJson` calls on a value that is not JSON; it must throw. */
export type InvalidJsonHandler = (pointer: string, problem: string) => never;

/**
 * A deep copy of `value` that the caller owns, checked to be JSON on the way: plain objects and
 * arrays, strings, finite numbers, booleans and null. `pointer` is where `value` sits, for errors.
 */
export function toOwnedJson(value: unknown, onInvalid: InvalidJsonHandler, pointer = ''): JsonValue {
  return copyJson(value, onInvalid, pointer, 0);
}

function copyJson(value: unknown, onInvalid: InvalidJsonHandler, pointer: string, depth: number): JsonValue {
  if (depth > MAX_JSON_DEPTH) onInvalid(pointer, `nesting deeper than ${MAX_JSON_DEPTH} levels`);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) onInvalid(pointer, `${value} is not a JSON number`);
    return value;
  }
  if (Array.isArray(value)) {
    // Array.from visits holes of sparse arrays (as undefined), which are then refused.
    return Array.from(value as unknown[], (item, i) => copyJson(item, onInvalid, `${pointer}/${i}`, depth + 1));
  }
  if (typeof value === 'object') {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) onInvalid(pointer, 'not a plain JSON object');
    const source = value as Record<string, unknown>;
    const copy: JsonObject = {};
    for (const key of Object.keys(source)) {
      setOwn(copy, key, copyJson(source[key], onInvalid, `${pointer}/${escapePointerToken(key)}`, depth + 1));
    }
    return copy;
  }
  return onInvalid(pointer, value === undefined ? 'undefined is not a JSON value' : `a ${typeof value} is not a JSON value`);
}

/** A deep copy of a value already known to be JSON. */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as T;
  if (isJsonObject(value)) {
    const copy: JsonObject = {};
    for (const key of Object.keys(value)) setOwn(copy, key, cloneJson(value[key] as JsonValue));
    return copy as T;
  }
  return value;
}

/** Structural equality: object key order does not matter, array order does. */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i] as JsonValue));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => hasOwn(b, key) && jsonEqual(a[key] as JsonValue, b[key] as JsonValue));
  }
  return false;
}

/**
 * Whether `a` and `b` give the same JSON text up to object key order, without writing it: what
 * comparing their {@link canonicalJson} says. As JSON.stringify has them, a member whose value is
 * undefined (or a function) is absent, such an array item and a non-finite number are null.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const x = asWritten(a);
  const y = asWritten(b);
  if (x === y) return true;
  if (writesItself(x) || writesItself(y)) return canonicalJson(x) === canonicalJson(y); // a Date
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
  if (Array.isArray(x)) {
    if (!Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!sameJson(asWritten(x[i]) ?? null, asWritten(y[i]) ?? null)) return false;
    return true;
  }
  if (Array.isArray(y)) return false;
  let members = 0;
  for (const key of Object.keys(x)) {
    const v = asWritten((x as Record<string, unknown>)[key]);
    if (v === undefined) continue;
    members++;
    if (!Object.hasOwn(y, key) || !sameJson(v, (y as Record<string, unknown>)[key])) return false;
  }
  for (const key of Object.keys(y)) if (asWritten((y as Record<string, unknown>)[key]) !== undefined) members--;
  return members === 0;
}

function writesItself(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/** A value as JSON.stringify writes it: undefined for what it leaves out, null for a non-finite number. */
function asWritten(value: unknown): unknown {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  return value;
}

/** JSON text with object keys sorted, so that equal values give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** RFC 6901 escaping of one reference token. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON Pointer built from reference tokens. */
export function pointerOf(tokens: readonly (string | number)[]): string {
  return tokens.map((t) => `/${escapePointerToken(String(t))}`).join('');
}

/** Short rendering of a value for error messages. */
export function describeJson(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
