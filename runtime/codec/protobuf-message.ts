import { isObject } from '../json/index.js';
import { type FieldSchema, type ObjectSchema, type SchemaNode, deref } from '../schema/index.js';
import { ProtobufCodecError } from './protobuf-errors.js';
import {
  type ValueCodec,
  boolCodec,
  bytesCodec,
  decodeFailure,
  delimitedEnd,
  doubleCodec,
  durationCodec,
  floatCodec,
  int32Codec,
  int64Codec,
  intOrStringCodec,
  mismatch,
  quantityCodec,
  rawCodec,
  stringCodec,
  timeCodec,
} from './protobuf-values.js';
import { type Reader, type Writer, WIRE_BYTES, fieldKey, skipField } from './protobuf-wire.js';

/** The embedded type whose fields an object inlines and Protobuf nests at field `number`. */
export type EmbeddedTypeLookup = (owner: ObjectSchema, number: number) => ObjectSchema | undefined;

type JsonObject = Record<string, unknown>;

/** One field of a message: writes its part of a JSON object and reads its values back into one. */
export interface FieldPlan {
  readonly number: number;
  write(w: Writer, source: JsonObject): void;
  read(r: Reader, wireType: number, target: JsonObject): void;
}

/**
 * A message compiled from an object schema: fields in field-number order (the real system's
 * order on the wire), a lookup by number for reading. Fields without a Protobuf number (the
 * inlined apiVersion and kind) are not on the wire.
 */
export class MessagePlan {
  fields: readonly FieldPlan[] = [];
  private byNumber: (FieldPlan | undefined)[] = [];
  /**
   * `write` and `read` compiled to straight-line code for this message (see protobuf-source.ts),
   * where the platform allows it. They find the same errors but do not say where: on any error the
   * caller runs `write` or `read` again for the precise one.
   */
  fastWrite: (w: Writer, source: JsonObject) => void = (w, source) => this.write(w, source);
  fastRead: (r: Reader, end: number, target: JsonObject) => JsonObject = (r, end, target) => this.read(r, end, target);
  /** A new, empty object for `fastRead` to fill. */
  create: () => JsonObject = () => ({});

  constructor(readonly typeName: string) {}

  setFields(fields: FieldPlan[]): void {
    this.fields = [...fields].sort((a, b) => a.number - b.number);
    this.byNumber = [];
    for (const f of this.fields) this.byNumber[f.number] = f;
  }

  /** Writes the fields of `source` (no length prefix). */
  write(w: Writer, source: JsonObject): void {
    for (const f of this.fields) f.write(w, source);
  }

  /** Reads fields up to `end` into `target`. */
  read(r: Reader, end: number, target: JsonObject): JsonObject {
    while (r.pos < end) this.readField(r, r.uint32(), target);
    if (r.pos !== end) throw decodeFailure(`a field runs past the end of ${this.typeName}`);
    return target;
  }

  /** Reads one field whose key has been read (skips it when the message has no such field). */
  readField(r: Reader, key: number, target: JsonObject): void {
    const wireType = key & 7;
    const f = this.byNumber[key >>> 3];
    if (f === undefined) skipField(r, wireType);
    else f.read(r, wireType, target);
  }
}

/** Compiles object schemas into message plans, once each (the plans are cached). */
export class MessageCompiler {
  private readonly plans = new Map<ObjectSchema, MessagePlan>();

  constructor(private readonly embeddedType: EmbeddedTypeLookup) {}

  plan(schema: ObjectSchema): MessagePlan {
    let plan = this.plans.get(schema);
    if (plan) return plan;
    plan = new MessagePlan(schema.typeName ?? 'object');
    // Registered before its fields compile, so recursive types find it.
    this.plans.set(schema, plan);
    plan.setFields(this.fieldPlans(schema, schema.fields));
    return plan;
  }

  private fieldPlans(owner: ObjectSchema, fields: readonly FieldSchema[]): FieldPlan[] {
    const plans: FieldPlan[] = [];
    const embedded = new Map<number, Set<string>>();
    for (const f of fields) {
      if (f.embeddedProto !== undefined) {
        const names = embedded.get(f.embeddedProto) ?? new Set<string>();
        embedded.set(f.embeddedProto, names.add(f.name));
      } else if (f.proto !== undefined) plans.push(this.fieldPlan(f.name, f.proto, f.schema));
    }
    for (const [number, names] of embedded) {
      const type = this.embeddedType(owner, number);
      if (!type) {
        throw new Error(
          `${owner.typeName}: fields ${[...names].join(', ')} are embedded at Protobuf field ${number}, but no embedded type is declared for it`,
        );
      }
      const inner = new MessagePlan(type.typeName ?? 'embedded');
      inner.setFields(
        this.fieldPlans(
          type,
          type.fields.filter((f) => names.has(f.name)),
        ),
      );
      plans.push(new EmbeddedField(number, inner));
    }
    return plans;
  }

