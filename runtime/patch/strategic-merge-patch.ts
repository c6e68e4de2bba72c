/**
 * Strategic merge patch, driven by the schema descriptors: JSON Merge Patch, except that lists
 * marked as merging merge by key or as sets, and `$`-directives in the patch say what to replace,
 * delete, retain or reorder. The semantics follow the real system's strategicpatch package.
 *
 * Beyond the legacy `patchStrategy`/`patchMergeKey` markers (all the real system reads), lists
 * merge by list type `map` (matching on every key, a missing key taking its schema default) and
 * list type `set` too.
 *
 * Differences on purpose: a `$`-member that is neither a directive nor declared data is refused
 * (the real system keeps it as data); `$patch: merge` is accepted as "merge as usual" (the real
 * system refuses it); directives and nulls inside a value new to the document are processed
 * rather than stored; and list order never depends on Go slice aliasing.
 */
import type { SchemaNode } from '../schema/index.js';
import { PatchError, type PatchErrorReason } from './errors.js';
import {
  deleteOwn,
  describeJson,
  getOwn,
  hasOwn,
  isJsonObject,
  isJsonPrimitive,
  jsonEqual,
  pointerOf,
  setOwn,
  toOwnedJson,
  type JsonObject,
  type JsonValue,
} from '../json/index.js';
import {
  isDataMember,
  itemPosition,
  listStrategyOf,
  memberPosition,
  replacesWhole,
  type ListStrategy,
  type MergeKey,
  type SchemaPosition,
} from './strategic-markers.js';
import { keyIdentity, orderMergedList, scalarIdentity, type IdentityOf } from './strategic-order.js';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

/** Tokens of a location in the patch document, for error paths. */
type Path = readonly (string | number)[];

/** Everything the patch says about one member of an object. */
interface MemberPatch {
  value?: JsonValue;
  deletions?: { values: JsonValue[]; at: Path };
  order?: { values: JsonValue[]; at: Path };
}

/**
 * Applies a strategic merge patch to a copy of the object `doc`, reading merge markers from
 * `schema` (the kind's root descriptor), and returns the copy. Throws `PatchError`.
 *
 * Only for built-in kinds: the caller, which knows whether a resource is a custom resource,
 * answers 415 for custom resources instead of calling this (see `acceptedPatchMediaTypes`).
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, schema: SchemaNode): JsonObject {
  const ownedPatch = toOwnedJson(patch, (path, problem) => fail('malformed', path, `the patch is not JSON: ${problem}`));
  if (!isJsonObject(ownedPatch)) return fail('malformed', '', `a strategic merge patch is a JSON object, not ${describeJson(ownedPatch)}`);
  const ownedDoc = toOwnedJson(doc, (path, problem) => fail('not-applicable', path, `the document is not JSON: ${problem}`));
  if (!isJsonObject(ownedDoc))
    return fail('not-applicable', '', `a strategic merge patch applies to an object, not ${describeJson(ownedDoc)}`);
  return mergeObject(ownedDoc, ownedPatch, { node: schema }, []);
}

/** Merges `patch` into `live` (owned, reused) or into a new object when `live` is undefined. */
function mergeObject(live: JsonObject | undefined, patch: JsonObject, position: SchemaPosition, at: Path): JsonObject {
  let body = patch;
  let base = live;
  const directive = getOwn(patch, PATCH);
  if (directive !== undefined) {
    if (directive === 'delete') return {};
    if (directive !== 'replace' && directive !== 'merge') {
      return malformed([...at, PATCH], `unknown directive ${describeJson(directive)}; expected replace, delete or merge`);
    }
    body = without(patch, PATCH);
    if (directive === 'replace') base = undefined;
  }
  const result: JsonObject = base ?? {};
  applyRetainKeys(result, body, at);
  for (const [name, member] of membersOf(body, position, at)) {
    mergeMember(result, name, member, memberPosition(position, name), [...at, name]);
  }
  return result;
}

/** `$retainKeys`: members not listed are cleared; every member the patch sets must be listed. */
function applyRetainKeys(result: JsonObject, body: JsonObject, at: Path): void {
  if (!hasOwn(body, RETAIN_KEYS)) return;
  const listed = body[RETAIN_KEYS];
  if (!Array.isArray(listed) || !listed.every((k) => typeof k === 'string')) {
    malformed([...at, RETAIN_KEYS], `must be a list of member names, not ${describeJson(listed)}`);
  }
  const retained = new Set<string>(listed as string[]);
  for (const key of Object.keys(body)) {
    if (isDirectiveKey(key) || body[key] === null || retained.has(key)) continue;
    malformed([...at, key], `${JSON.stringify(key)} is set by the patch but not listed in ${RETAIN_KEYS}`);
  }
  for (const key of Object.keys(result)) if (!retained.has(key)) deleteOwn(result, key);
}

