/**
 * The identity of list items: the path element that names an item of a granular list (its key
 * fields, its value, or its position), and lists indexed by it.
 */
import { type JsonValue, getOwn, isJsonObject, isJsonPrimitive } from '../json/index.js';
import { TypedValueError } from './errors.js';
import {
  compareStrings,
  goJson,
  indexElement,
  internedKeyElement,
  internedValueElement,
  type KeyField,
  type Path,
  type PathElement,
  pathString,
  serializePathElement,
} from './path-element.js';
import type { ListShape, MergeKey } from './shape.js';

/** The element naming item `index` of a granular list; `path` is the list's, for errors. */
export function itemElement(list: ListShape, item: JsonValue, index: number, path: Path): PathElement {
  switch (list.listKind) {
    case 'map':
      return keyOf(list, item, index, path);
    case 'set':
      if (!isJsonPrimitive(item))
        throw itemError(path, index, `associative list without keys has an element that is ${Array.isArray(item) ? 'a list' : 'a map'}`);
      return internedValueElement(item);
    case 'index':
    case 'atomic':
      return indexElement(index);
  }
}

function keyOf(list: ListShape, item: JsonValue, index: number, path: Path): PathElement {
  if (!isJsonObject(item)) throw itemError(path, index, 'associative list with keys has an element that is not a map');
  const keys = sortedKeysOf(list);
  const fields: KeyField[] = [];
  let text = 'k:{';
  for (const key of keys) {
    const value = getOwn(item, key.name);
    if (value === null)
      throw itemError(path, index, `associative list with keys has an element with a null value for key field ${JSON.stringify(key.name)}`);
    if (value === undefined && key.default === undefined) {
      throw itemError(
        path,
        index,
        `associative list with keys has an element that omits key field ${JSON.stringify(key.name)} (and doesn't have default value)`,
      );
    }
    const v = value ?? (key.default as JsonValue);
    fields.push({ name: key.name, value: v });
    text += `${fields.length > 1 ? ',' : ''}${key.json}:${goJson(v)}`;
  }
  return internedKeyElement(`${text}}`, fields);
}

interface SortedKey extends MergeKey {
  /** The name as JSON, as the FieldsV1 key writes it. */
  readonly json: string;
}

// A list's key fields in the order its elements list them, computed once per shape.
const sortedKeys = new WeakMap<ListShape, readonly SortedKey[]>();

function sortedKeysOf(list: ListShape): readonly SortedKey[] {
  let keys = sortedKeys.get(list);
  if (keys === undefined) {
    keys = [...list.keys].sort((a, b) => compareStrings(a.name, b.name)).map((k) => ({ ...k, json: goJson(k.name) }));
    sortedKeys.set(list, keys);
  }
  return keys;
}

function itemError(path: Path, index: number, detail: string): TypedValueError {
  return new TypedValueError(pathString([...path, indexElement(index)]), detail);
}

/** A list item with its element and the element's serialized form. */
export interface IndexedItem {
  readonly element: PathElement;
  readonly key: string;
  readonly value: JsonValue;
}

/** A granular list by item identity: every item in order, and the first item of each identity. */
export interface IndexedList {
  readonly items: readonly IndexedItem[];
  readonly byKey: ReadonlyMap<string, IndexedItem>;
}

/**
 * Indexes a granular list. An applied configuration must not name an item twice; a live object
 * may (the first one is the item that merges, the others are left as they are).
 */
export function indexList(list: ListShape, values: readonly JsonValue[], path: Path, rejectDuplicates: boolean): IndexedList {
  const items: IndexedItem[] = [];
  const byKey = new Map<string, IndexedItem>();
  values.forEach((value, index) => {
    const element = itemElement(list, value, index, path);
    const key = serializePathElement(element);
    const indexed = { element, key, value };
    if (byKey.has(key)) {
      if (rejectDuplicates) throw new TypedValueError(pathString([...path, element]), 'duplicate entries for key');
    } else {
      byKey.set(key, indexed);
    }
    items.push(indexed);
  });
  return { items, byKey };
}