  private fieldPlan(name: string, number: number, schema: SchemaNode): FieldPlan {
    const node = deref(schema);
    if (node.type === 'list') return new ListField(name, number, this.value(node.items));
    if (node.type === 'map') return new MapField(name, number, this.value(node.values));
    return new SingleField(name, number, this.value(node));
  }

  /** The codec of one value; lists and maps inside lists or maps travel in a wrapper message. */
  private value(schema: SchemaNode): ValueCodec {
    const node = deref(schema);
    switch (node.type) {
      case 'string':
        return stringCodec;
      case 'boolean':
        return boolCodec;
      case 'integer':
        return node.format === 'int32' ? int32Codec : int64Codec;
      case 'number':
        return node.format === 'float' ? floatCodec : doubleCodec;
      case 'bytes':
        return bytesCodec;
      case 'date':
        return stringCodec;
      case 'date-time':
        return timeCodec;
      case 'duration':
        return durationCodec;
      case 'quantity':
        return quantityCodec;
      case 'int-or-string':
        return intOrStringCodec;
      case 'raw':
        return rawCodec;
      case 'object':
        return travelsAsRaw(node) ? rawCodec : new MessageCodec(this.plan(node));
      case 'list':
        return new WrapperCodec(new ListField('items', 1, this.value(node.items)), () => []);
      case 'map':
        return new WrapperCodec(new MapField('items', 1, this.value(node.values)), () => ({}));
    }
  }
}

/** Embedded resources and objects that keep unknown fields travel as RawExtension (JSON). */
export function travelsAsRaw(node: ObjectSchema): boolean {
  return node.embeddedResource === true || node.preserveUnknown === true;
}

export class SingleField implements FieldPlan {
  private readonly key: number;

  constructor(
    readonly name: string,
    readonly number: number,
    readonly codec: ValueCodec,
  ) {
    this.key = fieldKey(number, codec.wireType);
  }

  write(w: Writer, source: JsonObject): void {
    const v = source[this.name];
    if (v === undefined || v === null) return;
    w.uint32(this.key);
    try {
      this.codec.write(w, v);
    } catch (error) {
      throw within(error, `.${this.name}`);
    }
  }

  read(r: Reader, wireType: number, target: JsonObject): void {
    try {
      if (wireType !== this.codec.wireType) throw wrongWireType(wireType);
      target[this.name] = this.codec.read(r);
    } catch (error) {
      throw within(error, `.${this.name}`);
    }
  }
}

/** A repeated field: one key per item (unpacked, as proto2 writes); packed scalars are read too. */
export class ListField implements FieldPlan {
  private readonly key: number;

  constructor(
    readonly name: string,
    readonly number: number,
    readonly codec: ValueCodec,
  ) {
    this.key = fieldKey(number, codec.wireType);
  }

  write(w: Writer, source: JsonObject): void {
    const list = source[this.name];
    if (list === undefined || list === null) return;
    if (!Array.isArray(list)) throw within(mismatch('a list', list), `.${this.name}`);
    for (let i = 0; i < list.length; i++) {
      const item: unknown = list[i];
      try {
        if (item === undefined || (item === null && !this.codec.acceptsNull)) throw mismatch('a list item', item);
        w.uint32(this.key);
        this.codec.write(w, item);
      } catch (error) {
        throw within(error, `.${this.name}[${i}]`);
      }
    }
  }

  read(r: Reader, wireType: number, target: JsonObject): void {
    let list = target[this.name] as unknown[] | undefined;
    if (list === undefined) target[this.name] = list = [];
    try {
      if (wireType === this.codec.wireType) list.push(this.codec.read(r));
      else if (wireType === WIRE_BYTES && this.codec.packable) {
        const end = delimitedEnd(r);
        while (r.pos < end) list.push(this.codec.read(r));
      } else throw wrongWireType(wireType);
    } catch (error) {
      throw within(error, `.${this.name}[${list.length}]`);
    }
  }
}

