/**
 * What the merge markers of a schema say about each value, read once: a shape is a scalar, a
 * struct, a map or a list, each atomic (owned and replaced whole) or granular (owned and merged
 * part by part). Values with no schema are `untyped`: objects granular with every key a map key,
 * lists atomic, as the real system treats unstructured content.
 *
 * Built-in kinds read the legacy `patchStrategy: merge` + `patchMergeKey` field markers when no
 * list type is set; custom resources do not, and their unmarked lists are atomic.
 */
import { type JsonValue, isJsonObject } from '../json/index.js';
import { hasLegacyMarker, listMarkersOf, type ListMarkers, type MergeKey } from '../patch/index.js';
import { deref, type FieldSchema, type ListSchema, type ObjectSchema, type SchemaNode } from '../schema/index.js';

export interface ShapeOptions {
  /** A custom resource: unmarked lists are atomic and legacy patch markers are ignored. */
  readonly custom?: boolean;
}

export type { MergeKey } from '../patch/index.js';

export interface ScalarShape {
  readonly kind: 'scalar';
}

export interface UntypedShape {
  readonly kind: 'untyped';
}

export interface StructShape {
  readonly kind: 'struct';
  readonly atomic: boolean;
  /** The shape of a declared field; undefined for a key the schema does not declare. */
  field(name: string): Shape | undefined;
}

export interface MapShape {
  readonly kind: 'map';
  readonly atomic: boolean;
  readonly values: Shape;
}

/** How list items are told apart: not at all (atomic), by value, by key fields, or by position. */
export type ListKind = 'atomic' | 'set' | 'map' | 'index';

export interface ListShape {
  readonly kind: 'list';
  readonly listKind: ListKind;
  /** The key fields of a `map` list. */
  readonly keys: readonly MergeKey[];
  readonly items: Shape;
}

export type Shape = ScalarShape | UntypedShape | StructShape | MapShape | ListShape;

export const SCALAR: ScalarShape = { kind: 'scalar' };
export const UNTYPED: UntypedShape = { kind: 'untyped' };
const UNTYPED_OBJECT: MapShape = { kind: 'map', atomic: false, values: UNTYPED };
const UNTYPED_LIST: ListShape = { kind: 'list', listKind: 'atomic', keys: [], items: UNTYPED };

/** The shape of the root of an object whose schema is `schema` (untyped when there is none). */
export function rootShape(schema: SchemaNode | undefined, options: ShapeOptions = {}): Shape {
  return schema === undefined ? UNTYPED : readerFor(options).shapeOf(schema, undefined);
}

/** The shape that applies to `value`: untyped shapes take the form of the value they hold. */
export function resolveShape(shape: Shape, value: JsonValue | undefined): Shape {
  if (shape.kind !== 'untyped') return shape;
  if (isJsonObject(value)) return UNTYPED_OBJECT;
  if (Array.isArray(value)) return UNTYPED_LIST;
  return SCALAR;
}

/** The shape of a member of a struct or map (`memberShape` without the allocation, for hot walks). */
export function memberShapeOf(container: Shape, name: string): Shape {
  if (container.kind === 'struct') return container.field(name) ?? UNTYPED;
  if (container.kind === 'map') return container.values;
  return UNTYPED;
}

/** The shape of a member of a struct or map, and whether it is a declared struct field. */
export function memberShape(container: Shape, name: string): { shape: Shape; named: boolean } {
  if (container.kind === 'struct') {
    const field = container.field(name);
    return field === undefined ? { shape: UNTYPED, named: false } : { shape: field, named: true };
  }
  if (container.kind === 'map') return { shape: container.values, named: false };
  return { shape: UNTYPED, named: false };
}

// Shapes are built lazily and cached per schema node and field, so recursive schemas are fine.
class ShapeReader {
  private readonly byNode = new WeakMap<SchemaNode, Shape>();
  private readonly byField = new WeakMap<FieldSchema, Shape>();

  constructor(private readonly custom: boolean) {}

  shapeOf(node: SchemaNode, field: FieldSchema | undefined): Shape {
    // Legacy markers sit on the field, so a list read through a field is cached per field.
    if (field !== undefined && hasLegacyMarker(field)) {
      let shape = this.byField.get(field);
      if (shape === undefined) {
        shape = this.build(node, field);
        this.byField.set(field, shape);
      }
      return shape;
    }
    let shape = this.byNode.get(node);
    if (shape === undefined) {
      shape = this.build(node, undefined);
      this.byNode.set(node, shape);
    }
    return shape;
  }

  private build(node: SchemaNode, field: FieldSchema | undefined): Shape {
    const n = deref(node);
    switch (n.type) {
      case 'object':
        return this.structOf(n);
      case 'map':
        return { kind: 'map', atomic: n.mapType === 'atomic', values: this.shapeOf(n.values, undefined) };
      case 'list':
        return this.listOf(n, field);
      case 'raw':
        return UNTYPED;
      default:
        return SCALAR;
    }
  }

  private structOf(node: ObjectSchema): Shape {
    // An object that only keeps unknown fields has nothing declared: every key is a map key.
    if (node.fields.length === 0 && node.preserveUnknown === true) return node.structType === 'atomic' ? atomicStruct() : UNTYPED;
    const fields = new Map(node.fields.map((f) => [f.name, f]));
    const shapes = new Map<string, Shape>();
    return {
      kind: 'struct',
      atomic: node.structType === 'atomic',
      field: (name: string): Shape | undefined => {
        const known = shapes.get(name);
        if (known !== undefined) return known;
        const f = fields.get(name);
        if (f === undefined) return undefined;
        const shape = this.shapeOf(f.schema, f);
        shapes.set(name, shape);
        return shape;
      },
    };
  }

  /** Apply's precedence: the list type wins; without one, only built-in kinds read the legacy markers. */
  private listOf(node: ListSchema, field: FieldSchema | undefined): ListShape {
    const itemShape = this.shapeOf(node.items, undefined);
    const markers = listMarkersOf(node, field);
    // Only scalars can be told apart by value, only objects by key fields.
    const scalarItems = itemShape.kind === 'scalar';
    const objectItems = itemShape.kind === 'struct' || itemShape.kind === 'map' || itemShape.kind === 'untyped';
    const list = (listKind: ListKind, keys: readonly MergeKey[] = []): ListShape => ({ kind: 'list', listKind, keys, items: itemShape });
    if (markers.listType === 'atomic') return list('atomic');
    if (markers.listType === 'set') return list(scalarItems ? 'set' : 'atomic');
    if (markers.listType === 'map') {
      if (scalarItems) return list('set');
      return markers.mapKeys.length > 0 && objectItems ? list('map', markers.mapKeys) : list('index');
    }
    // No list type: built-in kinds read the legacy markers, custom resources keep lists atomic.
    if (this.custom || !isLegacyMerge(markers)) return list('atomic');
    if (markers.mergeKey !== undefined && objectItems) return list('map', [markers.mergeKey]);
    return list(scalarItems ? 'set' : 'atomic');
  }
}

function atomicStruct(): StructShape {
  return { kind: 'struct', atomic: true, field: () => undefined };
}

/** The real system reads exactly these two strategies as "merge". */
function isLegacyMerge(markers: ListMarkers): boolean {
  const strategies = markers.strategies.join(',');
  return strategies === 'merge' || strategies === 'merge,retainKeys';
}

const readers = { builtin: new ShapeReader(false), custom: new ShapeReader(true) };

function readerFor(options: ShapeOptions): ShapeReader {
  return options.custom === true ? readers.custom : readers.builtin;
}
