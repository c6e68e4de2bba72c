/**
 * What the schema descriptors say about merging, read the way strategic merge patch reads them:
 * the legacy `patchStrategy`/`patchMergeKey` field markers first (they are what the real system
 * uses), then list type `map` with its keys and list type `set`.
 */
import { deref, type FieldSchema, type SchemaNode } from '../schema/index.js';
import { listMarkersOf, patchStrategiesOf, type MergeKey } from './merge-markers.js';

export type { MergeKey } from './merge-markers.js';

/** Where a value sits in the schema: its node, and the field that declares it when there is one. */
export interface SchemaPosition {
  readonly node?: SchemaNode | undefined;
  readonly field?: FieldSchema | undefined;
}

/** How a list merges: replaced whole, as a set of scalars, or item by item matched on keys. */
export type ListStrategy =
  | { readonly kind: 'atomic' }
  | { readonly kind: 'set' }
  | { readonly kind: 'map'; readonly keys: readonly MergeKey[] };

const ATOMIC: ListStrategy = { kind: 'atomic' };
const SET: ListStrategy = { kind: 'set' };

/** The position of member `key` inside a value at `parent`; unknown members have no node. */
export function memberPosition(parent: SchemaPosition, key: string): SchemaPosition {
  const node = parent.node === undefined ? undefined : deref(parent.node);
  if (node?.type === 'object') {
    const field = node.fields.find((f) => f.name === key);
    return { node: field?.schema, field };
  }
  if (node?.type === 'map') return { node: node.values };
  return {};
}

/** The position of the items of the list at `list`. */
export function itemPosition(list: SchemaPosition): SchemaPosition {
  const node = list.node === undefined ? undefined : deref(list.node);
  return node?.type === 'list' ? { node: node.items } : {};
}

/**
 * Whether a `$`-prefixed member name is data at this position rather than a directive: map keys,
 * declared fields (such as `$ref`) and members of objects that keep unknown fields are data.
 */
export function isDataMember(parent: SchemaPosition, key: string): boolean {
  const node = parent.node === undefined ? undefined : deref(parent.node);
  if (node === undefined || node.type === 'map') return true;
  if (node.type !== 'object') return true;
  return node.preserveUnknown === true || node.fields.some((f) => f.name === key);
}

/** A field marked `patchStrategy: replace` is replaced whole rather than merged. */
export function replacesWhole(position: SchemaPosition): boolean {
  return patchStrategiesOf(position.field).includes('replace');
}

/** Strategic merge patch's precedence: `replace` first, then a keyed list type, then the legacy `merge`. */
export function listStrategyOf(position: SchemaPosition): ListStrategy {
  const node = position.node === undefined ? undefined : deref(position.node);
  if (node?.type !== 'list') return ATOMIC;
  const markers = listMarkersOf(node, position.field);
  if (markers.strategies.includes('replace')) return ATOMIC;
  if (markers.listType === 'map' && markers.mapKeys.length > 0 && markers.keyedItems) return { kind: 'map', keys: markers.mapKeys };
  if (markers.strategies.includes('merge')) {
    if (markers.mergeKey !== undefined && markers.keyedItems) return { kind: 'map', keys: [markers.mergeKey] };
    return SET;
  }
  return markers.listType === 'set' ? SET : ATOMIC;
}