/** `map<string, V>`: entries {key 1, value 2}, in the JSON object's key order. */
export class MapField implements FieldPlan {
  private readonly key: number;
  readonly valueKey: number;

  constructor(
    readonly name: string,
    readonly number: number,
    readonly codec: ValueCodec,
  ) {
    this.key = fieldKey(number, WIRE_BYTES);
    this.valueKey = fieldKey(2, codec.wireType);
  }

  write(w: Writer, source: JsonObject): void {
    const map = source[this.name];
    if (map === undefined || map === null) return;
    if (!isObject(map)) throw within(mismatch('an object', map), `.${this.name}`);
    for (const k of Object.keys(map)) {
      const v = map[k];
      try {
        if (v === undefined || (v === null && !this.codec.acceptsNull)) throw mismatch('a map value', v);
        w.uint32(this.key).fork().uint32(10).string(k).uint32(this.valueKey);
        this.codec.write(w, v);
        w.ldelim();
      } catch (error) {
        throw within(error, `.${this.name}[${JSON.stringify(k)}]`);
      }
    }
  }

  read(r: Reader, wireType: number, target: JsonObject): void {
    if (wireType !== WIRE_BYTES) throw within(wrongWireType(wireType), `.${this.name}`);
    let map = target[this.name] as JsonObject | undefined;
    if (map === undefined) target[this.name] = map = {};
    const end = delimitedEnd(r);
    let k = '';
    let v: unknown;
    try {
      while (r.pos < end) {
        const key = r.uint32();
        if (key === 10) k = r.string();
        else if (key === this.valueKey) v = this.codec.read(r);
        else skipField(r, key & 7);
      }
    } catch (error) {
      throw within(error, `.${this.name}[${JSON.stringify(k)}]`);
    }
    setOwn(map, k, v === undefined ? this.codec.zero() : v);
  }
}

/** Fields inlined from an embedded struct: one nested message on the wire, flat in JSON. */
export class EmbeddedField implements FieldPlan {
  private readonly key: number;

  constructor(
    readonly number: number,
    readonly plan: MessagePlan,
  ) {
    this.key = fieldKey(number, WIRE_BYTES);
  }

  write(w: Writer, source: JsonObject): void {
    w.uint32(this.key).fork();
    this.plan.write(w, source);
    w.ldelim();
  }

  read(r: Reader, wireType: number, target: JsonObject): void {
    if (wireType !== WIRE_BYTES) throw wrongWireType(wireType, ` (the embedded ${this.plan.typeName})`);
    this.plan.read(r, delimitedEnd(r), target);
  }
}

export class MessageCodec implements ValueCodec {
  readonly wireType = WIRE_BYTES;
  readonly packable = false;

  constructor(readonly plan: MessagePlan) {}

  write(w: Writer, value: unknown): void {
    if (!isObject(value)) throw mismatch('an object', value);
    w.fork();
    this.plan.write(w, value);
    w.ldelim();
  }

  read(r: Reader): unknown {
    return this.plan.read(r, delimitedEnd(r), {});
  }

  zero(): unknown {
    return {};
  }
}

/** A list or map that is itself an item or value: a message holding it as field 1 (`items`). */
export class WrapperCodec implements ValueCodec {
  readonly wireType = WIRE_BYTES;
  readonly packable = false;

  constructor(
    readonly field: ListField | MapField,
    readonly zero: () => unknown,
  ) {}

  write(w: Writer, value: unknown): void {
    w.fork();
    this.field.write(w, { items: value });
    w.ldelim();
  }

  read(r: Reader): unknown {
    const end = delimitedEnd(r);
    const holder: JsonObject = {};
    while (r.pos < end) {
      const key = r.uint32();
      if (key >>> 3 === 1) this.field.read(r, key & 7, holder);
      else skipField(r, key & 7);
    }
    return holder.items ?? this.zero();
  }
}

function wrongWireType(wireType: number, what = ''): ProtobufCodecError {
  return new ProtobufCodecError('decode', '', `unexpected wire type ${wireType}${what}`);
}

/** Prepends a path segment to a codec error; other errors pass through unchanged. */
function within(error: unknown, segment: string): unknown {
  return error instanceof ProtobufCodecError ? error.within(segment) : error;
}

/** Sets an own property, also for the key `__proto__` (which plain assignment would not). */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
