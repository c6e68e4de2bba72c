/**
 * Server-side apply: merge a manager's configuration into the live object by the merge markers,
 * record that the manager owns exactly what it applied, and remove what it applied last time and
 * omits now unless someone else owns it. Fields another manager owns with a different value are
 * conflicts (409) unless forced; equal values are shared.
 */
import { type JsonObject, type JsonValue, cloneJson, getOwn, isJsonObject, jsonEqual, setOwn } from '../json/index.js';
import { compareObjects } from './compare.js';
import { ApplyInputError, isTypedValueError } from './errors.js';
import { FieldSet } from './field-set.js';
import { fieldSetOfShape } from './field-set-of.js';
import {
  capUpdateManagers,
  encodeManagedFields,
  formatTime,
  type ManagedEntry,
  type ManagedFields,
  managerIdentity,
} from './managed-fields.js';
import { mergeObjects } from './merge.js';
import { managedEntriesOf, withManagedFields, withoutManagedFields, withoutServerSetFields } from './object-meta.js';
import type { OwnershipOptions } from './options.js';
import { conflictError, settleOwnership } from './ownership.js';
import { pruneReleased } from './prune.js';
import { reconcileManaged } from './reconcile.js';
import { rootShape, type Shape } from './shape.js';

export interface ApplyOptions extends OwnershipOptions {
  /** Take fields other managers own instead of failing with a conflict. */
  readonly force?: boolean;
  /** The kind the endpoint serves; when given, the body's kind must match it. */
  readonly kind?: string;
}

/**
 * The object after `manager` applies `config` to `live` (undefined when the object does not exist
 * yet: apply creates it), with `metadata.managedFields` recording the apply. The result is a new
 * object; the inputs are not changed.
 *
 * Throws `ApplyInputError` (400) for a body that cannot be applied and the StatusError of
 * `applyConflict` (409, FieldManagerConflict causes) for unforced conflicts; nothing is changed
 * then. A `TypedValueError` means the stored object does not fit its own schema (a server fault).
 */
export function apply(live: JsonObject | undefined, config: JsonValue, manager: string, options: ApplyOptions): JsonObject {
  const body = checkApplyBody(config, manager, options);
  const shape = rootShape(options.schema, options);
  const applied = appliedFieldsOf(body, shape);
  const liveBody = withoutManagedFields(live ?? {});
  const before = reconcileManaged(managedEntriesOf(live), shape);

  const info = { manager, operation: 'Apply', apiVersion: options.apiVersion, subresource: options.subresource ?? '' } as const;
  const applier = managerIdentity(info);
  const last = before.get(applier);
  const managed = new Map(before);
  managed.set(applier, { ...info, time: last?.time, fields: applied });

  // What it will own: the applied set without the fields the server sets. Frozen, so its FieldsV1
  // is written once and read back by identity on the next apply; the same fields as last time
  // keep the decoded set, whose FieldsV1 is already written.
  const appliedNow = withoutServerSetFields(applied).freeze();
  const sameAsLast = last !== undefined && appliedNow.equals(last.fields);

  let merged = mergeObjects(liveBody, body, shape);
  // What it applied last time and omits now (upstream's lastSet minus the new set): re-applying
  // the same fields releases nothing, and the object is not walked for it.
  if (last !== undefined && !sameAsLast && !last.fields.isSubsetOf(applied)) {
    merged = pruneReleased(merged, last.fields.difference(applied), ownedByAnyone(managed), shape);
  }

  const settled = settleOwnership(managed, applier, compareObjects(liveBody, merged, shape));
  if (settled.conflicts.length > 0 && options.force !== true) throw conflictError(settled.conflicts);

  const fields = sameAsLast ? last.fields : appliedNow;
  const after = settled.managed;
  after.set(applier, { ...info, time: last?.time, fields });
  // A no-op apply leaves every entry as it was, time included.
  const changed = live === undefined || !jsonEqual(liveBody, merged) || !sameOwnership(before, after);
  if (changed) after.set(applier, { ...info, time: formatTime(options.now), fields });
  // A copy the caller owns: the merge shares parts with `live` and `config`.
  return withManagedFields(cloneJson(merged), encodeManagedFields(capUpdateManagers(after, options.maxUpdateManagers)));
}

