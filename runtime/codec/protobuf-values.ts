import { formatDuration, isDurationParseError, parseDurationNanoseconds } from '../api/index.js';
import { ProtobufCodecError } from './protobuf-errors.js';
import {
  type Reader,
  type Writer,
  WIRE_BYTES,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_VARINT,
  readInt64,
  readInt64Exact,
  shortestFloat32,
  skipField,
  writeInt64Exact,
} from './protobuf-wire.js';
import { formatTimestamp, parseTimestamp } from './timestamp.js';

/**
 * How one JSON value travels as one Protobuf value (without its field key). Scalars map to
 * Protobuf scalars; the special strings travel in the real system's wire forms:
 * Time {seconds 1, nanos 2}, Duration {duration 1}, Quantity {string 1},
 * IntOrString {type 1, intVal 2, strVal 3}, RawExtension {raw 2 -> JSON text}.
 */
export interface ValueCodec {
  readonly wireType: number;
  /** A scalar that a repeated field may carry packed. */
  readonly packable: boolean;
  /** Null is a value of its own (RawExtension: JSON `null`) rather than an absent field. */
  readonly acceptsNull?: boolean;
  /** Writes the value; throws ProtobufCodecError (empty path) when it is of the wrong JSON type. */
  write(w: Writer, value: unknown): void;
  read(r: Reader): unknown;
  /** The value of a map entry whose value is missing on the wire. */
  zero(): unknown;
}

export function mismatch(expected: string, value: unknown): ProtobufCodecError {
  return new ProtobufCodecError('encode', '', `expected ${expected}, got ${describe(value)}`);
}

export function decodeFailure(detail: string): ProtobufCodecError {
  return new ProtobufCodecError('decode', '', detail);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return `${typeof value} ${String(value)}`;
}

