/**
 * How a write moves ownership between managers. Every manager but the writer loses the fields the
 * write changed or added and the fields it removed; the changed or added fields another manager
 * owned are conflicts, which apply refuses unless forced and an update never refuses.
 */
import { type ApplyConflict, applyConflict, type StatusError } from '../api/index.js';
import type { Comparison } from './compare.js';
import type { FieldSet } from './field-set.js';
import type { ManagedEntry, ManagedFields } from './managed-fields.js';
import { comparePathElements, type PathElement, pathString } from './path-element.js';

/** Fields of one other manager that a write changed. */
export interface OwnershipConflict {
  readonly entry: ManagedEntry;
  readonly fields: FieldSet;
}

export interface SettledOwnership {
  /** The entries after the write, the writer's untouched, entries left owning nothing dropped. */
  readonly managed: Map<string, ManagedEntry>;
  readonly conflicts: readonly OwnershipConflict[];
}

export function settleOwnership(managed: ManagedFields, writer: string, changes: Comparison): SettledOwnership {
  // Made for the first other manager: a write by the only manager needs none.
  let changed: FieldSet | undefined;
  const conflicts: OwnershipConflict[] = [];
  const out = new Map<string, ManagedEntry>();
  for (const [key, entry] of managed) {
    if (key === writer) {
      out.set(key, entry);
      continue;
    }
    changed ??= changes.modified.union(changes.added);
    const taken = entry.fields.intersection(changed);
    if (!taken.isEmpty()) conflicts.push({ entry, fields: taken });
    const lost = changes.removed.intersection(entry.fields);
    // A manager the write does not touch keeps its entry, and its set, as it was.
    if (taken.isEmpty() && lost.isEmpty()) {
      if (!entry.fields.isEmpty()) out.set(key, entry);
      continue;
    }
    const kept = entry.fields.difference(taken).difference(lost);
    if (!kept.isEmpty()) out.set(key, { ...entry, fields: kept });
  }
  return { managed: out, conflicts };
}

/** The 409 an unforced apply fails with: one cause per conflicting field and manager. */
export function conflictError(conflicts: readonly OwnershipConflict[]): StatusError {
  const items: { conflict: ApplyConflict; path: PathElement[] }[] = [];
  for (const { entry, fields } of conflicts) {
    for (const path of fields.paths()) {
      items.push({
        path,
        conflict: {
          manager: entry.manager,
          operation: entry.operation,
          ...(entry.operation === 'Update' ? { apiVersion: entry.apiVersion } : {}),
          ...(entry.subresource !== '' ? { subresource: entry.subresource } : {}),
          ...(entry.time !== undefined ? { time: entry.time } : {}),
          field: pathString(path),
        },
      });
    }
  }
  items.sort((a, b) => byManager(a.conflict, b.conflict) || comparePaths(a.path, b.path));
  return applyConflict(items.map((i) => i.conflict));
}

function byManager(a: ApplyConflict, b: ApplyConflict): number {
  const ka = `${a.manager}\u0000${a.operation ?? ''}\u0000${a.apiVersion ?? ''}\u0000${a.subresource ?? ''}`;
  const kb = `${b.manager}\u0000${b.operation ?? ''}\u0000${b.apiVersion ?? ''}\u0000${b.subresource ?? ''}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function comparePaths(a: readonly PathElement[], b: readonly PathElement[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = comparePathElements(a[i] as PathElement, b[i] as PathElement);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
