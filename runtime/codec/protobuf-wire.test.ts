import fc from 'fast-check';
import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { newReader, newWriter, readInt64 } from './protobuf-wire.js';

/** The calls the property below makes, which our Writer and protobufjs' both take: one sequence for both. */
interface SampleWriter {
  uint32(n: number): SampleWriter;
  int32(n: number): SampleWriter;
  int64(n: number): SampleWriter;
  double(n: number): SampleWriter;
  float(n: number): SampleWriter;
  bool(b: boolean): SampleWriter;
  string(s: string): SampleWriter;
  fork(): SampleWriter;
  ldelim(): SampleWriter;
}

// The codec's own Writer and Reader against protobufjs' (the reference they replaced).
describe('Writer and Reader', () => {
  it('write the bytes protobufjs writes: varints, negative and 64-bit integers, floats, strings, nested lengths', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      fc.string({ minLength: 100, maxLength: 20000 }),
    );
    const int = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(text, int, fc.double({ noNaN: true }), fc.boolean()), { maxLength: 30 }), (values) => {
        const ours = newWriter();
        const theirs = protobuf.Writer.create();
        for (const [s, n, d, b] of values) {
          for (const w of [ours, theirs] as SampleWriter[]) {
            w.uint32(10)
              .fork()
              .string(s)
              .int64(n)
              .fork()
              .int32(n | 0)
              .double(d)
              .float(d)
              .bool(b)
              .ldelim()
              .string(s)
              .ldelim();
          }
        }
        const bytes = ours.finish();
        expect(Buffer.from(bytes).equals(Buffer.from(theirs.finish()))).toBe(true);
        const r = newReader(bytes);
        for (const [s, n, d] of values) {
          expect(r.uint32()).toBe(10);
          r.delimitedEnd();
          expect(r.string()).toBe(s);
          expect(readInt64(r)).toBe(n);
          r.delimitedEnd();
          expect(r.int32()).toBe(n | 0);
          expect(r.double()).toBe(d);
          expect(r.float()).toBe(Math.fround(d));
          r.bool();
          expect(r.string()).toBe(s);
        }
        expect(r.pos).toBe(bytes.length);
      }),
      { numRuns: 50 },
    );
  });

  it('reads short strings it has seen before as the same text, and never an ASCII text for other bytes', () => {
    const w = newWriter();
    w.string('é')
      .bytes(Uint8Array.of(0xe9))
      .string('TCP')
      .string('TCP')
      .bytes(Uint8Array.of(0x54, 0x43, 0x51));
    const r = newReader(w.finish());
    expect([r.string(), r.string(), r.string(), r.string(), r.string()]).toEqual(['é', '\ufffd', 'TCP', 'TCP', 'TCQ']);
  });

  it('reads any bytes as TextDecoder does (non-ASCII, surrogate pairs, invalid UTF-8, a BOM), seen before or not, from a Buffer or a Uint8Array', () => {
    const reference = new TextDecoder('utf-8', { ignoreBOM: true });
    // Few byte values and short lengths: texts repeat and share the bytes the recent-text slot is chosen by.
    const fragment = fc.constantFrom(
      [0x41],
      [0x42],
      [0x7f],
      [0x00],
      [0xc3, 0xa9],
      [0xe2, 0x82, 0xac],
      [0xf0, 0x9f, 0x98, 0x80],
      [0xef, 0xbb, 0xbf],
      [0xed, 0xa0, 0x80],
      [0xc3],
      [0xff],
      [0x80],
      [0xf0, 0x9f],
    );
    const bytes = fc.oneof(
      fc.array(fragment, { maxLength: 12 }).map((parts) => Uint8Array.from(parts.flat())),
      fc.uint8Array({ maxLength: 80 }),
      fc.string({ unit: 'binary', maxLength: 40 }).map((s) => new Uint8Array(Buffer.from(s))),
    );
    fc.assert(
      fc.property(fc.array(bytes, { maxLength: 40 }), fc.boolean(), (values, asBuffer) => {
        const w = newWriter();
        for (const b of values) w.bytes(b);
        const written = w.finish();
        const r = newReader(asBuffer ? written : new Uint8Array(written));
        for (const b of values) expect(r.string()).toBe(reference.decode(b));
        expect(r.pos).toBe(written.length);
      }),
      { numRuns: 300 },
    );
  });

  it('never takes a text seen before for the Latin-1 bytes of its characters (thousands of pairs, so that some share a slot)', () => {
    const reference = new TextDecoder('utf-8', { ignoreBOM: true });
    // Random texts of printable ASCII with at least one character of U+0080-U+00FF (a fixed seed).
    let seed = 1;
    const random = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const texts = Array.from({ length: 20000 }, () => {
      let text = String.fromCharCode(0x80 + random(128));
      for (let n = random(16); n > 0; n--) {
        const c = String.fromCharCode(random(3) === 0 ? 0x80 + random(128) : 0x20 + random(95));
        text = random(2) === 0 ? text + c : c + text;
      }
      return text;
    });
    const w = newWriter();
    for (const text of texts) w.string(text).bytes(Buffer.from(text, 'latin1'));
    const r = newReader(w.finish());
    for (const text of texts) {
      expect(r.string()).toBe(text);
      expect(r.string()).toBe(reference.decode(Buffer.from(text, 'latin1')));
    }
  });

  it('refuses lengths and varints that run past the end', () => {
    expect(() => newReader(Uint8Array.of(0x05, 0x61)).string()).toThrow(/runs past the end/);
    expect(() => newReader(Uint8Array.of(0x80, 0x80)).uint32()).toThrow(/index out of range/);
  });
});
