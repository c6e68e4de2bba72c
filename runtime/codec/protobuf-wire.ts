import { ProtobufCodecError } from './protobuf-errors.js';

// Node's Buffer where there is one: its UTF-8 calls are the fastest; TextEncoder/TextDecoder elsewhere.
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;
const utf8Write = NodeBuffer?.prototype.utf8Write as
  | ((this: Uint8Array, text: string, offset: number, length: number) => number)
  | undefined;
const textEncoder = new TextEncoder();
// A leading U+FEFF is text of the string, as Buffer's utf8Slice keeps it (TextDecoder drops it by default).
const textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Strings this short are written by a loop (cheaper than a call into the engine while they are
 * ASCII): the longest whose UTF-8 length (at most 3 bytes a unit) still fits a one-byte prefix.
 */
const SHORT_STRING = 42;
/** The buffer one encoding at a time reuses (kept up to this size), so a call allocates only its result. */
const SPARE_LIMIT = 4 << 20;
let spare: Uint8Array | undefined;

const allocate = (size: number): Uint8Array => (NodeBuffer ? NodeBuffer.allocUnsafeSlow(size) : new Uint8Array(size));

/** The number of bytes of `value` (below 2^32) as a varint. */
function varintSize(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;
}

/**
 * Protobuf writer into one growing buffer. A length-delimited value (`fork` .. `ldelim`) reserves
 * one byte for its length and moves its bytes up when the length needs more, so the output is
 * written once, in order, with no intermediate operations (protobufjs' Writer queues every value
 * as an operation and copies them at `finish`).
 */
export class Writer {
  buf: Uint8Array;
  pos = 0;
  private view: DataView;
  private readonly forks: number[] = [];

