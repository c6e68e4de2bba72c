/** The real system's field error types (the `type` of a Status cause). */
export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'FieldValueForbidden';

/** One problem with one field: where (`spec.containers[0].image`), what, and the offending value. */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  message: string;
  value?: unknown;
  /** The CEL rule that failed, for rule errors. */
  rule?: string;
}

/** The JSON type name of a value, as error messages show it. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** `spec.x: Invalid value: "abc": must be ...`: the real system's one-line rendering. */
export function formatFieldError(e: FieldError): string {
  const label = LABELS[e.type];
  const field = e.field || '<root>';
  if (e.type === 'FieldValueRequired' || e.type === 'FieldValueForbidden' || e.type === 'FieldValueTooMany') {
    return `${field}: ${label}${e.message ? `: ${e.message}` : ''}`;
  }
  return `${field}: ${label}: ${showValue(e.value)}${e.message ? `: ${e.message}` : ''}`;
}

const LABELS: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueForbidden: 'Forbidden',
};

function showValue(value: unknown): string {
  if (value === undefined) return '<nil>';
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (typeof value === 'object' && value !== null) return `"${jsonTypeOf(value)}"`;
  return String(value);
}
