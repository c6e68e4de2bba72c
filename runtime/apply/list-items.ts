/**
 * The identity of list items: the path element that names an item of a granular list (its key
 * fields, its value, or its position), and lists indexed by it.
 */
import { type JsonObject, type JsonValue, getOwn, isJsonObject, isJsonPrimitive } from '../json/index.js';
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
  // Looked up by the key values themselves, a map level per key field: no text is built on a hit.
  const known = keyIndexOf(list);
  const keys = known.keys;
  let level = known.root;
  for (let i = 0; i < keys.length; i++) {
    const value = keyValue(keys[i] as SortedKey, item, index, path);
    if (value !== null && typeof value === 'object') return keyElementOf(keys, item);
    if (i === keys.length - 1) {
      const element = level.get(value) as PathElement | undefined;
      if (element !== undefined) return element;
      const made = keyElementOf(keys, item);
      if (known.size >= KEY_ELEMENTS_KEPT) {
        known.root = new Map();
        known.size = 0;
      } else {
        level.set(value, made);
        known.size++;
      }
      return made;
    }
    let next = level.get(value) as KeyLevel | undefined;
    if (next === undefined) {
      next = new Map();
      level.set(value, next);
    }
    level = next;
  }
  return keyElementOf(keys, item);
}

/** The value of one key field of an item, its default when omitted; errors name the item. */
function keyValue(key: SortedKey, item: JsonObject, index: number, path: Path): JsonValue {
  const value = getOwn(item, key.name);
  if (value === null)
    throw itemError(path, index, `associative list with keys has an element with a null value for key field ${JSON.stringify(key.name)}`);
  if (value !== undefined) return value;
  if (key.default !== undefined) return key.default;
  throw itemError(
    path,
    index,
    `associative list with keys has an element that omits key field ${JSON.stringify(key.name)} (and doesn't have default value)`,
  );
}

/** The element of an item whose key fields were checked, with its FieldsV1 text written directly. */
function keyElementOf(keys: readonly SortedKey[], item: JsonObject): PathElement {
  const fields: KeyField[] = [];
  let text = 'k:{';
  for (const key of keys) {
    const value = getOwn(item, key.name) ?? (key.default as JsonValue);
    text += `${fields.length > 0 ? ',' : ''}${key.json}:${goJson(value)}`;
    fields.push({ name: key.name, value });
  }
  return internedKeyElement(`${text}}`, fields);
}

interface SortedKey extends MergeKey {
  /** The name as JSON, as the FieldsV1 key writes it. */
  readonly json: string;
}

type KeyLevel = Map<JsonValue, unknown>;

/** A list shape's key fields sorted as its elements list them, and its items' elements by key values. */
interface KeyIndex {
  readonly keys: readonly SortedKey[];
  root: KeyLevel;
  size: number;
}

const KEY_ELEMENTS_KEPT = 10_000;
const keyIndexes = new WeakMap<ListShape, KeyIndex>();

function keyIndexOf(list: ListShape): KeyIndex {
  let known = keyIndexes.get(list);
  if (known === undefined) {
    const keys = [...list.keys].sort((a, b) => compareStrings(a.name, b.name)).map((k) => ({ ...k, json: goJson(k.name) }));
    known = { keys, root: new Map(), size: 0 };
    keyIndexes.set(list, known);
  }
  return known;
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