/** The body as an object after the checks the real system makes before applying. */
function checkApplyBody(config: JsonValue, manager: string, options: ApplyOptions): JsonObject {
  if (manager === '')
    throw new ApplyInputError('missing-field-manager', 'fieldManager: Required value: is required for apply patch', 'fieldManager');
  if (!isJsonObject(config))
    throw new ApplyInputError(
      'not-an-object',
      `an apply patch must be an object, not ${config === null ? 'null' : Array.isArray(config) ? 'a list' : typeof config}`,
    );
  const apiVersion = getOwn(config, 'apiVersion');
  if (typeof apiVersion !== 'string' || apiVersion === '')
    throw new ApplyInputError('missing-api-version', "Object 'apiVersion' is missing in apply patch", 'apiVersion');
  if (apiVersion !== options.apiVersion) {
    throw new ApplyInputError(
      'api-version-mismatch',
      `Incorrect version specified in apply patch. Specified patch version: ${apiVersion}, expected: ${options.apiVersion}`,
      'apiVersion',
    );
  }
  const kind = getOwn(config, 'kind');
  if (typeof kind !== 'string' || kind === '') throw new ApplyInputError('missing-kind', "Object 'Kind' is missing in apply patch", 'kind');
  if (options.kind !== undefined && kind !== options.kind) {
    throw new ApplyInputError(
      'kind-mismatch',
      `Incorrect kind specified in apply patch. Specified patch kind: ${kind}, expected: ${options.kind}`,
      'kind',
    );
  }
  const metadata = getOwn(config, 'metadata');
  if (metadata !== undefined && !isJsonObject(metadata))
    throw new ApplyInputError('invalid-config', 'metadata must be an object', 'metadata');
  const managedFields = isJsonObject(metadata) ? getOwn(metadata, 'managedFields') : undefined;
  if (managedFields !== undefined && managedFields !== null) {
    throw new ApplyInputError('managed-fields-set', 'metadata.managedFields must be nil', 'metadata.managedFields');
  }
  // An explicit null is no managedFields at all; it must not reach the merged object.
  return isJsonObject(metadata) && managedFields === null ? withoutNullManagedFields(config, metadata) : config;
}

function withoutNullManagedFields(config: JsonObject, metadata: JsonObject): JsonObject {
  const meta: JsonObject = {};
  for (const key of Object.keys(metadata)) if (key !== 'managedFields') setOwn(meta, key, metadata[key] as JsonValue);
  const out = { ...config };
  setOwn(out, 'metadata', meta);
  return out;
}

/** The applied set; a body that does not fit the markers is the client's error. */
function appliedFieldsOf(body: JsonObject, shape: Shape): FieldSet {
  try {
    // Frozen, so the sets made from it share its parts instead of copying them.
    return fieldSetOfShape(body, shape, true).freeze();
  } catch (error) {
    if (isTypedValueError(error)) throw new ApplyInputError('invalid-config', `invalid apply patch: ${error.message}`, error.field);
    throw error;
  }
}

function ownedByAnyone(managed: ManagedFields): FieldSet {
  let all = new FieldSet();
  for (const entry of managed.values()) all = all.union(entry.fields);
  return all;
}

function sameOwnership(a: ManagedFields, b: ManagedFields): boolean {
  const x = owningEntries(a);
  const y = new Map(owningEntries(b));
  return (
    x.length === y.size &&
    x.every(([key, e]) => {
      const other = y.get(key);
      return other !== undefined && other.apiVersion === e.apiVersion && other.fields.equals(e.fields);
    })
  );
}

function owningEntries(m: ManagedFields): [string, ManagedEntry][] {
  return [...m.entries()].filter(([, e]) => !e.fields.isEmpty());
}
