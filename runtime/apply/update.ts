/**
 * Ownership for every write that is not an apply (create, update, the three patch types): the
 * writer takes every field it changed or added, other managers lose those fields and the removed
 * ones, and nothing ever conflicts.
 *
 * Which managedFields the write starts from: a reset (`[{}]`) starts from none, so the writer
 * ends up owning exactly what it changed; managedFields written in the body are used when they
 * decode and are not empty; otherwise (absent, `[]`, undecodable) the live object's are kept.
 * A subresource write always keeps the live object's.
 */
import type { JsonObject } from '../json/index.js';
import { compareObjects } from './compare.js';
import { isTypedValueError } from './errors.js';
import {
  capUpdateManagers,
  encodeManagedFields,
  formatTime,
  isManagedFieldsReset,
  type ManagedEntry,
  managerIdentity,
} from './managed-fields.js';
import { UNKNOWN_MANAGER } from './manager-name.js';
import { managedEntriesOf, managedFieldsOf, withManagedFields, withoutManagedFields, withoutServerSetFields } from './object-meta.js';
import type { OwnershipOptions } from './options.js';
import { settleOwnership } from './ownership.js';
import { reconcileManaged } from './reconcile.js';
import { rootShape } from './shape.js';

/**
 * `next` with `metadata.managedFields` recording the write by `manager`; `live` is the stored
 * object (undefined on create). Only the top level and metadata of `next` are copied; nested
 * values are `next`'s own. Never throws for ownership reasons: when the objects do not fit
 * the schema's markers, the result carries no managedFields, as the real system does.
 */
export function update(live: JsonObject | undefined, next: JsonObject, manager: string, options: OwnershipOptions): JsonObject {
  const shape = rootShape(options.schema, options);
  const subresource = options.subresource ?? '';
  try {
    const managed = reconcileManaged(startingManagedFields(live, next, subresource !== ''), shape);
    const changes = compareObjects(withoutManagedFields(live ?? {}), withoutManagedFields(next), shape);
    const info = {
      manager: manager === '' ? UNKNOWN_MANAGER : manager,
      operation: 'Update',
      apiVersion: options.apiVersion,
      subresource,
    } as const;
    const writer = managerIdentity(info);
    const settled = settleOwnership(managed, writer, changes).managed;

    const previous = settled.get(writer);
    const kept = previous?.fields.difference(changes.removed);
    const taken = withoutServerSetFields(changes.modified.union(changes.added));
    if (!taken.isEmpty()) {
      const entry: ManagedEntry = { ...info, time: formatTime(options.now), fields: kept === undefined ? taken : kept.union(taken) };
      settled.set(writer, entry);
    } else if (previous !== undefined && kept !== undefined) {
      settled.set(writer, { ...previous, fields: kept });
    }
    const capped = capUpdateManagers(settled, options.maxUpdateManagers);
    return withManagedFields(next, encodeManagedFields(capped));
  } catch (error) {
    if (isTypedValueError(error)) return withManagedFields(next, []);
    throw error;
  }
}

function startingManagedFields(live: JsonObject | undefined, next: JsonObject, subresource: boolean): Map<string, ManagedEntry> {
  const fromLive = (): Map<string, ManagedEntry> => managedEntriesOf(live);
  if (subresource) return fromLive();
  const written = managedFieldsOf(next);
  if (isManagedFieldsReset(written)) return new Map();
  const decoded = managedEntriesOf(next);
  return decoded.size === 0 ? fromLive() : decoded;
}