/** Groups the patch's members and parallel directive lists by the member they act on. */
function membersOf(body: JsonObject, position: SchemaPosition, at: Path): Map<string, MemberPatch> {
  const members = new Map<string, MemberPatch>();
  const entry = (name: string): MemberPatch => {
    const existing = members.get(name);
    if (existing !== undefined) return existing;
    const created: MemberPatch = {};
    members.set(name, created);
    return created;
  };
  for (const key of Object.keys(body)) {
    const value = body[key] as JsonValue;
    if (key === RETAIN_KEYS) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      const name = parallelListTarget(key, DELETE_FROM_PRIMITIVE_LIST, at);
      entry(name).deletions = { values: parallelList(value, [...at, key]), at: [...at, key] };
    } else if (key.startsWith(SET_ELEMENT_ORDER)) {
      const name = parallelListTarget(key, SET_ELEMENT_ORDER, at);
      entry(name).order = { values: parallelList(value, [...at, key]), at: [...at, key] };
    } else if (key.startsWith('$') && !isDataMember(position, key)) {
      malformed(
        [...at, key],
        `unknown directive ${JSON.stringify(key)}; expected ${PATCH}, ${RETAIN_KEYS}, ${DELETE_FROM_PRIMITIVE_LIST}/<field> or ${SET_ELEMENT_ORDER}/<field>`,
      );
    } else {
      entry(key).value = value;
    }
  }
  return members;
}

function mergeMember(result: JsonObject, name: string, member: MemberPatch, position: SchemaPosition, at: Path): void {
  const live = getOwn(result, name);
  if (member.value === null) {
    deleteOwn(result, name);
    return;
  }
  if (member.deletions === undefined && member.order === undefined) {
    if (member.value !== undefined) setOwn(result, name, mergeValue(live, member.value, position, at));
    return;
  }
  let merged = live;
  if (member.deletions !== undefined) merged = deleteFromList(merged, member.deletions.values, at);
  if (member.value !== undefined) merged = mergeValue(merged, member.value, position, at);
  const wanted = member.order;
  if (wanted !== undefined && Array.isArray(merged)) {
    const identityOf = orderIdentity(listStrategyOf(position), wanted, at);
    const order = wanted.values.map((item, i) => requireIdentity(identityOf, item, [...wanted.at, i]));
    if (Array.isArray(member.value)) checkPatchFollowsOrder(member.value, order, identityOf, wanted.at);
    const liveIds = Array.isArray(live) ? live.map(identityOf) : [];
    merged = orderMergedList(merged, order, liveIds, identityOf);
  }
  // The real system leaves an absent list absent when there is nothing to merge into it.
  if (merged !== undefined) setOwn(result, name, merged);
}

/** `$deleteFromPrimitiveList/<field>`: removes every occurrence of the listed scalars. */
function deleteFromList(live: JsonValue | undefined, values: JsonValue[], at: Path): JsonValue | undefined {
  if (live === undefined) return undefined;
  if (!Array.isArray(live))
    return notApplicable(at, `${DELETE_FROM_PRIMITIVE_LIST} needs a list here, the document has ${describeJson(live)}`);
  // Scalars by their JSON (one lookup per item); anything else, rare here, by deep equality.
  const scalars = new Set(values.map(scalarIdentity).filter((id) => id !== undefined));
  const others = values.filter((value) => !isJsonPrimitive(value));
  return live.filter((item) => {
    const id = scalarIdentity(item);
    return id === undefined ? !others.some((value) => jsonEqual(value, item)) : !scalars.has(id);
  });
}

function mergeValue(live: JsonValue | undefined, patch: JsonValue, position: SchemaPosition, at: Path): JsonValue {
  if (isJsonObject(patch)) {
    const base = isJsonObject(live) && !replacesWhole(position) ? live : undefined;
    return mergeObject(base, patch, position, at);
  }
  if (Array.isArray(patch)) return mergeList(Array.isArray(live) ? live : [], patch, position, at);
  return patch;
}

function mergeList(live: JsonValue[], patch: JsonValue[], position: SchemaPosition, at: Path): JsonValue[] {
  const strategy = listStrategyOf(position);
  switch (strategy.kind) {
    case 'atomic':
      return patch;
    case 'set':
      return mergeSet(live, patch, at);
    case 'map':
      return mergeKeyedList(live, patch, strategy.keys, itemPosition(position), at);
  }
}

