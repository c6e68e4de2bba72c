import { ProtobufCodecError, ProtobufEnvelopeError } from './protobuf-errors.js';
import { type Reader, type Writer, newReader, newWriter, skipField } from './protobuf-wire.js';

/** The four bytes every Protobuf response and stored object starts with: `k8s\0`. */
export const PROTOBUF_MAGIC: readonly number[] = [0x6b, 0x38, 0x73, 0x00];

/** `Unknown`: the message after the magic bytes. */
export interface Envelope {
  /** `typeMeta.apiVersion` and `typeMeta.kind` of the object in `raw`. */
  apiVersion: string;
  kind: string;
  /** The complete serialized object. */
  raw: Uint8Array;
  /** Empty: no encoding. */
  contentEncoding: string;
  /** Empty: the Protobuf media type. */
  contentType: string;
}

/** Magic bytes, then Unknown {typeMeta 1 {apiVersion 1, kind 2}, raw 2, contentEncoding 3, contentType 4}. */
export function encodeEnvelope(envelope: Pick<Envelope, 'apiVersion' | 'kind' | 'raw'> & Partial<Envelope>): Uint8Array {
  const w = newWriter();
  writeEnvelope(w, envelope.apiVersion, envelope.kind, (inner) => inner.bytes(envelope.raw), envelope);
  return w.finish();
}

/**
 * Writes an envelope whose raw part `writeRaw` writes in place (no copy of a large object). All
 * four fields are written, as the real system writes them.
 */
export function writeEnvelope(
  w: Writer,
  apiVersion: string,
  kind: string,
  writeRaw: (w: Writer) => void,
  options: Partial<Pick<Envelope, 'contentEncoding' | 'contentType'>> = {},
): void {
  // Each magic byte is below 0x80, so writing it as a varint writes exactly that byte.
  for (const b of PROTOBUF_MAGIC) w.uint32(b);
  w.uint32(10).fork().uint32(10).string(apiVersion).uint32(18).string(kind).ldelim();
  w.uint32(18);
  writeRaw(w);
  w.uint32(26).string(options.contentEncoding ?? '');
  w.uint32(34).string(options.contentType ?? '');
}

/** Reads an envelope; throws ProtobufEnvelopeError when the bytes are not one. */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  checkPrefix(bytes);
  const envelope: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  try {
    const r = newReader(bytes.subarray(PROTOBUF_MAGIC.length));
    while (r.pos < r.len) {
      const key = r.uint32();
      switch (key) {
        case 10:
          readTypeMeta(r, envelope);
          break;
        case 18: {
          // A view into the input (no copy), as a plain Uint8Array rather than protobufjs' Buffer.
          const raw = r.bytes();
          envelope.raw = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
          break;
        }
        case 26:
          envelope.contentEncoding = r.string();
          break;
        case 34:
          envelope.contentType = r.string();
          break;
        default:
          skipField(r, key & 7);
      }
    }
  } catch (error) {
    if (error instanceof ProtobufEnvelopeError) throw error;
    const detail = error instanceof ProtobufCodecError ? error.detail : (error as Error).message;
    throw new ProtobufEnvelopeError('malformed', `the Protobuf envelope (Unknown) is malformed: ${detail}`);
  }
  if (envelope.contentEncoding !== '') {
    throw new ProtobufEnvelopeError(
      'unsupported-encoding',
      `the Protobuf envelope's contentEncoding ${JSON.stringify(envelope.contentEncoding)} is not supported; only unencoded objects are`,
    );
  }
  return envelope;
}

function readTypeMeta(r: Reader, into: Envelope): void {
  const end = r.uint32() + r.pos;
  while (r.pos < end) {
    const key = r.uint32();
    if (key === 10) into.apiVersion = r.string();
    else if (key === 18) into.kind = r.string();
    else skipField(r, key & 7);
  }
}

/** The magic bytes or a clear refusal: JSON sent as Protobuf, a future prefix, anything else. */
function checkPrefix(bytes: Uint8Array): void {
  const expected = PROTOBUF_MAGIC.map(hex).join(' ');
  if (bytes.length >= 4 && PROTOBUF_MAGIC.every((b, i) => bytes[i] === b)) return;
  const seen = [...bytes.subarray(0, 4)].map(hex).join(' ') || 'no bytes';
  if (bytes.length >= 4 && PROTOBUF_MAGIC.slice(0, 3).every((b, i) => bytes[i] === b)) {
    throw new ProtobufEnvelopeError(
      'unknown-prefix',
      `the Protobuf envelope starts with ${seen}, a format this server does not read; expected ${expected}`,
    );
  }
  const hint = bytes[0] === 0x7b || bytes[0] === 0x5b ? ' (the body looks like JSON: send it as application/json)' : '';
  throw new ProtobufEnvelopeError('missing-prefix', `a Protobuf body must start with the magic bytes ${expected}, got ${seen}${hint}`);
}

const hex = (b: number): string => b.toString(16).padStart(2, '0');
