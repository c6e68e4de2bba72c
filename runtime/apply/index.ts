/**
 * Field ownership and server-side apply, as a pure library the server calls on every write:
 * - `update(live, next, manager, options)` for create, update and the three patch types;
 * - `apply(live, config, manager, options)` for `application/apply-patch+yaml`;
 * - `managerForWrite(fieldManager, userAgent)` names the manager of a non-apply write.
 * Both return the object to store with `metadata.managedFields` set. The pieces below them (field
 * paths and sets, FieldsV1, managedFields entries) are exported for tests and tools.
 */
export { apply, type ApplyOptions } from './apply.js';
export { update } from './update.js';
export type { OwnershipOptions } from './options.js';
export { FIELD_MANAGER_MAX_LENGTH, UNKNOWN_MANAGER, managerForWrite, managerFromUserAgent } from './manager-name.js';
export {
  type ApplyInputReason,
  ApplyInputError,
  ManagedFieldsError,
  TypedValueError,
  isApplyInputError,
  isManagedFieldsError,
  isTypedValueError,
} from './errors.js';
export {
  type KeyField,
  type Path,
  type PathElement,
  fieldElement,
  indexElement,
  keyElement,
  parsePathElement,
  pathString,
  serializePathElement,
  valueElement,
} from './path-element.js';
export { type FieldSetEntry, FieldSet } from './field-set.js';
export { fieldsV1Json, fromFieldsV1, toFieldsV1 } from './fields-v1.js';
export { fieldSetOf } from './field-set-of.js';
export type { ShapeOptions } from './shape.js';
export {
  type ManagedEntry,
  type ManagedFields,
  type ManagerInfo,
  type Operation,
  ANCIENT_CHANGES_MANAGER,
  DEFAULT_MAX_UPDATE_MANAGERS,
  decodeManagedFields,
  encodeManagedFields,
  isManagedFieldsReset,
  managerIdentity,
} from './managed-fields.js';
