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
  // Each item's identity once: identities are JSON text, too dear to recompute in a sort.
  const ranked = merged.map((item) => {
    const id = identityOf(item);
    return { item, preferred: id === undefined ? undefined : preferredRank.get(id), live: id === undefined ? undefined : liveRank.get(id) };
  });
  const named = stableSortBy(
    ranked.filter((r) => r.preferred !== undefined),
    (r) => r.preferred,
  );
  const liveOnly = stableSortBy(
    ranked.filter((r) => r.preferred === undefined),
    (r) => r.live,
  );

  const result: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < liveOnly.length || j < named.length) {
    if (j >= named.length) {
      result.push(liveOnly[i++]!.item);
    } else if (i >= liveOnly.length) {
      result.push(named[j++]!.item);
    } else {
      const left = liveOnly[i]!.live;
      const right = named[j]!.live;
      const liveFirst = left !== undefined && right !== undefined && left < right;
      result.push(liveFirst ? liveOnly[i++]!.item : named[j++]!.item);
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
function stableSortBy<T>(items: T[], rankOf: (item: T) => number | undefined): T[] {
  return items.sort((a, b) => {
    const ra = rankOf(a);
    const rb = rankOf(b);
    if (ra === undefined || rb === undefined) return ra === rb ? 0 : ra === undefined ? 1 : -1;
    return ra - rb;
  });
}
