// Test support (fast-check is a devDependency): documents generated from schema descriptors, and
// the JSON a document is expected to read back as after a Protobuf round trip.
import fc from 'fast-check';
import { formatDuration } from '../api/index.js';
import { type ObjectSchema, type SchemaNode, deref } from '../schema/index.js';
import { shortestFloat32 } from './protobuf-wire.js';

type JsonObject = Record<string, unknown>;

export interface SampleOptions {
  /**
   * Only documents that read back exactly: no empty lists or maps in fields, no nulls, no
   * apiVersion or kind on nested objects. Otherwise those are generated too.
   */
  canonical: boolean;
  /** Object nesting beyond which optional fields are left out (recursive and very deep types). */
  maxDepth?: number;
}

export interface SampleKind {
  apiVersion: string;
  kind: string;
  schema: ObjectSchema;
}

/** Documents of a kind with apiVersion and kind set. */
export function documentArbitrary(kind: SampleKind, options: SampleOptions): fc.Arbitrary<JsonObject> {
  const gen = new Generator(options);
  return gen.object(kind.schema, 0, true).map((doc) => ({ apiVersion: kind.apiVersion, kind: kind.kind, ...doc }));
}

/**
 * The documented differences of a Protobuf round trip, applied to a document: absent instead of
 * null, of empty lists and maps in fields, and of fields that are not on the wire (apiVersion and
 * kind below the top, unknown fields); quantities given as numbers read back as text; apiVersion
 * and kind of the top object come from the kind.
 */
export function expectedAfterProtobuf(kind: SampleKind, doc: JsonObject): JsonObject {
  return { apiVersion: kind.apiVersion, kind: kind.kind, ...normalizeObject(kind.schema, doc) };
}

function onWire(f: { proto?: number; embeddedProto?: number }): boolean {
  return f.proto !== undefined || f.embeddedProto !== undefined;
}

function travelsAsRaw(node: ObjectSchema): boolean {
  return node.embeddedResource === true || node.preserveUnknown === true;
}

function normalizeObject(node: ObjectSchema, value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const f of node.fields) {
    if (!Object.hasOwn(value, f.name) || !onWire(f)) continue;
    const v = value[f.name];
    if (v === null || v === undefined) continue;
    const n = deref(f.schema);
    if (n.type === 'list' && Array.isArray(v) && v.length === 0) continue;
    if (n.type === 'map' && Object.keys(v as JsonObject).length === 0) continue;
    out[f.name] = normalizeValue(n, v);
  }
  return out;
}

function normalizeValue(schema: SchemaNode, value: unknown): unknown {
  const n = deref(schema);
  switch (n.type) {
    case 'object':
      return travelsAsRaw(n) ? value : normalizeObject(n, value as JsonObject);
    case 'list':
      return (value as unknown[]).map((v) => normalizeValue(n.items, v));
    case 'map': {
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(value as JsonObject)) {
        Object.defineProperty(out, k, { value: normalizeValue(n.values, v), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'quantity':
      return typeof value === 'number' ? String(value) : value;
    default:
      return value;
  }
}

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** RFC 3339 in UTC with the fewest of 3, 6 or 9 fraction digits, written without the codec's formatter. */
const timestampArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
    fc.oneof(
      fc.constant(0),
      fc.integer({ min: 1, max: 999 }).map((n) => n * 1_000_000),
      fc
        .integer({ min: 1, max: 999_999 })
        .filter((n) => n % 1000 !== 0)
        .map((n) => n * 1000),
      fc.integer({ min: 1, max: 999_999_999 }).filter((n) => n % 1000 !== 0),
    ),
  )
  .map(([date, nanos]) => {
    const digits = String(nanos).padStart(9, '0');
    const fraction =
      nanos === 0 ? '' : nanos % 1_000_000 === 0 ? `.${digits.slice(0, 3)}` : nanos % 1000 === 0 ? `.${digits.slice(0, 6)}` : `.${digits}`;
    return `${date.toISOString().slice(0, 19)}${fraction}Z`;
  });

const quantityArb = fc.oneof(
  fc.constantFrom('0', '1', '500m', '1Gi', '1.5', '100Mi', '2k', '1e3', '-1', '0.1'),
  fc.nat().map((n) => `${n}Ki`),
);
const keyArb = fc.oneof(
  { weight: 8, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'app.svc.io/name', '') },
);
const textArb = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 4 }));

class Generator {
  private readonly maxDepth: number;

  constructor(private readonly options: SampleOptions) {
    this.maxDepth = options.maxDepth ?? 8;
  }

  object(node: ObjectSchema, depth: number, top = false): fc.Arbitrary<JsonObject> {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    const requiredKeys: string[] = [];
    for (const f of node.fields) {
      if (top && (f.name === 'apiVersion' || f.name === 'kind')) continue;
      if (!onWire(f) && this.options.canonical) continue;
      if (depth >= this.maxDepth && !f.required) continue;
      let arb = this.field(f.schema, depth + 1);
      if (!this.options.canonical) arb = fc.oneof({ weight: 9, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) });
      model[f.name] = arb;
      if (f.required) requiredKeys.push(f.name);
    }
    return fc.record(model, { requiredKeys });
  }

  /** A field's value: its lists and maps may be empty unless canonical. */
  private field(schema: SchemaNode, depth: number): fc.Arbitrary<unknown> {
    const n = deref(schema);
    const min = this.options.canonical ? 1 : 0;
    if (n.type === 'list') return fc.array(this.value(n.items, depth), { minLength: min, maxLength: 3 });
    if (n.type === 'map') return fc.dictionary(keyArb, this.value(n.values, depth), { minKeys: min, maxKeys: 3 });
    // A null field is absent after the trip; only RawExtension can hold null, and only in a list or map.
    const arb = this.value(n, depth);
    return this.options.canonical ? arb.filter((v) => v !== null) : arb;
  }

  /** One value; lists and maps here are items or values (wrapped on the wire) and may be empty. */
  private value(schema: SchemaNode, depth: number): fc.Arbitrary<unknown> {
    const n = deref(schema);
    const choose = (values: readonly unknown[] | undefined, fallback: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
      values && values.length > 0 ? fc.constantFrom(...values) : fallback;
    switch (n.type) {
      case 'string':
        return choose(n.enum, textArb);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return choose(n.enum, n.format === 'int32' ? fc.integer(INT32) : fc.maxSafeInteger());
      case 'number':
        return n.format === 'float'
          ? fc.float({ noNaN: true, noDefaultInfinity: true }).map(shortestFloat32)
          : fc.double({ noNaN: true, noDefaultInfinity: true });
      case 'bytes':
        return fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b).toString('base64'));
      case 'date':
        return fc
          .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
      case 'date-time':
        return timestampArb;
      case 'duration':
        return fc.oneof(
          fc.constantFrom('0s', '1h0m0s', '1.5s', '300ms'),
          fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(formatDuration),
        );
      case 'quantity':
        return quantityArb;
      case 'int-or-string':
        return fc.oneof(fc.integer(INT32), textArb);
      case 'raw':
        return fc.jsonValue({ maxDepth: 2 });
      case 'object':
        return travelsAsRaw(n) ? fc.dictionary(keyArb, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) : this.object(n, depth);
      case 'list':
        return fc.array(this.value(n.items, depth), { maxLength: 2 });
      case 'map':
        return fc.dictionary(keyArb, this.value(n.values, depth), { maxKeys: 2 });
    }
  }
}
