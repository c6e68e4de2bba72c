/**
 * Field sets recorded under an older schema, read under the current one (the topology-change rows
 * of the spec):
 * - a list, map or struct that became atomic: whoever owned anything inside it now owns it whole,
 *   so any later change by someone else conflicts;
 * - one that became granular: nothing to do; the owner of the whole keeps the top-level field and
 *   owns none of the entries, so changes to entries conflict with no one.
 * Untyped content has no markers and is left alone.
 */
import { FieldSet } from './field-set.js';
import type { ManagedEntry, ManagedFields } from './managed-fields.js';
import type { PathElement } from './path-element.js';
import { memberShapeOf, type Shape } from './shape.js';

/** The set read under `shape` (the root's); the same set when nothing changed. */
export function reconcileWithSchema(set: FieldSet, shape: Shape): FieldSet {
  // Decoded sets are frozen and shared, and shapes are read once per schema: a set already read
  // under this shape is not walked again on the next write.
  if (!set.isFrozen()) return reconcileUncached(set, shape);
  const known = reconciled.get(set);
  if (known?.shape === shape) return known.result;
  const result = reconcileUncached(set, shape).freeze();
  reconciled.set(set, { shape, result });
  return result;
}

const reconciled = new WeakMap<FieldSet, { readonly shape: Shape; readonly result: FieldSet }>();

function reconcileUncached(set: FieldSet, shape: Shape): FieldSet {
  const collapsed: PathElement[][] = [];
  findCollapsed(set, shape, [], collapsed);
  if (collapsed.length === 0) return set;
  const whole = FieldSet.of(...collapsed);
  return set.recursiveDifference(whole).union(whole);
}

/** Every entry's set read under `shape`. */
export function reconcileManaged(managed: ManagedFields, shape: Shape): Map<string, ManagedEntry> {
  const out = new Map<string, ManagedEntry>();
  for (const [key, entry] of managed) {
    const fields = reconcileWithSchema(entry.fields, shape);
    out.set(key, fields === entry.fields ? entry : { ...entry, fields });
  }
  return out;
}

function findCollapsed(set: FieldSet, shape: Shape, path: PathElement[], into: PathElement[][]): void {
  for (const entry of set.entries()) {
    if (entry.children === undefined) continue;
    const child = childShape(shape, entry.element);
    if (child === undefined || child.kind === 'untyped' || child.kind === 'scalar') continue;
    const atomic = child.kind === 'list' ? child.listKind === 'atomic' : child.atomic;
    if (atomic) into.push([...path, entry.element]);
    else findCollapsed(entry.children, child, [...path, entry.element], into);
  }
}

function childShape(shape: Shape, element: PathElement): Shape | undefined {
  if (element.kind === 'field') return shape.kind === 'struct' || shape.kind === 'map' ? memberShapeOf(shape, element.name) : undefined;
  return shape.kind === 'list' ? shape.items : undefined;
}
