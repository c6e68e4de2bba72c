/**
 * Removing what an applier gave up: the fields it applied last time and omits now, unless another
 * manager (or its new configuration) still owns them.
 *
 * As in the real system, a declared struct field stays while anyone owns something inside it, and
 * then only the released parts inside go; a map key or list item goes as a whole once no one owns
 * the key or item itself, even if another manager owns a field inside it. Key fields of a list
 * item that stays are never removed.
 */
import { type JsonObject, type JsonValue, isJsonObject, setOwn } from '../json/index.js';
import type { FieldSet } from './field-set.js';
import { indexList } from './list-items.js';
import { fieldElement, type PathElement } from './path-element.js';
import { type ListShape, memberShape, resolveShape, type Shape } from './shape.js';

/** `merged` without the parts of `released` that no path of `owned` keeps. */
export function pruneReleased(merged: JsonObject, released: FieldSet, owned: FieldSet, shape: Shape): JsonObject {
  return pruneEntries(merged, resolveShape(shape, merged), released, owned, new Set(), []);
}

function pruneValue(value: JsonValue, shape: Shape, released: FieldSet, owned: FieldSet | undefined, path: PathElement[]): JsonValue {
  const s = resolveShape(shape, value);
  if ((s.kind === 'struct' || s.kind === 'map') && !s.atomic && isJsonObject(value)) {
    return pruneEntries(value, s, released, owned, new Set(), path);
  }
  if (s.kind === 'list' && s.listKind !== 'atomic' && Array.isArray(value)) return pruneItems(value, s, released, owned, path);
  return value;
}

function pruneEntries(
  object: JsonObject,
  shape: Shape,
  released: FieldSet,
  owned: FieldSet | undefined,
  keyFields: ReadonlySet<string>,
  path: PathElement[],
): JsonObject {
  const out: JsonObject = {};
  for (const name of Object.keys(object)) {
    const value = object[name] as JsonValue;
    const element = fieldElement(name);
    const releasedHere = released.hasMember(element);
    const releasedBelow = released.childAt(element);
    if ((!releasedHere && releasedBelow === undefined) || keyFields.has(name)) {
      setOwn(out, name, value);
      continue;
    }
    const { shape: child, named } = memberShape(shape, name);
    const ownedHere = owned?.hasMember(element) ?? false;
    const ownedBelow = owned?.childAt(element);
    const gone = named ? !ownedHere && ownedBelow === undefined : releasedHere && !ownedHere;
    if (gone) continue;
    if (releasedBelow === undefined) {
      setOwn(out, name, value);
      continue;
    }
    path.push(element);
    setOwn(out, name, pruneValue(value, child, releasedBelow, ownedBelow, path));
    path.pop();
  }
  return out;
}

function pruneItems(
  list: JsonValue[],
  shape: ListShape,
  released: FieldSet,
  owned: FieldSet | undefined,
  path: PathElement[],
): JsonValue[] {
  const keyFields = new Set(shape.listKind === 'map' ? shape.keys.map((k) => k.name) : []);
  const out: JsonValue[] = [];
  for (const item of indexList(shape, list, path, false).items) {
    const releasedHere = released.hasMember(item.element);
    const releasedBelow = released.childAt(item.element);
    const ownedHere = owned?.hasMember(item.element) ?? false;
    if (releasedHere && !ownedHere) continue;
    if (releasedBelow === undefined) {
      out.push(item.value);
      continue;
    }
    path.push(item.element);
    const s = resolveShape(shape.items, item.value);
    const ownedBelow = owned?.childAt(item.element);
    out.push(
      isJsonObject(item.value) && (s.kind === 'struct' || s.kind === 'map') && !s.atomic
        ? pruneEntries(item.value, s, releasedBelow, ownedBelow, keyFields, path)
        : pruneValue(item.value, shape.items, releasedBelow, ownedBelow, path),
    );
    path.pop();
  }
  return out;
}
