/**
 * The parts of an object's metadata that ownership tracking reads and writes itself: the
 * managedFields list, and the fields the server sets, which no manager is recorded as owning.
 */
import { type JsonObject, type JsonValue, getOwn, isJsonObject, setOwn } from '../json/index.js';
import { isManagedFieldsError } from './errors.js';
import { FieldSet } from './field-set.js';
import { decodeManagedFields, type ManagedEntry } from './managed-fields.js';
import { fieldElement } from './path-element.js';

/** The raw `metadata.managedFields` of an object, if any. */
export function managedFieldsOf(object: JsonObject | undefined): JsonValue | undefined {
  const metadata = object === undefined ? undefined : getOwn(object, 'metadata');
  return isJsonObject(metadata) ? getOwn(metadata, 'managedFields') : undefined;
}

/**
 * The object's managedFields entries; none when it has none or they cannot be read (the real
 * system starts over rather than fail a write on them).
 */
export function managedEntriesOf(object: JsonObject | undefined): Map<string, ManagedEntry> {
  try {
    return decodeManagedFields(managedFieldsOf(object));
  } catch (error) {
    if (isManagedFieldsError(error)) return new Map();
    throw error;
  }
}

/** A shallow copy of the object without `metadata.managedFields`, for comparing contents. */
export function withoutManagedFields(object: JsonObject): JsonObject {
  const metadata = getOwn(object, 'metadata');
  if (!isJsonObject(metadata) || getOwn(metadata, 'managedFields') === undefined) return object;
  const out = { ...object };
  setOwn(out, 'metadata', metadataWithoutManagedFields(metadata));
  return out;
}

/** A copy without the key rather than a deletion from a copy, which leaves a slow object behind. */
function metadataWithoutManagedFields(metadata: JsonObject): JsonObject {
  const { managedFields: _, ...rest } = metadata;
  return rest;
}

/** A shallow copy of the object with `metadata.managedFields` set, or removed when empty. */
export function withManagedFields(object: JsonObject, entries: JsonObject[]): JsonObject {
  const metadata = getOwn(object, 'metadata');
  if (entries.length === 0 && !isJsonObject(metadata)) return object;
  let meta: JsonObject;
  if (entries.length > 0) {
    meta = isJsonObject(metadata) ? { ...metadata } : {};
    setOwn(meta, 'managedFields', entries);
  } else meta = metadataWithoutManagedFields(metadata as JsonObject);
  const out = { ...object };
  setOwn(out, 'metadata', meta);
  return out;
}

/**
 * Paths the server sets or that identify the object; taken out of the writer's set after every
 * write, exactly these paths and not what is below them (so `metadata.labels` stays owned).
 */
const SERVER_SET_FIELDS: FieldSet = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map(
    (name) => [fieldElement('metadata'), fieldElement(name)],
  ),
);

/** The set without the paths the server sets (`apiVersion`, `kind`, `metadata.name`, ...). */
export function withoutServerSetFields(set: FieldSet): FieldSet {
  return set.difference(SERVER_SET_FIELDS);
}
