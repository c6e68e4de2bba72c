/**
 * The field set of a value under its schema: every path an owner of the whole value would own.
 * Scalars and atomic values are single leaves; granular structs and maps give their keys; granular
 * lists give their items (always members, so an item can be owned as an item). Map keys and
 * undeclared keys are members even when they hold more; so are null and `{}` values, which would
 * otherwise leave no trace. An empty granular list leaves none, as in the real system.
 */
import { type JsonObject, type JsonValue, isEmptyObject, isJsonObject } from '../json/index.js';
import type { SchemaNode } from '../schema/index.js';
import { FieldSet } from './field-set.js';
import { indexList } from './list-items.js';
import { fieldElement, type PathElement } from './path-element.js';
import { type ListShape, memberShapeOf, resolveShape, rootShape, type Shape, type ShapeOptions } from './shape.js';

/** The field set of an object under `schema` (untyped when there is none). */
export function fieldSetOf(value: JsonObject, schema: SchemaNode | undefined, options: ShapeOptions = {}): FieldSet {
  return fieldSetOfShape(value, rootShape(schema, options));
}

/**
 * The field set of an object of shape `shape`. `strict` refuses a list naming an item twice,
 * which an applied configuration must not do.
 */
export function fieldSetOfShape(value: JsonObject, shape: Shape, strict = false): FieldSet {
  const set = new FieldSet();
  const root = resolveShape(shape, value);
  if (root.kind === 'struct' || root.kind === 'map') addEntries(value, root, set, { path: [], strict });
  return set;
}

interface Walk {
  readonly path: PathElement[];
  readonly strict: boolean;
}

function addEntries(object: JsonObject, shape: Shape, into: FieldSet, walk: Walk): void {
  for (const name of Object.keys(object)) {
    const declared = shape.kind === 'struct' ? shape.field(name) : undefined;
    const child = declared ?? memberShapeOf(shape, name);
    const named = declared !== undefined;
    const element = fieldElement(name);
    walk.path.push(element);
    addValue(object[name] as JsonValue, child, into, element, !named, walk);
    walk.path.pop();
  }
}

function addItems(list: readonly JsonValue[], shape: ListShape, into: FieldSet, walk: Walk): void {
  for (const item of indexList(shape, list, walk.path, walk.strict).items) {
    walk.path.push(item.element);
    addValue(item.value, shape.items, into, item.element, true, walk);
    walk.path.pop();
  }
}

/** Adds the paths of `value`, found at `element` of `parent`; `member` puts the element in too. */
function addValue(value: JsonValue, shape: Shape, parent: FieldSet, element: PathElement, member: boolean, walk: Walk): void {
  const s = resolveShape(shape, value);
  if (isLeafValue(s, value)) {
    parent.addMember(element);
    return;
  }
  if (s.kind === 'list') addItems(value as JsonValue[], s, parent.descend(element), walk);
  else addEntries(value as JsonObject, s, parent.descend(element), walk);
  if (member) parent.addMember(element);
}

/**
 * Whether a value is one leaf of its shape: scalars, atomic values, null, `{}`, and values whose
 * form does not match the shape (which cannot be walked, so are owned whole).
 */
export function isLeafValue(shape: Shape, value: JsonValue): boolean {
  if (value === null) return true;
  switch (shape.kind) {
    case 'scalar':
    case 'untyped':
      return true;
    case 'list':
      return shape.listKind === 'atomic' || !Array.isArray(value);
    case 'struct':
    case 'map':
      return shape.atomic || !isJsonObject(value) || isEmptyObject(value);
  }
}
