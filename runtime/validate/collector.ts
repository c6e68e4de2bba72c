import {
  type FieldError,
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  jsonTypeOf,
} from '../api/index.js';
import { isObject } from '../json/index.js';
import { openAPIErrors } from './openapi-messages.js';

type OpenAPIErrors = typeof openAPIErrors;
/** The arguments of an {@link openAPIErrors} builder after the path. */
type OpenAPIArgs<K extends keyof OpenAPIErrors> = OpenAPIErrors[K] extends (path: string, ...rest: infer R) => FieldError ? R : never;

/**
 * The path of a nested value as its parent's path and one step (`.field`, `[index]` or both),
 * turned into text only when something is reported there. Generated validators hand one to each
 * nested validator: an allocation per visited object instead of string concatenations (most
 * documents are valid, and then no path is ever printed).
 */
export class FieldPath {
  // Declared and assigned in the constructor, not class fields: a field initializer would run on
  // every construction, and one is made per nested object validated.
  declare readonly parent: PathLike;
  /** A field name, or '' for a step that is only an index or key. */
  declare readonly field: string;
  /** A list index or map key below the field. */
  declare readonly key: number | string | undefined;
  declare private text: string | undefined;

  constructor(parent: PathLike, field: string, key?: number | string) {
    this.parent = parent;
    this.field = field;
    this.key = key;
    this.text = undefined;
  }

  toString(): string {
    if (this.text === undefined) {
      const parent = typeof this.parent === 'string' ? this.parent : this.parent.toString();
      // Below the root ('') a field starts the path without a dot: nothing to strip when reporting.
      // An empty field with no key is a map entry under the empty key (kube-openapi's `labels.`).
      const field = this.field === '' ? (this.key === undefined ? '.' : '') : parent === '' ? this.field : `.${this.field}`;
      this.text = this.key === undefined ? `${parent}${field}` : `${parent}${field}[${this.key}]`;
    }
    return this.text;
  }
}

/** A field path as text (`.spec.containers[0]`, or '' for the root) or as a {@link FieldPath}. */
export type PathLike = string | FieldPath;

/**
 * Where generated validators report: field errors, and unknown fields kept apart (the server
 * decides per `fieldValidation` whether they are dropped, warned about or rejected).
 */
export class Collector {
  // Generated validators build child paths as `${p}.name` from a root path of '': the leading dot
  // is dropped here, where an error is recorded, rather than on every field visited.
  declare readonly errors: FieldError[];
  declare readonly unknownFields: string[];

  constructor() {
    this.errors = [];
    this.unknownFields = [];
  }

  get ok(): boolean {
    return this.errors.length === 0;
  }

  type(field: PathLike, value: unknown, expected: string): void {
    // A structure of the wrong type is reported by its type name, not printed whole.
    const shown = value !== null && typeof value === 'object' ? jsonTypeOf(value) : value;
    this.errors.push(fieldTypeInvalid(clean(field), shown, `must be of type ${expected}, not ${jsonTypeOf(value)}`));
  }

  required(field: PathLike): void {
    this.errors.push(fieldRequired(clean(field)));
  }

  notSupported(field: PathLike, value: unknown, allowed: readonly unknown[]): void {
    this.errors.push(fieldNotSupported(clean(field), value, allowed.map(String)));
  }

  invalid(field: PathLike, value: unknown, message: string): void {
    this.errors.push(fieldInvalid(clean(field), value, message));
  }

  /**
   * A value Go could not decode into its field (base64 of a []byte): fatal as a wrong type is,
   * and its value is not shown.
   */
  undecodable(field: PathLike, detail: string): void {
    this.errors.push({ type: 'FieldValueTypeInvalid', field: clean(field), omitValue: true, detail });
  }

  tooLong(field: PathLike, value: unknown, max: number): void {
    this.errors.push(fieldTooLong(clean(field), value, max));
  }

  tooMany(field: PathLike, count: number, max: number): void {
    this.errors.push(fieldTooMany(clean(field), count, max));
  }

  duplicate(field: PathLike, value: unknown): void {
    this.errors.push(fieldDuplicate(clean(field), value));
  }

