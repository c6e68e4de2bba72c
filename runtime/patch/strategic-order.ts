/**
 * Order of a merged list, as the real system computes it: items the patch names (or
 * `$setElementOrder` lists) keep that order; the other items keep their live order; and the two
 * runs are interleaved by live position, a patch item going first whenever the live list cannot
 * place it before the next live-only item. So items new to the list come before the live-only
 * items that follow them, as kube-apiserver does.
 */
import { hasOwn, isJsonObject, isJsonPrimitive, type JsonValue } from '../json/index.js';
import type { MergeKey } from './strategic-markers.js';

/** A string that is equal for two items exactly when they are the same list entry, if it has one. */
export type IdentityOf = (item: JsonValue) => string | undefined;

export const scalarIdentity: IdentityOf = (item) => (isJsonPrimitive(item) ? JSON.stringify(item) : undefined);

/** Identity of an object entry: its key values (or their defaults), all scalars. */
export function keyIdentity(keys: readonly MergeKey[]): IdentityOf {
  return (item) => {
    if (!isJsonObject(item)) return undefined;
    const values: JsonValue[] = [];
    for (const key of keys) {
      const value = hasOwn(item, key.name) ? item[key.name] : key.default;
      if (value === undefined || !isJsonPrimitive(value)) return undefined;
      values.push(value);
    }
    return JSON.stringify(values);
  };
}

/**
 * Orders `merged` given the identities of the wanted order (`preferred`) and of the live list
 * before the patch (`live`).
 */
export function orderMergedList(
  merged: readonly JsonValue[],
  preferred: readonly (string | undefined)[],
  live: readonly (string | undefined)[],
  identityOf: IdentityOf,
): JsonValue[] {
  const preferredRank = firstPositions(preferred);
  const liveRank = firstPositions(live);
  const rankIn = (ranks: Map<string, number>, item: JsonValue): number | undefined => {
    const id = identityOf(item);
    return id === undefined ? undefined : ranks.get(id);
  };
  const named = stableSortBy(
    merged.filter((item) => rankIn(preferredRank, item) !== undefined),
    (item) => rankIn(preferredRank, item),
  );
  const liveOnly = stableSortBy(
    merged.filter((item) => rankIn(preferredRank, item) === undefined),
    (item) => rankIn(liveRank, item),
  );

  const result: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < liveOnly.length || j < named.length) {
    if (j >= named.length) {
      result.push(liveOnly[i++] as JsonValue);
    } else if (i >= liveOnly.length) {
      result.push(named[j++] as JsonValue);
    } else {
      const left = rankIn(liveRank, liveOnly[i] as JsonValue);
      const right = rankIn(liveRank, named[j] as JsonValue);
      const liveFirst = left !== undefined && right !== undefined && left < right;
      result.push(liveFirst ? (liveOnly[i++] as JsonValue) : (named[j++] as JsonValue));
    }
  }
  return result;
}

function firstPositions(ids: readonly (string | undefined)[]): Map<string, number> {
  const ranks = new Map<string, number>();
  ids.forEach((id, i) => {
    if (id !== undefined && !ranks.has(id)) ranks.set(id, i);
  });
  return ranks;
}

/** Sorts by rank, unranked items last; Array.prototype.sort is stable. */
function stableSortBy(items: JsonValue[], rankOf: (item: JsonValue) => number | undefined): JsonValue[] {
  return items.sort((a, b) => {
    const ra = rankOf(a);
    const rb = rankOf(b);
    if (ra === undefined || rb === undefined) return ra === rb ? 0 : ra === undefined ? 1 : -1;
    return ra - rb;
  });
}
