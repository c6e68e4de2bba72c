/**
 * Reads the Protobuf envelope of the spec (section Protobuf envelope): four magic bytes
 * 0x6b 0x38 0x73 0x00, then a message `Unknown` { typeMeta (1) { apiVersion (1), kind (2) },
 * raw (2), contentEncoding (3), contentType (4) }. Only the wire format is read here; the kit does not
 * decode the object inside `raw`.
 */

export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export interface Envelope {
  apiVersion?: string;
  kind?: string;
  raw?: Buffer;
  contentEncoding?: string;
  contentType?: string;
}

export class EnvelopeError extends Error {
  override readonly name = 'EnvelopeError';
}

interface Field {
  number: number;
  wireType: number;
  bytes?: Buffer;
}

function readVarint(buf: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  let pos = at;
  for (;;) {
    if (pos >= buf.length) throw new EnvelopeError(`truncated varint at byte ${at}`);
    const byte = buf[pos++] ?? 0;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, pos];
    shift += 7;
    if (shift > 63) throw new EnvelopeError(`varint too long at byte ${at}`);
  }
}

function readFields(buf: Buffer): Field[] {
  const fields: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [tag, afterTag] = readVarint(buf, pos);
    const number = Math.floor(tag / 8);
    const wireType = tag & 7;
    pos = afterTag;
    if (wireType === 0) {
      pos = readVarint(buf, pos)[1];
      fields.push({ number, wireType });
    } else if (wireType === 2) {
      const [length, start] = readVarint(buf, pos);
      if (start + length > buf.length) throw new EnvelopeError(`field ${number} runs past the end of the message`);
      fields.push({ number, wireType, bytes: buf.subarray(start, start + length) });
      pos = start + length;
    } else if (wireType === 1) {
      pos += 8;
      fields.push({ number, wireType });
    } else if (wireType === 5) {
      pos += 4;
      fields.push({ number, wireType });
    } else {
      throw new EnvelopeError(`unsupported wire type ${wireType} for field ${number}`);
    }
  }
  return fields;
}

export function decodeEnvelope(body: Buffer): Envelope {
  if (body.length < 4 || !body.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    throw new EnvelopeError(`missing the magic prefix 6b 38 73 00 (got ${body.subarray(0, 4).toString('hex') || 'an empty body'})`);
  }
  const out: Envelope = {};
  for (const f of readFields(body.subarray(4))) {
    if (!f.bytes) continue;
    if (f.number === 1) {
      for (const t of readFields(f.bytes)) {
        if (t.number === 1 && t.bytes) out.apiVersion = t.bytes.toString('utf8');
        if (t.number === 2 && t.bytes) out.kind = t.bytes.toString('utf8');
      }
    } else if (f.number === 2) out.raw = f.bytes;
    else if (f.number === 3) out.contentEncoding = f.bytes.toString('utf8');
    else if (f.number === 4) out.contentType = f.bytes.toString('utf8');
  }
  return out;
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  let v = n;
  while (v >= 0x80) {
    bytes.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

/** A varint field (wire type 0): key and value. */
export function varintField(number: number, value: number): Buffer {
  return Buffer.concat([varint(number * 8), varint(value)]);
}

/** A length-delimited field (wire type 2): key, length, bytes. */
export function lengthDelimited(number: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint(number * 8 + 2), varint(bytes.length), bytes]);
}

/** Builds an envelope; the kit's own tests use it to script a server's answer. */
export function encodeEnvelope(e: Envelope): Buffer {
  const typeMeta = Buffer.concat([
    e.apiVersion === undefined ? Buffer.alloc(0) : lengthDelimited(1, Buffer.from(e.apiVersion)),
    e.kind === undefined ? Buffer.alloc(0) : lengthDelimited(2, Buffer.from(e.kind)),
  ]);
  return Buffer.concat([
    PROTOBUF_MAGIC,
    lengthDelimited(1, typeMeta),
    e.raw ? lengthDelimited(2, e.raw) : Buffer.alloc(0),
    e.contentEncoding === undefined ? Buffer.alloc(0) : lengthDelimited(3, Buffer.from(e.contentEncoding)),
    e.contentType === undefined ? Buffer.alloc(0) : lengthDelimited(4, Buffer.from(e.contentType)),
  ]);
}
