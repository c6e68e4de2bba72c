/**
 * JSON values to CEL values, guided by the schema: integers become bigint ints (not doubles),
 * `format: byte` strings become bytes, dates and date-times timestamps, durations Duration values,
 * objects instances of their schema's class (accessible fields only, under escaped names), maps
 * Map values, and set/map lists are marked so they compare without order. Null fields are absent.
 * A value of the wrong JSON type is converted as untyped JSON, so reading it fails at run time
 * with a type error rather than the conversion failing.
 */
import { isPlainObject } from '../json/index.js';
import { deref, type SchemaNode } from '../schema/index.js';
import { escapePropertyName } from './escaping.js';
import { celFields, objectClass } from './schema-objects.js';
import { decodeBase64, markList, parseGoDuration, parseTimestamp } from './values.js';

/** A JSON number as CEL sees untyped JSON: whole numbers are ints, others doubles. */
function jsonNumber(n: number): bigint | number {
  return Number.isSafeInteger(n) ? BigInt(n) : n;
}

/** Untyped JSON (int-or-string, raw extensions, values of the wrong type) to CEL values. */
export function dynFromJson(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return jsonNumber(value);
  if (Array.isArray(value)) return value.map(dynFromJson);
  if (isPlainObject(value)) {
    const out = new Map<string, unknown>();
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out.set(k, dynFromJson(v));
    return out;
  }
  return value;
}

function fromString(value: unknown, format: string | undefined): unknown {
  if (typeof value !== 'string') return dynFromJson(value);
  switch (format) {
    case 'byte':
      return decodeBase64(value) ?? value;
    case 'date':
    case 'date-time':
      return parseTimestamp(value) ?? value;
    case 'duration':
      return parseGoDuration(value) ?? value;
    default:
      return value;
  }
}

/** Converts values of one object tree; remembers converted objects so nested rules reuse them. */
export class CelValueConverter {
  private readonly seen = new WeakMap<object, { node: SchemaNode; value: unknown }>();

  convert(value: unknown, node: SchemaNode): unknown {
    if (value === undefined || value === null) return null;
    if (typeof value !== 'object') return this.scalar(value, node);
    const hit = this.seen.get(value);
    if (hit && hit.node === node) return hit.value;
    const converted = this.composite(value, node);
    this.seen.set(value, { node, value: converted });
    return converted;
  }

  private scalar(value: unknown, node: SchemaNode): unknown {
    const n = deref(node);
    switch (n.type) {
      case 'integer':
        return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
      case 'number':
        return typeof value === 'bigint' ? Number(value) : value;
      case 'string':
        return fromString(value, n.format);
      case 'bytes':
        return fromString(value, 'byte');
      case 'date':
      case 'date-time':
      case 'duration':
        return fromString(value, n.type);
      default:
        return dynFromJson(value);
    }
  }

  private composite(value: object, node: SchemaNode): unknown {
    const n = deref(node);
    if (n.type === 'object' && isPlainObject(value)) {
      const out = new (objectClass(n))();
      for (const f of celFields(n)) {
        const v = value[f.name];
        if (v !== undefined && v !== null) out.set(f.escaped, this.convert(v, f.schema));
      }
      return out;
    }
    if (n.type === 'map' && isPlainObject(value)) {
      const out = new Map<string, unknown>();
      for (const [k, v] of Object.entries(value)) {
        if (v !== undefined && v !== null) out.set(k, this.convert(v, n.values));
      }
      return out;
    }
    if (n.type === 'list' && Array.isArray(value)) {
      const out = value.map((v) => this.convert(v, n.items));
      if (n.listType === 'set') return markList(out, { kind: 'set' });
      if (n.listType === 'map') {
        const keys = (n.listMapKeys ?? []).map((k) => escapePropertyName(k) ?? k);
        return markList(out, { kind: 'map', keys });
      }
      return out;
    }
    return dynFromJson(value);
  }
}

/** One JSON value to its CEL value under `node`. */
export function toCelValue(value: unknown, node: SchemaNode): unknown {
  return new CelValueConverter().convert(value, node);
}