  constructor() {
    this.buf = spare ?? allocate(64 * 1024);
    spare = undefined;
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = allocate(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  }

  uint32(value: number): this {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    value >>>= 0;
    while (value > 127) {
      buf[pos++] = (value & 127) | 128;
      value >>>= 7;
    }
    buf[pos++] = value;
    this.pos = pos;
    return this;
  }

  /** A negative int32 is written as its 64-bit two's complement (10 bytes), as every Protobuf writer does. */
  int32(value: number): this {
    return value < 0 ? this.varint64(value | 0, -1) : this.uint32(value);
  }

  /** A signed integer of up to 64 bits given as a number (exact up to 2^53). */
  int64(value: number): this {
    if (value >= 0 && value < 0x100000000) return this.uint32(value);
    const negative = value < 0;
    const magnitude = negative ? -value : value;
    let lo = magnitude >>> 0;
    let hi = ((magnitude - lo) / 4294967296) >>> 0;
    if (negative) {
      hi = ~hi >>> 0;
      lo = ~lo >>> 0;
      if (++lo > 0xffffffff) {
        lo = 0;
        hi = (hi + 1) >>> 0;
      }
    }
    return this.varint64(lo, hi);
  }

  /** An exact signed 64-bit value (durations in nanoseconds). */
  int64Exact(value: bigint): this {
    const bits = BigInt.asUintN(64, value);
    return this.varint64(Number(bits & 0xffffffffn), Number(bits >> 32n));
  }

  private varint64(lo: number, hi: number): this {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    lo >>>= 0;
    hi >>>= 0;
    while (hi) {
      buf[pos++] = (lo & 127) | 128;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 127) {
      buf[pos++] = (lo & 127) | 128;
      lo >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
    return this;
  }

  bool(value: boolean): this {
    this.ensure(1);
    this.buf[this.pos++] = value ? 1 : 0;
    return this;
  }

  double(value: number): this {
    this.ensure(8);
    this.view.setFloat64(this.pos, value, true);
    this.pos += 8;
    return this;
  }

  float(value: number): this {
    this.ensure(4);
    this.view.setFloat32(this.pos, value, true);
    this.pos += 4;
    return this;
  }

  /** A length-prefixed UTF-8 string. */
  string(text: string): this {
    const n = text.length;
    if (n <= SHORT_STRING) {
      // At most 3 bytes per UTF-16 unit: the length fits in one byte.
      this.ensure(1 + 3 * n);
      const buf = this.buf;
      const start = this.pos;
      let pos = start + 1;
      for (let i = 0; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c >= 0x80) {
          pos = start + 1 + this.encodeInto(text, start + 1, 3 * n);
          break;
        }
        buf[pos++] = c;
      }
      buf[start] = pos - start - 1;
      this.pos = pos;
      return this;
    }
    // Assume ASCII for the size of the length prefix; move the bytes up in the rare case it is more.
    const max = 3 * n;
    const guess = varintSize(n);
    this.ensure(max + 5);
    const written = this.encodeInto(text, this.pos + guess, max);
    const size = varintSize(written);
    if (size !== guess) this.buf.copyWithin(this.pos + size, this.pos + guess, this.pos + guess + written);
    this.uint32(written);
    this.pos += written;
    return this;
  }

  private encodeInto(text: string, offset: number, max: number): number {
    if (utf8Write) return utf8Write.call(this.buf, text, offset, max);
    return textEncoder.encodeInto(text, this.buf.subarray(offset, offset + max)).written;
  }

  /** Length-prefixed bytes. */
  bytes(value: Uint8Array): this {
    this.uint32(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
    return this;
  }

  /** Starts a length-delimited value; `ldelim` ends it. */
  fork(): this {
    this.ensure(1);
    this.forks.push(this.pos++);
    return this;
  }

  /** Ends the value `fork` started: writes its length in the byte reserved for it, or moves it up. */
  ldelim(): this {
    const start = this.forks.pop()!;
    const length = this.pos - start - 1;
    if (length < 0x80) {
      this.buf[start] = length;
      return this;
    }
    const extra = varintSize(length) - 1;
    this.ensure(extra);
    this.buf.copyWithin(start + 1 + extra, start + 1, this.pos);
    const end = this.pos + extra;
    this.pos = start;
    this.uint32(length);
    this.pos = end;
    return this;
  }

  /** The bytes written (a copy; the writer's buffer is reused by the next one). */
  finish(): Uint8Array {
    // Node's pool serves the small ones (watch events, single objects) without a new ArrayBuffer each.
    const out = NodeBuffer ? NodeBuffer.allocUnsafe(this.pos) : new Uint8Array(this.pos);
    out.set(this.buf.subarray(0, this.pos));
    if (this.buf.length <= SPARE_LIMIT) spare = this.buf;
    this.pos = 0;
    return out;
  }
}

/** Protobuf reader over a byte array: `pos` moves through `buf` up to `len`. */
export class Reader {
  pos = 0;
  readonly len: number;
  /** The bytes as a plain Uint8Array, whatever the input's class, so that every byte read sees one kind of array. */
  readonly buf: Uint8Array;
  private view: DataView | undefined;
  /** The same bytes as a Node Buffer, whose utf8Slice is the fastest way to read a string. */
  private readonly text: (Buffer & { utf8Slice(start: number, end: number): string }) | undefined;

  constructor(bytes: Uint8Array) {
    this.buf =
      Object.getPrototypeOf(bytes) === Uint8Array.prototype ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.len = bytes.length;
    if (NodeBuffer) {
      this.text = (
        NodeBuffer.isBuffer(bytes) ? bytes : NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      ) as typeof this.text;
    }
  }

  uint32(): number {
    const buf = this.buf;
    let pos = this.pos;
    if (pos < this.len) {
      const b = buf[pos]!;
      if (b < 0x80) {
        this.pos = pos + 1;
        return b;
      }
    }
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (pos >= this.len) throw outOfRange();
      const b = buf[pos++]!;
      value |= (b & 127) << shift;
      if (b < 0x80) {
        this.pos = pos;
        return value >>> 0;
      }
    }
    // Bytes 6 to 10 of a 64-bit varint: only the low 32 bits count.
    for (let i = 0; i < 5; i++) {
      if (pos >= this.len) throw outOfRange();
      if (buf[pos++]! < 0x80) {
        this.pos = pos;
        return value >>> 0;
      }
    }
    throw decodeError('varint longer than 10 bytes');
  }

  int32(): number {
    return this.uint32() | 0;
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  private fixed(size: number): DataView {
    if (this.pos + size > this.len) throw outOfRange();
    this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    return this.view;
  }

  double(): number {
    const value = this.fixed(8).getFloat64(this.pos, true);
    this.pos += 8;
    return value;
  }

  float(): number {
    const value = this.fixed(4).getFloat32(this.pos, true);
    this.pos += 4;
    return value;
  }

  /** The end of the length-delimited value starting here (its length read). */
  delimitedEnd(): number {
    const length = this.uint32();
    const end = this.pos + length;
    if (end > this.len) throw decodeError(`length ${length} runs past the end of the input`);
    return end;
  }

  string(): string {
    const end = this.delimitedEnd();
    const start = this.pos;
    this.pos = end;
    const length = end - start;
    if (length <= RECENT_LENGTH) {
      if (length === 0) return '';
      // Short strings repeat (names, labels, enums): the one last read with the same bytes is taken.
      // The slot comes from the length and four of the bytes (a hash of all of them costs more than
      // the collisions it saves; the comparison below decides).
      const buf = this.buf;
      const sample =
        (length << 24) ^ (buf[start]! << 16) ^ (buf[end - 1]! << 8) ^ buf[(start + end) >> 1]! ^ (buf[end - 1 - (length >> 2)]! << 4);
      const slot = Math.imul(sample, 0x9e3779b1) >>> (32 - RECENT_BITS);
      const at = slot * RECENT_LENGTH;
      if (recentLength[slot] === length) {
        let i = 0;
        while (i < length && recentBytes[at + i] === buf[start + i]) i++;
        if (i === length) return recent[slot]!;
      }
      const text = this.utf8(start, end);
      recent[slot] = text;
      recentLength[slot] = length;
      for (let i = 0; i < length; i++) recentBytes[at + i] = buf[start + i]!;
      return text;
    }
    return this.utf8(start, end);
  }

  private utf8(start: number, end: number): string {
    if (this.text) return this.text.utf8Slice(start, end);
    return textDecoder.decode(this.buf.subarray(start, end));
  }

  /** A view into the input (no copy). */
  bytes(): Uint8Array {
    const end = this.delimitedEnd();
    const start = this.pos;
    this.pos = end;
    return this.buf.subarray(start, end);
  }

  skipType(wireType: number): void {
    switch (wireType) {
      case 0:
        readVarint64(this);
        return;
      case 1:
        this.fixed(8);
        this.pos += 8;
        return;
      case 2:
        this.pos = this.delimitedEnd();
        return;
      case 5:
        this.fixed(4);
        this.pos += 4;
        return;
      default:
        throw decodeError(`unsupported wire type ${wireType}`);
    }
  }
}

/** Strings up to this many bytes are looked up among the ones read recently. */
const RECENT_LENGTH = 32;
const RECENT_BITS = 12;
const RECENT_SLOTS = 1 << RECENT_BITS;
// Per slot the text last read there and its bytes: the same bytes always read as the same text.
const recent: string[] = new Array<string>(RECENT_SLOTS).fill('');
const recentLength = new Uint8Array(RECENT_SLOTS);
const recentBytes = new Uint8Array(RECENT_SLOTS * RECENT_LENGTH);

export const newWriter = (): Writer => new Writer();
export const newReader = (bytes: Uint8Array): Reader => new Reader(bytes);

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

/** The key of a field: number and wire type, as written before its value. */
export function fieldKey(number: number, wireType: number): number {
  return ((number << 3) | wireType) >>> 0;
}

const decodeError = (detail: string): ProtobufCodecError => new ProtobufCodecError('decode', '', detail);
const outOfRange = (): ProtobufCodecError => decodeError('index out of range');

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

/** Writes an exact signed 64-bit value. */
export function writeInt64Exact(w: Writer, value: bigint): void {
  w.int64Exact(value);
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