/** The end of a length-delimited value that starts at the reader's position. */
export function delimitedEnd(r: Reader): number {
  const length = r.uint32();
  const end = r.pos + length;
  if (end > r.len) throw decodeFailure(`length ${length} runs past the end of the input`);
  return end;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_LIMIT = 2 ** 63;

export const stringCodec: ValueCodec = {
  wireType: WIRE_BYTES,
  packable: false,
  write(w, v) {
    if (typeof v !== 'string') throw mismatch('a string', v);
    w.string(v);
  },
  read: (r) => r.string(),
  zero: () => '',
};

export const boolCodec: ValueCodec = {
  wireType: WIRE_VARINT,
  packable: true,
  write(w, v) {
    if (typeof v !== 'boolean') throw mismatch('a boolean', v);
    w.bool(v);
  },
  read: (r) => r.bool(),
  zero: () => false,
};

export const int32Codec: ValueCodec = {
  wireType: WIRE_VARINT,
  packable: true,
  write(w, v) {
    if (!Number.isInteger(v) || (v as number) < INT32_MIN || (v as number) > INT32_MAX) throw mismatch('a 32-bit integer', v);
    w.int32(v as number);
  },
  read: (r) => r.int32(),
  zero: () => 0,
};

export const int64Codec: ValueCodec = {
  wireType: WIRE_VARINT,
  packable: true,
  write(w, v) {
    if (!Number.isInteger(v) || Math.abs(v as number) >= INT64_LIMIT) throw mismatch('a 64-bit integer', v);
    w.int64(v as number);
  },
  read: readInt64,
  zero: () => 0,
};

export const doubleCodec: ValueCodec = {
  wireType: WIRE_FIXED64,
  packable: true,
  write(w, v) {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw mismatch('a number', v);
    w.double(v);
  },
  read: (r) => r.double(),
  zero: () => 0,
};

/** `format: float`: 32 bits on the wire, read back as the shortest decimal of that float. */
export const floatCodec: ValueCodec = {
  wireType: WIRE_FIXED32,
  packable: true,
  write(w, v) {
    // Anything that rounds to a finite 32-bit float (3.4028235e38 rounds to the largest one).
    if (typeof v !== 'number' || !Number.isFinite(Math.fround(v))) throw mismatch('a 32-bit float', v);
    w.float(v);
  },
  read: (r) => shortestFloat32(r.float()),
  zero: () => 0,
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** JSON base64 (standard alphabet) <-> Protobuf bytes; read back padded. */
export const bytesCodec: ValueCodec = {
  wireType: WIRE_BYTES,
  packable: false,
  write(w, v) {
    if (typeof v !== 'string' || !BASE64.test(v) || v.length % 4 === 1 || (v.endsWith('=') && v.length % 4 !== 0)) {
      throw mismatch('base64 text', v);
    }
    w.bytes(fromBase64(v));
  },
  read(r) {
    return toBase64(r.bytes());
  },
  zero: () => '',
};

// Node's Buffer where there is one (fast); atob/btoa in browsers.
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

function fromBase64(text: string): Uint8Array {
  if (NodeBuffer) return NodeBuffer.from(text, 'base64');
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function toBase64(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64');
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Time {seconds 1, nanos 2}, both written always as the real system does. */
export const timeCodec: ValueCodec = {
  wireType: WIRE_BYTES,
  packable: false,
  write(w, v) {
    if (typeof v !== 'string') throw mismatch('an RFC 3339 timestamp', v);
    const t = parseTimestamp(v);
    w.fork().uint32(8).int64(t.seconds).uint32(16).int32(t.nanos).ldelim();
  },
  read(r) {
    const end = delimitedEnd(r);
    let seconds = 0;
    let nanos = 0;
    while (r.pos < end) {
      const key = r.uint32();
      if (key === 8) seconds = readInt64(r);
      else if (key === 16) nanos = r.int32();
      else skipField(r, key & 7);
    }
    if (nanos < 0 || nanos > 999_999_999) throw decodeFailure(`Time.nanos ${nanos} is outside 0-999999999`);
    return formatTimestamp(seconds, nanos);
  },
  zero: () => formatTimestamp(0, 0),
};

/** Duration {duration 1}: nanoseconds; JSON is Go's duration text (`1h0m0s`). */
export const durationCodec: ValueCodec = {
  wireType: WIRE_BYTES,
  packable: false,
  write(w, v) {
    if (typeof v !== 'string') throw mismatch('a duration such as 1m30s', v);
    let nanos: bigint;
    try {
      nanos = parseDurationNanoseconds(v);
    } catch (error) {
      if (isDurationParseError(error)) throw new ProtobufCodecError('encode', '', error.message);
      throw error;
    }
    w.fork().uint32(8);
    writeInt64Exact(w, nanos);
    w.ldelim();
  },
  read(r) {
    const end = delimitedEnd(r);
    let nanos = 0n;
    while (r.pos < end) {
      const key = r.uint32();
      if (key === 8) nanos = readInt64Exact(r);
      else skipField(r, key & 7);
    }
    return formatDuration(nanos);
  },
  zero: () => '0s',
};

/** Quantity {string 1}: the text as written (a JSON number becomes its decimal text). */
export const quantityCodec: ValueCodec = {
  wireType: WIRE_BYTES,
  packable: false,
  write(w, v) {
    if (typeof v === 'number' && Number.isFinite(v)) v = String(v);
    if (typeof v !== 'string') throw mismatch('a quantity such as 500m or 1Gi', v);
    w.fork().uint32(10).string(v).ldelim();
  },
  read(r) {
    const end = delimitedEnd(r);
    let text = '';
    while (r.pos < end) {
      const key = r.uint32();
      if (key === 10) text = r.string();
      else skipField(r, key & 7);
    }
    return text;
  },
  zero: () => '0',
};

/** IntOrString {type 1 (0 int, 1 string), intVal 2, strVal 3}, all written as the real system does. */
export const intOrStringCodec: ValueCodec = {
  wireType: WIRE_BYTES,
  packable: false,
  write(w, v) {
    if (typeof v === 'string') w.fork().uint32(8).int64(1).uint32(16).int32(0).uint32(26).string(v).ldelim();
    else if (Number.isInteger(v) && (v as number) >= INT32_MIN && (v as number) <= INT32_MAX) {
      w.fork()
        .uint32(8)
        .int64(0)
        .uint32(16)
        .int32(v as number)
        .uint32(26)
        .string('')
        .ldelim();
    } else throw mismatch('a string or a 32-bit integer', v);
  },
  read(r) {
    const end = delimitedEnd(r);
    let type = 0;
    let intVal = 0;
    let strVal = '';
    while (r.pos < end) {
      const key = r.uint32();
      if (key === 8) type = readInt64(r);
      else if (key === 16) intVal = r.int32();
      else if (key === 26) strVal = r.string();
      else skipField(r, key & 7);
    }
    return type === 1 ? strVal : intVal;
  },
  zero: () => 0,
};

/** RawExtension {raw 1}: any JSON value as its UTF-8 JSON text (as the real system stores it). */
export const rawCodec: ValueCodec = {
  wireType: WIRE_BYTES,
  packable: false,
  acceptsNull: true,
  write(w, v) {
    let text: string | undefined;
    try {
      text = JSON.stringify(v);
    } catch (error) {
      throw mismatch(`a JSON value (${(error as Error).message})`, v);
    }
    if (text === undefined) throw mismatch('a JSON value', v);
    // bytes and string share one wire form: the JSON text goes in without a copy.
    w.fork().uint32(10).string(text).ldelim();
  },
  read(r) {
    const end = delimitedEnd(r);
    let text: string | undefined;
    while (r.pos < end) {
      const key = r.uint32();
      if (key === 10) text = r.string();
      else skipField(r, key & 7);
    }
    if (text === undefined || text === '') return null;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw decodeFailure('RawExtension.raw is not JSON (only JSON raw extensions are supported)');
    }
  },
  zero: () => null,
};