  /** A custom resource's OpenAPI value error, worded as upstream's (see {@link openAPIErrors}). */
  openAPI<K extends keyof OpenAPIErrors>(kind: K, field: PathLike, ...args: OpenAPIArgs<K>): void {
    const build = openAPIErrors[kind] as (path: string, ...rest: unknown[]) => FieldError;
    this.errors.push(build(clean(field), ...args));
  }

  unknown(field: PathLike): void {
    this.unknownFields.push(clean(field));
  }
}

function clean(path: PathLike): string {
  const field = typeof path === 'string' ? path : path.toString();
  return field.charCodeAt(0) === 46 /* . */ ? field.slice(1) : field;
}

/** Length in characters (code points), as the real system counts string length. */
export function charLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

/**
 * Lists up to this long are checked for repeats pairwise, without building keys: most lists in
 * real documents are short, and n²/2 comparisons of a few items beat hashing them.
 */
const PAIRWISE_MAX = 16;

/** Items of a set list must be unique; reports each repeat. */
export function checkSetUnique(field: PathLike, items: readonly unknown[], e: Collector): void {
  const n = items.length;
  if (n < 2) return;
  if (n <= PAIRWISE_MAX) {
    for (let i = 1; i < n; i++) {
      for (let j = 0; j < i; j++) {
        if (sameValue(items[i], items[j])) {
          e.duplicate(`${field}[${i}]`, items[i]);
          break;
        }
      }
    }
    return;
  }
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const key = valueKey(items[i]);
    if (seen.has(key)) e.duplicate(`${field}[${i}]`, items[i]);
    else seen.add(key);
  }
}

/** Items of a map list must be unique by their key fields; reports each repeat. */
export function checkMapKeysUnique(field: PathLike, items: readonly unknown[], keys: readonly string[], e: Collector): void {
  const n = items.length;
  if (n < 2) return;
  if (n === 2 && keys.length === 1) {
    // The most common case by far: two items, one key.
    const a = items[0];
    const b = items[1];
    const key = keys[0]!;
    if (isObject(a) && isObject(b) && sameValue(a[key], b[key])) reportDuplicateKeys(field, 1, b, keys, e);
    return;
  }
  if (n <= PAIRWISE_MAX) {
    const first = keys[0]!;
    for (let i = 1; i < n; i++) {
      const item = items[i];
      if (!isObject(item)) continue;
      const key = item[first];
      for (let j = 0; j < i; j++) {
        const other = items[j];
        // Most items differ in their first key; compare the rest only when it matches.
        if (isObject(other) && sameValue(key, other[first]) && (keys.length === 1 || sameKeys(item, other, keys))) {
          reportDuplicateKeys(field, i, item, keys, e);
          break;
        }
      }
    }
    return;
  }
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const item = items[i];
    if (!isObject(item)) continue;
    let key = '';
    for (let k = 0; k < keys.length; k++) key += valueKey(item[keys[k]!]);
    if (seen.has(key)) reportDuplicateKeys(field, i, item, keys, e);
    else seen.add(key);
  }
}

function reportDuplicateKeys(field: PathLike, i: number, item: Record<string, unknown>, keys: readonly string[], e: Collector): void {
  e.duplicate(`${field}[${i}]`, Object.fromEntries(keys.map((k) => [k, item[k]])));
}

function sameKeys(a: Record<string, unknown>, b: Record<string, unknown>, keys: readonly string[]): boolean {
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    if (!sameValue(a[key], b[key])) return false;
  }
  return true;
}

/** JSON equality as the text of the values: `===` for scalars; an absent key equals null. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a == null || b == null) return a == null && b == null;
  return typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b);
}

/** A self-delimiting text key of a JSON value, equal exactly when {@link sameValue} holds. */
function valueKey(v: unknown): string {
  if (typeof v === 'string') return `s${v.length}:${v}`;
  if (typeof v === 'number' || typeof v === 'boolean') return `${typeof v === 'number' ? 'n' : 'b'}${v};`;
  if (v == null) return 'z;';
  const json = JSON.stringify(v);
  return `j${json.length}:${json}`;
}
