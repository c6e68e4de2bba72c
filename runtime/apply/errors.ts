/**
 * The errors of field ownership. Apply conflicts are not here: they are StatusErrors made by
 * `applyConflict` from runtime/api, because they carry the 409 Status the client must see.
 */

/** Why an apply request body or its options were refused; the server answers each with 400. */
export type ApplyInputReason =
  | 'not-an-object'
  | 'missing-api-version'
  | 'missing-kind'
  | 'api-version-mismatch'
  | 'kind-mismatch'
  | 'managed-fields-set'
  | 'missing-field-manager'
  | 'invalid-config';

/** An apply body or option that cannot be applied, whatever the live object is. */
export class ApplyInputError extends Error {
  override readonly name = 'ApplyInputError';
  readonly reason: ApplyInputReason;
  /** Where in the body, as a field path (`.spec.containers[0]`), when known. */
  readonly field: string | undefined;

  constructor(reason: ApplyInputReason, message: string, field?: string) {
    super(message);
    this.reason = reason;
    this.field = field;
  }
}

export function isApplyInputError(value: unknown): value is ApplyInputError {
  return value instanceof ApplyInputError;
}

/** A `metadata.managedFields` list or a FieldsV1 tree that cannot be decoded. */
export class ManagedFieldsError extends Error {
  override readonly name = 'ManagedFieldsError';
}

export function isManagedFieldsError(value: unknown): value is ManagedFieldsError {
  return value instanceof ManagedFieldsError;
}

/**
 * A value that does not fit its schema's merge markers: a list-map item without a key, a set item
 * that is an object, duplicate keys in an applied list. `field` is where, as `.spec.containers[0]`.
 */
export class TypedValueError extends Error {
  override readonly name = 'TypedValueError';
  readonly field: string;

  constructor(field: string, detail: string) {
    super(`${field === '' ? '.' : field}: ${detail}`);
    this.field = field;
  }
}

export function isTypedValueError(value: unknown): value is TypedValueError {
  return value instanceof TypedValueError;
}
