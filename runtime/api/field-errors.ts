import { goQuote } from './go-quote.js';

/** The real system's field error types; each is also the `type` of a Status cause. */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTooShort'
  | 'FieldValueTooFew'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

/**
 * One problem with one field, as the real system's `field.Error`: the field path
 * (`spec.containers[0].image`), the type, the offending value and a detail sentence. The one
 * field error of svckit: generated validators (through `Collector`), CEL rules, the server's 422
 * and `svckit validate` all produce and render this type.
 */
export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  /** The offending value; printed in the message for the types that show values. */
  readonly badValue?: unknown;
  /** Set when there is no meaningful value to print (a count that is unknown). */
  readonly omitValue?: boolean;
  readonly detail: string;
  /** The CEL rule that failed, for rule errors. */
  readonly rule?: string;
  /** Set when a CEL rule could not be evaluated (a runtime error, the cost budget) rather than being false. */
  readonly error?: Error;
  /** Found in a branch of allOf/anyOf/oneOf/not: a check of the value, never a decoding error. */
  readonly inBranch?: boolean;
}

const TYPE_LABELS: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTooShort: 'Too short',
  FieldValueTooFew: 'Too few',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

// These types never print the value (a too-long value may be huge, a missing one is empty), as
// upstream's `ErrorBody` (k8s.io/apimachinery/pkg/util/validation/field/errors.go).
const VALUELESS = new Set<FieldErrorType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'FieldValueTooShort',
  'InternalError',
]);

/**
 * The message without the field: `Invalid value: "x": must be ...` (the cause's `message`); the
 * real system's `field.Error.ErrorBody`. The one renderer of field errors.
 */
export function fieldErrorBody(e: FieldError): string {
  const label = TYPE_LABELS[e.type];
  let body = VALUELESS.has(e.type) || e.omitValue ? label : `${label}: ${formatBadValue(e.badValue)}`;
  if (e.detail !== '') body += `: ${e.detail}`;
  return body;
}

/** `<field>: <body>`, the real system's one-line rendering of a field error (`<root>` for the root). */
export function fieldErrorMessage(e: FieldError): string {
  return `${e.field || '<root>'}: ${fieldErrorBody(e)}`;
}

/**
 * The real system's aggregate rendering: duplicates dropped, one message as is, several as
 * `[a, b]`; the empty string for none.
 */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  const messages = [...new Set(errors.map(fieldErrorMessage))];
  if (messages.length <= 1) return messages[0] ?? '';
  return `[${messages.join(', ')}]`;
}

/** A value printed as Go prints it, verbatim (`0x0`, the real system's rendering of an unset resourceVersion). */
export class GoLiteral {
  constructor(readonly text: string) {}
}

// Go prints strings quoted, simple scalars bare, and anything else as a literal; we print string
// lists as Go does and other structures as JSON.
function formatBadValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (value instanceof GoLiteral) return value.text;
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string')) {
    return `[]string{${value.map(goQuote).join(', ')}}`;
  }
  return JSON.stringify(value) ?? String(value);
}

/** A value that must be set is missing. */
export function fieldRequired(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, badValue: '', detail };
}

/** A malformed value (bad format, out of range). */
export function fieldInvalid(field: string, badValue: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, badValue, detail };
}

/** A value outside an enumeration; the detail lists the supported values quoted. */
export function fieldNotSupported(field: string, badValue: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length > 0 ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field, badValue, detail };
}

/** A value that must be unique occurs more than once. */
export function fieldDuplicate(field: string, badValue: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, badValue, detail: '' };
}

/** A well-formed value that is not allowed here (policy, immutability). */
export function fieldForbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, badValue: '', detail };
}

/** A value longer than `maxLength` bytes (negative: unknown); the value itself is not printed. */
export function fieldTooLong(field: string, badValue: unknown, maxLength: number): FieldError {
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` : 'value is too long';
  return { type: 'FieldValueTooLong', field, badValue, detail };
}

/** A list with more than `max` items; `actual` is printed unless negative (unknown). */
export function fieldTooMany(field: string, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
  return actual >= 0
    ? { type: 'FieldValueTooMany', field, badValue: actual, detail }
    : { type: 'FieldValueTooMany', field, omitValue: true, detail };
}

/** A value of the wrong JSON type for its schema. */
export function fieldTypeInvalid(field: string, badValue: unknown, detail: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field, badValue, detail };
}

/** A referenced value does not exist. */
export function fieldNotFound(field: string, badValue: unknown): FieldError {
  return { type: 'FieldValueNotFound', field, badValue, detail: '' };
}

/** A failure not caused by the input (a bug, a dependency failing). */
export function fieldInternalError(field: string, error: unknown): FieldError {
  return { type: 'InternalError', field, detail: error instanceof Error ? error.message : String(error) };
}

/** The JSON type name of a value, as error messages show it (`object`, `array`, `integer`, ...). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
