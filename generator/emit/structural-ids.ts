/**
 * Hash-consing of JSON-like trees: two objects or arrays get the same id exactly when
 * `JSON.stringify` would print them alike (with the `skip`ped keys left out). An id is computed
 * from the children's ids, and each object once, so comparing two subtrees costs one number
 * compare and keying every node of a tree costs time linear in the tree (keying each node by its
 * whole JSON text is quadratic in the depth).
 */
export class StructuralIds {
  private readonly ids = new Map<object, number>();
  private readonly byShape = new Map<string, number>();
  private readonly lengths: number[] = [];
  /** Strings by id, with the length of their JSON text: a long description is hashed, not re-printed. */
  private readonly strings = new Map<string, { id: number; length: number }>();
  /** The JSON length of what the last `part` call stood for. */
  private partLength = 0;

  constructor(private readonly skip: (key: string) => boolean = () => false) {}

  /** The id of an object or array. */
  idOf(value: object): number {
    let id = this.ids.get(value);
    if (id !== undefined) return id;
    const { shape, length } = Array.isArray(value) ? this.arrayShape(value) : this.objectShape(value as Record<string, unknown>);
    id = this.byShape.get(shape);
    if (id === undefined) {
      id = this.byShape.size;
      this.byShape.set(shape, id);
      this.lengths.push(length);
    }
    this.ids.set(value, id);
    return id;
  }

  /** The length of the compact JSON of the values with this id. */
  jsonLength(id: number): number {
    return this.lengths[id]!;
  }

  /** `#<id>` for an object or array, `$<id>` for a string, JSON text for anything else: equal parts, equal values. */
  private part(value: unknown): string {
    if (typeof value === 'object' && value !== null) {
      const id = this.idOf(value);
      this.partLength = this.lengths[id]!;
      return `#${id}`;
    }
    if (typeof value === 'string') {
      let s = this.strings.get(value);
      if (s === undefined) this.strings.set(value, (s = { id: this.strings.size, length: JSON.stringify(value).length }));
      this.partLength = s.length;
      return `$${s.id}`;
    }
    const json = JSON.stringify(value) ?? 'null';
    this.partLength = json.length;
    return json;
  }

  private arrayShape(value: unknown[]): { shape: string; length: number } {
    let shape = '[';
    let length = 1 + value.length;
    for (let i = 0; i < value.length; i++) {
      shape += (i ? ',' : '') + this.part(value[i]);
      length += this.partLength;
    }
    return { shape: `${shape}]`, length: value.length ? length : 2 };
  }

  private objectShape(value: Record<string, unknown>): { shape: string; length: number } {
    let shape = '{';
    let length = 1;
    for (const key in value) {
      const v = value[key];
      if (v === undefined || typeof v === 'function' || this.skip(key)) continue;
      const name = this.part(key);
      const nameLength = this.partLength;
      shape += `${length > 1 ? ',' : ''}${name}:${this.part(v)}`;
      length += nameLength + 1 + this.partLength + 1;
    }
    return { shape: `${shape}}`, length: length > 1 ? length : 2 };
  }
}
