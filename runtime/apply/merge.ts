/**
 * Merging an applied configuration into the live object by the merge markers: granular structs
 * and maps merge key by key, list maps item by item on their keys, sets value by value, index
 * lists position by position; scalars and atomic values are replaced by the applied value.
 *
 * The result may share unchanged parts with its inputs; callers that mutate must copy.
 */
import { type JsonObject, type JsonValue, getOwn, isJsonObject, setOwn } from '../json/index.js';
import { type IndexedItem, type IndexedList, indexList } from './list-items.js';
import { fieldElement, type PathElement } from './path-element.js';
import { type ListShape, memberShapeOf, resolveShape, type Shape } from './shape.js';

/** The live object with the configuration merged in; `shape` is the root's. */
export function mergeObjects(live: JsonObject, config: JsonObject, shape: Shape): JsonObject {
  return mergeEntries(live, config, resolveShape(shape, config), []);
}

function mergeValue(live: JsonValue | undefined, config: JsonValue, shape: Shape, path: PathElement[]): JsonValue {
  if (live === undefined || live === null || config === null) return config;
  const s = resolveShape(shape, config);
  if ((s.kind === 'struct' || s.kind === 'map') && !s.atomic && isJsonObject(live) && isJsonObject(config)) {
    return mergeEntries(live, config, s, path);
  }
  if (s.kind === 'list' && s.listKind !== 'atomic' && Array.isArray(live) && Array.isArray(config)) {
    return mergeItems(live, config, s, path);
  }
  return config;
}

/**
 * Live keys stay in their order, merged where the configuration has them; new keys follow. The
 * live object itself when the configuration changes nothing in it, so that comparing the result
 * with the live object skips the parts the apply left as they were.
 */
function mergeEntries(live: JsonObject, config: JsonObject, shape: Shape, path: PathElement[]): JsonObject {
  const out: JsonObject = {};
  let same = true;
  for (const name of Object.keys(live)) {
    const was = live[name] as JsonValue;
    const applied = getOwn(config, name);
    if (applied === undefined) {
      setOwn(out, name, was);
      continue;
    }
    path.push(fieldElement(name));
    const merged = mergeValue(was, applied, memberShapeOf(shape, name), path);
    path.pop();
    if (merged !== was) same = false;
    setOwn(out, name, merged);
  }
  for (const name of Object.keys(config)) {
    if (getOwn(live, name) !== undefined) continue;
    same = false;
    setOwn(out, name, config[name] as JsonValue);
  }
  return same ? live : out;
}

/**
 * Items in the configuration keep the configuration's order; a live item the configuration does
 * not name keeps its place before the next item both name, as the real system orders the result.
 */
function mergeItems(live: JsonValue[], config: JsonValue[], shape: ListShape, path: PathElement[]): JsonValue[] {
  const theirs = indexList(shape, live, path, false);
  const ours = indexList(shape, config, path, true);
  const m: ItemMerge = {
    theirs,
    ours,
    shape,
    path,
    shared: ours.items.filter((item) => theirs.byKey.has(item.key)),
    emitted: new Set<string>(),
    out: [],
    nextShared: 0,
    nextApplied: 0,
  };
  for (const item of theirs.items) {
    const first = theirs.byKey.get(item.key) === item;
    if (!ours.byKey.has(item.key) || !first) {
      m.out.push(item.value);
      continue;
    }
    // A shared item out of the configuration's order is written when the configuration reaches it.
    if (m.emitted.has(item.key) || m.shared[m.nextShared]?.key !== item.key) continue;
    while (!m.emitted.has(item.key)) emitApplied(m);
  }
  while (m.nextApplied < ours.items.length) emitApplied(m);
  // The live list itself when every item came out as it was, in its place.
  return m.out.length === live.length && m.out.every((value, i) => value === live[i]) ? live : m.out;
}

/** The state of one list merge (a module function rather than a closure made on every merge). */
interface ItemMerge {
  readonly theirs: IndexedList;
  readonly ours: IndexedList;
  readonly shape: ListShape;
  readonly path: PathElement[];
  /** The configuration's items the live list has too, in the configuration's order. */
  readonly shared: readonly IndexedItem[];
  readonly emitted: Set<string>;
  readonly out: JsonValue[];
  nextShared: number;
  nextApplied: number;
}

/** Writes the configuration's next item, merged with the live item of the same identity. */
function emitApplied(m: ItemMerge): void {
  const item = m.ours.items[m.nextApplied++] as IndexedItem;
  m.path.push(item.element);
  m.out.push(mergeValue(m.theirs.byKey.get(item.key)?.value, item.value, m.shape.items, m.path));
  m.path.pop();
  m.emitted.add(item.key);
  while (m.nextShared < m.shared.length && m.emitted.has((m.shared[m.nextShared] as IndexedItem).key)) m.nextShared++;
}
