import protobuf from 'protobufjs/minimal.js';
import { ProtobufCodecError } from './protobuf-errors.js';

/** protobufjs' Writer and Reader: the only part of protobufjs the codec needs. */
export type Writer = protobuf.Writer;
export type Reader = protobuf.Reader;
export const newWriter = (): Writer => protobuf.Writer.create();
export const newReader = (bytes: Uint8Array): Reader => protobuf.Reader.create(bytes);

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

/** The key of a field: number and wire type, as written before its value. */
export function fieldKey(number: number, wireType: number): number {
  return ((number << 3) | wireType) >>> 0;
}

const decodeError = (detail: string): ProtobufCodecError => new ProtobufCodecError('decode', '', detail);

// The two halves of the last varint read by readVarint64 (no allocation per value).
let lo = 0;
let hi = 0;

/** Reads a varint of up to 64 bits into `lo`/`hi`; protobufjs would return a Long object. */
function readVarint64(r: Reader): void {
  const buf = r.buf;
  let pos = r.pos;
  const end = r.len;
  lo = 0;
  hi = 0;
  let b = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= end) throw decodeError('truncated varint');
    b = buf[pos++]!;
    lo |= (b & 127) << shift;
    if (b < 128) {
      r.pos = pos;
      return;
    }
  }
  if (pos >= end) throw decodeError('truncated varint');
  b = buf[pos++]!;
  lo = (lo | ((b & 127) << 28)) >>> 0;
  hi = (b & 127) >> 4;
  for (let shift = 3; b >= 128; shift += 7) {
    if (shift > 31) throw decodeError('varint longer than 10 bytes');
    if (pos >= end) throw decodeError('truncated varint');
    b = buf[pos++]!;
    hi |= (b & 127) << shift;
  }
  hi >>>= 0;
  r.pos = pos;
}

/** A signed 64-bit varint as a number (exact up to 2^53, as JSON numbers are). */
export function readInt64(r: Reader): number {
  readVarint64(r);
  if (hi >>> 31) {
    const l = (~lo + 1) >>> 0;
    let h = ~hi >>> 0;
    if (l === 0) h = (h + 1) >>> 0;
    return -(l + h * 4294967296);
  }
  return lo + hi * 4294967296;
}

/** A signed 64-bit varint as an exact bigint (durations in nanoseconds). */
export function readInt64Exact(r: Reader): bigint {
  readVarint64(r);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
}

/** Writes an exact signed 64-bit value (protobufjs parses the decimal string with `long`). */
export function writeInt64Exact(w: Writer, value: bigint): void {
  w.int64(value.toString());
}

/**
 * The shortest decimal that reads back as the same 32-bit float, as the real system prints a
 * float32: `0.1` rather than `0.10000000149011612`.
 */
export function shortestFloat32(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  for (let digits = 1; digits < 10; digits++) {
    const candidate = Number(value.toPrecision(digits));
    if (Math.fround(candidate) === value) return candidate;
  }
  return value;
}

/** Skips one field's value; throws on a wire type this codec cannot skip (groups). */
export function skipField(r: Reader, wireType: number): void {
  if (wireType === 3 || wireType === 4 || wireType > 5) throw decodeError(`unsupported wire type ${wireType}`);
  r.skipType(wireType);
}
