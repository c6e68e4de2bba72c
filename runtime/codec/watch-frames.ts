import { ProtobufEnvelopeError } from './protobuf-errors.js';
import { type Writer, newReader, newWriter, skipField } from './protobuf-wire.js';

/**
 * The Protobuf watch stream, as the real system sends it: frames of a 4-byte big-endian length
 * and that many bytes of `WatchEvent {type 1, object 2 (RawExtension {raw 1})}`, whose raw bytes
 * are the object's envelope (magic bytes and Unknown). The frames themselves carry no magic.
 */
export interface WatchEventFrame {
  type: string;
  /** The envelope of the object. */
  object: Uint8Array;
}

/** One frame (length prefix included) of an event whose object `writeObject` writes in place. */
export function encodeWatchFrame(type: string, writeObject: (w: Writer) => void): Uint8Array {
  const w = newWriter();
  // Four zero bytes (each a one-byte varint) hold the place of the length, set when it is known.
  w.uint32(0).uint32(0).uint32(0).uint32(0);
  w.uint32(10).string(type).uint32(18).fork().uint32(10).fork();
  writeObject(w);
  w.ldelim().ldelim();
  const frame = w.finish();
  new DataView(frame.buffer, frame.byteOffset, frame.byteLength).setUint32(0, frame.length - 4, false);
  return frame;
}

/** The type and object envelope of one frame's payload (without its length prefix). */
export function decodeWatchEvent(payload: Uint8Array): WatchEventFrame {
  const event: WatchEventFrame = { type: '', object: new Uint8Array(0) };
  try {
    const r = newReader(payload);
    while (r.pos < r.len) {
      const key = r.uint32();
      if (key === 10) event.type = r.string();
      else if (key === 18) {
        const end = r.uint32() + r.pos;
        while (r.pos < end) {
          const inner = r.uint32();
          if (inner === 10) event.object = r.bytes();
          else skipField(r, inner & 7);
        }
      } else skipField(r, key & 7);
    }
  } catch (error) {
    throw new ProtobufEnvelopeError('malformed', `a Protobuf watch event is malformed: ${(error as Error).message}`);
  }
  return event;
}

/** Splits a byte stream into frame payloads, however the chunks fall. */
export class WatchFrameReader {
  private pending = new Uint8Array(0);

  /** Adds a chunk; returns every payload that is now complete. */
  push(chunk: Uint8Array): Uint8Array[] {
    const data = this.pending.length === 0 ? chunk : concat(this.pending, chunk);
    const frames: Uint8Array[] = [];
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    let pos = 0;
    while (data.length - pos >= 4) {
      const length = view.getUint32(pos, false);
      if (data.length - pos - 4 < length) break;
      frames.push(data.slice(pos + 4, pos + 4 + length));
      pos += 4 + length;
    }
    this.pending = data.slice(pos);
    return frames;
  }

  /** Bytes of an unfinished frame (non-zero at the end of a stream means it was cut off). */
  get buffered(): number {
    return this.pending.length;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
