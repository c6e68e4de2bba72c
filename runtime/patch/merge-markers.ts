/**
 * The merge markers of a list, read once for the two engines that merge by them: strategic merge
 * patch (`strategic-markers.ts`) and server-side apply (`runtime/apply/shape.ts`). Reading is
 * shared so that both agree on what the markers and key defaults are; what they mean is each
 * engine's policy, because upstream gives the two engines different precedence (strategic merge
 * patch lets the legacy field markers win, apply lets the list type win and ignores the legacy
 * markers of custom resources).
 */
import { isJsonPrimitive, type JsonPrimitive } from '../json/index.js';
import { deref, type FieldSchema, type ListSchema, type SchemaNode } from '../schema/index.js';

/** A key field of a merging list; an item without it takes the schema default when there is one. */
export interface MergeKey {
  readonly name: string;
  readonly default?: JsonPrimitive;
}

/** What the schema says about merging one list, as declared, before any engine's precedence. */
export interface ListMarkers {
  /** The list type marker, when there is one. */
  readonly listType: ListSchema['listType'];
  /** The key fields of a `map` list type, each with its default. */
  readonly mapKeys: readonly MergeKey[];
  /** The declaring field's legacy `patchStrategy`, split at commas (`merge,retainKeys` gives two). */
  readonly strategies: readonly string[];
  /** The declaring field's legacy `patchMergeKey` with its default, when it names one. */
  readonly mergeKey: MergeKey | undefined;
  /** Whether the items are objects (or raw values), the only items that key fields can tell apart. */
  readonly keyedItems: boolean;
}

/** The markers of `list`, reached through `field` when a field declares it. */
export function listMarkersOf(list: ListSchema, field: FieldSchema | undefined): ListMarkers {
  const items = deref(list.items);
  const mergeKeyName = field?.patchMergeKey;
  return {
    listType: list.listType,
    mapKeys: (list.listMapKeys ?? []).map((name) => mergeKeyOf(list.items, name)),
    strategies: patchStrategiesOf(field),
    mergeKey: mergeKeyName === undefined || mergeKeyName === '' ? undefined : mergeKeyOf(list.items, mergeKeyName),
    keyedItems: items.type === 'object' || items.type === 'raw',
  };
}

/** `patchStrategy` may hold several comma-separated strategies, such as `merge,retainKeys`. */
export function patchStrategiesOf(field: FieldSchema | undefined): string[] {
  return (field?.patchStrategy ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Whether a field carries a legacy marker, so that what it declares may differ from its schema node's. */
export function hasLegacyMarker(field: FieldSchema): boolean {
  return field.patchStrategy !== undefined || field.patchMergeKey !== undefined;
}

function mergeKeyOf(items: SchemaNode, name: string): MergeKey {
  const node = deref(items);
  const field = node.type === 'object' ? node.fields.find((f) => f.name === name) : undefined;
  const fallback = field === undefined ? undefined : (field.schema.default ?? deref(field.schema).default);
  return isJsonPrimitive(fallback) ? { name, default: fallback } : { name };
}
