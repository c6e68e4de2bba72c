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

  it('refuses lengths and varints that run past the end', () => {
    expect(() => newReader(Uint8Array.of(0x05, 0x61)).string()).toThrow(/runs past the end/);
    expect(() => newReader(Uint8Array.of(0x80, 0x80)).uint32()).toThrow(/index out of range/);
  });
});
