import { type FieldError, jsonTypeOf } from './field-error.js';

/**
 * Where generated validators report: field errors, and unknown fields kept apart (the server
 * decides per `fieldValidation` whether they are dropped, warned about or rejected).
 */
export class Collector {
  // Generated validators build child paths as `${p}.name` from a root path of '': the leading dot
  // is dropped here, where an error is recorded, rather than on every field visited.
  readonly errors: FieldError[] = [];
  readonly unknownFields: string[] = [];

  get ok(): boolean {
    return this.errors.length === 0;
  }

  type(field: string, value: unknown, expected: string): void {
    this.errors.push({
      type: 'FieldValueTypeInvalid',
      field: clean(field),
      value,
      message: `must be of type ${expected}, not ${jsonTypeOf(value)}`,
    });
  }

  required(field: string): void {
    this.errors.push({ type: 'FieldValueRequired', field: clean(field), message: '' });
  }

  notSupported(field: string, value: unknown, allowed: readonly unknown[]): void {
    this.errors.push({ type: 'FieldValueNotSupported', field: clean(field), value, message: `supported values: ${allowed.map((a) => JSON.stringify(a)).join(', ')}` });
  }

  invalid(field: string, value: unknown, message: string): void {
    this.errors.push({ type: 'FieldValueInvalid', field: clean(field), value, message });
  }

  tooLong(field: string, value: unknown, max: number): void {
    this.errors.push({ type: 'FieldValueTooLong', field: clean(field), value, message: `may not be longer than ${max}` });
  }

  tooMany(field: string, count: number, max: number): void {
    this.errors.push({ type: 'FieldValueTooMany', field: clean(field), value: count, message: `must have at most ${max} items` });
  }

  duplicate(field: string, value: unknown): void {
    this.errors.push({ type: 'FieldValueDuplicate', field: clean(field), value, message: '' });
  }

  unknown(field: string): void {
    this.unknownFields.push(clean(field));
  }
}

function clean(field: string): string {
  return field.charCodeAt(0) === 46 /* . */ ? field.slice(1) : field;
}

/** True for a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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

/** Items of a set list must be unique; reports each repeat. */
export function checkSetUnique(field: string, items: readonly unknown[], e: Collector): void {
  const seen = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const key = JSON.stringify(items[i]);
    if (seen.has(key)) e.duplicate(`${field}[${i}]`, items[i]);
    else seen.add(key);
  }
}

/** Items of a map list must be unique by their key fields; reports each repeat. */
export function checkMapKeysUnique(field: string, items: readonly unknown[], keys: readonly string[], e: Collector): void {
  const seen = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isObject(item)) continue;
    const key = JSON.stringify(keys.map((k) => item[k]));
    if (seen.has(key)) e.duplicate(`${field}[${i}]`, Object.fromEntries(keys.map((k) => [k, item[k]])));
    else seen.add(key);
  }
}

/** The defaulter of a kind whose schema has no defaults. */
export function noDefaults(_value: unknown): void {}