/** Union of scalars, duplicates dropped (live ones too, as the real system does). */
function mergeSet(live: JsonValue[], patch: JsonValue[], at: Path): JsonValue[] {
  patch.forEach((item, i) => {
    if (!isJsonPrimitive(item)) malformed([...at, i], `items of this list are scalars, not ${describeJson(item)}`);
  });
  const seen = new Set<string>();
  const merged = [...live, ...patch].filter((item) => {
    const id = scalarIdentity(item);
    if (id === undefined) return true;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  return orderMergedList(merged, patch.map(scalarIdentity), live.map(scalarIdentity), scalarIdentity);
}

/** Items matched on their keys; `$patch: delete` removes an item, `$patch: replace` the list. */
function mergeKeyedList(live: JsonValue[], patch: JsonValue[], keys: readonly MergeKey[], items: SchemaPosition, at: Path): JsonValue[] {
  const identityOf = keyIdentity(keys);
  const keyNames = keys.map((k) => JSON.stringify(k.name)).join(' and ');
  let replaceAll = false;
  const deleted = new Set<string>();
  const entries: { item: JsonObject; id: string; at: Path }[] = [];
  patch.forEach((raw, i) => {
    const itemAt = [...at, i];
    if (!isJsonObject(raw)) return malformed(itemAt, `items of this list are objects keyed by ${keyNames}, not ${describeJson(raw)}`);
    const directive = getOwn(raw, PATCH);
    if (directive === 'replace') {
      replaceAll = true;
    } else if (directive === 'delete') {
      deleted.add(requireIdentity(identityOf, raw, itemAt, keyNames));
    } else if (directive === undefined || directive === 'merge') {
      const item = directive === undefined ? raw : without(raw, PATCH);
      entries.push({ item, id: requireIdentity(identityOf, item, itemAt, keyNames), at: itemAt });
    } else {
      malformed([...itemAt, PATCH], `unknown directive ${describeJson(directive)}; expected replace, delete or merge`);
    }
  });
  if (replaceAll) return entries.map((e) => mergeObject(undefined, e.item, items, e.at));

  const working = deleted.size === 0 ? [...live] : live.filter((item) => !deleted.has(identityOf(item) as string));
  const liveIds = working.map(identityOf);
  // The first item of each identity, so each patch entry finds its match without a scan.
  const indexOf = new Map<string, number>();
  liveIds.forEach((id, index) => {
    if (id !== undefined && !indexOf.has(id)) indexOf.set(id, index);
  });
  for (const entry of entries) {
    const index = indexOf.get(entry.id);
    const match = index === undefined ? undefined : working[index];
    if (index !== undefined && isJsonObject(match)) {
      working[index] = mergeObject(match, entry.item, items, entry.at);
    } else {
      indexOf.set(entry.id, working.length);
      working.push(mergeObject(undefined, entry.item, items, entry.at));
    }
  }
  return orderMergedList(
    working,
    entries.map((e) => e.id),
    liveIds,
    identityOf,
  );
}

/** The identity `$setElementOrder` entries are matched on, refusing it for lists that do not merge. */
function orderIdentity(strategy: ListStrategy, order: { at: Path }, at: Path): IdentityOf {
  if (strategy.kind === 'set') return scalarIdentity;
  if (strategy.kind === 'map') return keyIdentity(strategy.keys);
  return malformed(order.at, `${pointerOf(at)} is not a merging list, so its order cannot be set`);
}

/** The patch list must name its items in the order `$setElementOrder` gives (deletions aside). */
function checkPatchFollowsOrder(patch: JsonValue[], order: readonly string[], identityOf: IdentityOf, at: Path): void {
  let next = 0;
  for (const item of patch) {
    if (isJsonObject(item) && hasOwn(item, PATCH)) continue;
    const id = identityOf(item);
    if (id === undefined) continue;
    while (next < order.length && order[next] !== id) next++;
    if (next === order.length) malformed(at, `the patch list names ${describeJson(item)} out of the order this list gives`);
    next++;
  }
}

function requireIdentity(identityOf: IdentityOf, item: JsonValue, at: Path, keyNames?: string): string {
  const id = identityOf(item);
  if (id !== undefined) return id;
  const expected = keyNames === undefined ? 'an item of this list' : `an object with scalar ${keyNames}`;
  return malformed(at, `expected ${expected}, not ${describeJson(item)}`);
}

function parallelListTarget(key: string, prefix: string, at: Path): string {
  const name = key.slice(prefix.length + 1);
  if (key[prefix.length] !== '/' || name === '') malformed([...at, key], `expected ${prefix}/<field>, not ${JSON.stringify(key)}`);
  return name;
}

function parallelList(value: JsonValue, at: Path): JsonValue[] {
  if (!Array.isArray(value)) return malformed(at, `must be a list, not ${describeJson(value)}`);
  return value;
}

function isDirectiveKey(key: string): boolean {
  return key === PATCH || key === RETAIN_KEYS || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER);
}

function without(source: JsonObject, key: string): JsonObject {
  const copy: JsonObject = {};
  for (const k of Object.keys(source)) if (k !== key) setOwn(copy, k, source[k] as JsonValue);
  return copy;
}

function malformed(at: Path, detail: string): never {
  return fail('malformed', pointerOf(at), detail);
}

function notApplicable(at: Path, detail: string): never {
  return fail('not-applicable', pointerOf(at), detail);
}

function fail(reason: PatchErrorReason, path: string, detail: string): never {
  throw new PatchError({ patchType: 'strategic-merge-patch', reason, path, detail });
}
