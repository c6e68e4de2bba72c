/**
 * FieldsV1: the JSON tree a managedFields entry stores its field set in. Each key is a path
 * element (`f:`, `k:`, `v:`, `i:`); leaves are empty objects; `"."` inside an element's object
 * says the element itself is in the set besides paths below it:
 * `{"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},"f:image":{}}}}}`.
 */
import { type JsonObject, type JsonValue, hasOwn, isJsonObject, setOwn } from '../json/index.js';
import { ManagedFieldsError } from './errors.js';
import { FieldSet } from './field-set.js';
import { parsePathElement, serializePathElement } from './path-element.js';

/** The key that marks an element with children as a member too. */
export const SELF_KEY = '.';

/**
 * The FieldsV1 tree of a set, keys in the real system's element order with `.` first. A frozen
 * set's tree is written once, deeply frozen, and shared by every object that records the set, as a
 * manager whose fields did not change is written again on every write of the object; an unfrozen
 * set's tree is fresh.
 */
export function toFieldsV1(set: FieldSet): JsonObject {
  if (!set.isFrozen()) return treeOf(set);
  let tree = encoded.get(set);
  if (tree === undefined) {
    tree = freezeTree(treeOf(set));
    encoded.set(set, tree);
    written.set(tree, set);
  }
  return tree;
}

const encoded = new WeakMap<FieldSet, JsonObject>();
// The trees `toFieldsV1` wrote, by identity: deeply frozen, so each still says exactly its set.
const written = new WeakMap<JsonObject, FieldSet>();

function freezeTree(tree: JsonObject): JsonObject {
  for (const key of Object.keys(tree)) freezeTree(tree[key] as JsonObject);
  return Object.freeze(tree);
}

function treeOf(set: FieldSet): JsonObject {
  const out: JsonObject = {};
  for (const entry of set.entries()) {
    const key = serializePathElement(entry.element);
    if (entry.children === undefined) {
      setOwn(out, key, {});
      continue;
    }
    const below = treeOf(entry.children);
    setOwn(out, key, entry.member ? { [SELF_KEY]: {}, ...below } : below);
  }
  return out;
}

/** The FieldsV1 tree as JSON text. */
export function fieldsV1Json(set: FieldSet): string {
  return JSON.stringify(toFieldsV1(set));
}

/**
 * Reads a FieldsV1 tree. An element is a member when its object is empty, holds `.`, or holds only
 * keys of unknown kinds (which are skipped, as the real system skips them).
 *
 * The set is frozen and may be shared: every write of an object reads the same trees back, so
 * decoded sets are kept by their JSON text (bounded), and a tree `toFieldsV1` wrote is its set.
 */
export function fromFieldsV1(tree: JsonValue, where = 'fieldsV1'): FieldSet {
  if (!isJsonObject(tree)) throw new ManagedFieldsError(`${where}: must be a JSON object`);
  // A tree written here and stored back with its object (nothing can have changed it) needs no text.
  const known = written.get(tree);
  if (known !== undefined) return known;
  const text = JSON.stringify(tree);
  let set = decoded.get(text);
  if (set === undefined) {
    set = new FieldSet();
    readLevel(tree, set, where);
    set.freeze();
    if (decoded.size >= DECODED_KEPT) decoded.clear();
    decoded.set(text, set);
  }
  return set;
}

const decoded = new Map<string, FieldSet>();
const DECODED_KEPT = 1_000;

function readLevel(tree: JsonObject, into: FieldSet, where: string): void {
  for (const key of Object.keys(tree)) {
    if (key === SELF_KEY) continue;
    const element = parsePathElement(key);
    if (element === undefined) continue;
    const below = tree[key] as JsonValue;
    if (!isJsonObject(below)) throw new ManagedFieldsError(`${where}: the value of ${JSON.stringify(key)} must be a JSON object`);
    // Reading straight into the child node; an empty node left behind is not part of the set.
    const children = into.descend(element);
    readLevel(below, children, `${where}[${JSON.stringify(key)}]`);
    if (hasOwn(below, SELF_KEY) || children.isEmpty()) into.addMember(element);
  }
}
