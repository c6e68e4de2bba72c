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
  | 'InternalError'
  | 'FieldValueTypeInvalid';

/**
 * One problem with one field, as the real system's `field.Error`: the field path
 * (`spec.containers[0].image`), the type, the offending value and a detail sentence.
 */
export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  /** The offending value; printed in the message for the types that show values. */
  readonly badValue?: unknown;
  /** Set when there is no meaningful value to print (a count that is unknown). */
  readonly omitValue?: boolean;
  readonly detail: string;
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
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

// These types never print the value (a too-long value may be huge, a missing one is empty).
const VALUELESS = new Set<FieldErrorType>(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong', 'InternalError']);

/** The message without the field: `Invalid value: "x": must be ...` (the cause's `message`). */
export function fieldErrorBody(e: FieldError): string {
  const label = TYPE_LABELS[e.type];
  let body = VALUELESS.has(e.type) || e.omitValue ? label : `${label}: ${formatBadValue(e.badValue)}`;
  if (e.detail !== '') body += `: ${e.detail}`;
  return body;
}

/** `<field>: <body>`, the real system's one-line rendering of a field error. */
export function fieldErrorMessage(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
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

// Go prints strings quoted, simple scalars bare, and anything else as a literal; we print string
// lists as Go does and other structures as JSON.
function formatBadValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
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

/** A value longer than `maxLength` bytes; the value itself is not printed. */
export function fieldTooLong(field: string, badValue: unknown, maxLength: number): FieldError {
  return { type: 'FieldValueTooLong', field, badValue, detail: `must have at most ${maxLength} bytes` };
}

/** A list with more than `max` items; `actual` is printed unless negative (unknown). */
export function fieldTooMany(field: string, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} items` : 'has too many items';
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
