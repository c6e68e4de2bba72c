import { fieldErrorMessage, fieldInvalid } from './field-errors.js';
import { badRequest, type StatusError } from './status-error.js';

/**
 * A resourceVersion that is not a revision number. The server answers 400 (toStatusError);
 * `field` names where it came from (the `resourceVersion` query parameter, `metadata.resourceVersion`).
 */
export class InvalidResourceVersionError extends Error {
  override readonly name = 'InvalidResourceVersionError';
  readonly value: string;
  readonly field: string;

  constructor(value: string, field: string, detail: string) {
    super(fieldErrorMessage(fieldInvalid(field, value, detail)));
    this.value = value;
    this.field = field;
  }

  toStatusError(): StatusError {
    return badRequest(this.message);
  }
}

export function isInvalidResourceVersionError(value: unknown): value is InvalidResourceVersionError {
  return value instanceof InvalidResourceVersionError;
}

const DIGITS = /^[0-9]+$/;

/**
 * The revision a resourceVersion names: decimal digits only (no sign, no spaces), at most
 * Number.MAX_SAFE_INTEGER. `'0'` parses to 0; the caller decides what `''` and `'0'` mean (they
 * select "most recent" and "any" reads), so `''` is an error here.
 */
export function parseResourceVersion(value: string, field = 'resourceVersion'): number {
  if (value === '') throw new InvalidResourceVersionError(value, field, 'must not be empty here; a revision is a decimal number');
  if (!DIGITS.test(value)) {
    throw new InvalidResourceVersionError(
      value,
      field,
      'must be a decimal number (digits only, no sign), as returned in metadata.resourceVersion',
    );
  }
  const revision = Number(value);
  if (!Number.isSafeInteger(revision)) {
    throw new InvalidResourceVersionError(value, field, `must be at most ${Number.MAX_SAFE_INTEGER}`);
  }
  return revision;
}

/** The resourceVersion text of a revision. */
export function formatResourceVersion(revision: number): string {
  if (!Number.isSafeInteger(revision) || revision < 0) throw new RangeError(`revision ${revision} is not a non-negative safe integer`);
  return String(revision);
}
