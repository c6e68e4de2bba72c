/**
 * What a write changed, as field sets: paths added, removed, and leaves whose value changed.
 * Granular containers are compared part by part; a container that appears or disappears is
 * itself added or removed besides its contents (so a writer that adds a list item owns the item).
 * Two empty values (absent, null, `{}`, `[]`) are compared as leaves, which keeps the difference
 * between null and empty.
 */
import { type JsonObject, type JsonValue, getOwn, hasOwn, isEmptyObject, isJsonObject, jsonEqual } from '../json/index.js';
import { FieldSet } from './field-set.js';
import { indexList } from './list-items.js';
import { fieldElement, type PathElement } from './path-element.js';
import { type ListShape, memberShapeOf, resolveShape, type Shape } from './shape.js';

export interface Comparison {
  readonly added: FieldSet;
  readonly removed: FieldSet;
  readonly modified: FieldSet;
}

/** Compares two objects of the same shape; `shape` is the root's. */
export function compareObjects(before: JsonObject, after: JsonObject, shape: Shape): Comparison {
  const result: Comparison = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
  compareEntries(before, after, resolveShape(shape, after), result, []);
  return result;
}

/** How a value is compared: not there, a leaf, an empty container, or a granular container. */
type Form = 'absent' | 'leaf' | 'empty' | 'object' | 'list';

function formOf(shape: Shape, value: JsonValue | undefined): Form {
  if (value === undefined) return 'absent';
  const s = resolveShape(shape, value);
  switch (s.kind) {
    case 'scalar':
    case 'untyped':
      return 'leaf';
    case 'list':
      if (value === null) return 'empty';
      if (s.listKind === 'atomic' || !Array.isArray(value)) return 'leaf';
      return value.length === 0 ? 'empty' : 'list';
    case 'struct':
    case 'map':
      if (value === null) return 'empty';
      if (s.atomic || !isJsonObject(value)) return 'leaf';
      return isEmptyObject(value) ? 'empty' : 'object';
  }
}

/** Compares the values at `path` (which ends with their element); changes go into the root's sets. */
function compareValue(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  shape: Shape,
  into: Comparison,
  path: PathElement[],
): void {
  // The merge shares the parts it left alone: the same value has no changes.
  if (before === after) return;
  const was = formOf(shape, before);
  const is = formOf(shape, after);
  // Changes are inserted by path, so unchanged parts of the objects create no sets.
  if (!granular(was) && !granular(is)) {
    if (was === 'absent') into.added.insert(path);
    else if (is === 'absent') into.removed.insert(path);
    else if (!jsonEqual(before as JsonValue, after as JsonValue)) into.modified.insert(path);
    return;
  }
  // A leaf turned into a container or back: the leaf itself changed, the contents came or went.
  if (was === 'leaf' || is === 'leaf') into.modified.insert(path);
  const s = resolveShape(shape, granular(is) ? after : before);
  if (was === 'object' || is === 'object') {
    compareEntries(objectOrEmpty(before, was), objectOrEmpty(after, is), s, into, path);
  } else if (s.kind === 'list') {
    compareItems(listOrEmpty(before, was), listOrEmpty(after, is), s, into, path);
  }
  if (was === 'absent') into.added.insert(path);
  if (is === 'absent') into.removed.insert(path);
}

function granular(form: Form): boolean {
  return form === 'object' || form === 'list';
}

function objectOrEmpty(value: JsonValue | undefined, form: Form): JsonObject {
  return form === 'object' && isJsonObject(value) ? value : {};
}

function listOrEmpty(value: JsonValue | undefined, form: Form): JsonValue[] {
  return form === 'list' && Array.isArray(value) ? value : [];
}

function compareEntries(before: JsonObject, after: JsonObject, shape: Shape, into: Comparison, path: PathElement[]): void {
  for (const name of Object.keys(before)) {
    path.push(fieldElement(name));
    compareValue(before[name], getOwn(after, name), memberShapeOf(shape, name), into, path);
    path.pop();
  }
  for (const name of Object.keys(after)) {
    if (hasOwn(before, name)) continue;
    path.push(fieldElement(name));
    compareValue(undefined, after[name], memberShapeOf(shape, name), into, path);
    path.pop();
  }
}

function compareItems(before: JsonValue[], after: JsonValue[], shape: ListShape, into: Comparison, path: PathElement[]): void {
  const was = indexList(shape, before, path, false).byKey;
  const is = indexList(shape, after, path, false).byKey;
  for (const [key, item] of was) {
    path.push(item.element);
    compareValue(item.value, is.get(key)?.value, shape.items, into, path);
    path.pop();
  }
  for (const [key, item] of is) {
    if (was.has(key)) continue;
    path.push(item.element);
    compareValue(undefined, item.value, shape.items, into, path);
    path.pop();
  }
}
