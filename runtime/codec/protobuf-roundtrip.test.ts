import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { ProtobufCodecs } from './index.js';
import { canonicalJson } from '../json/index.js';
import { documentArbitrary, expectedAfterProtobuf } from './schema-arbitrary.testing.js';

// Property-based: JSON -> object -> Protobuf -> object -> JSON for every built-in kind, on
// documents generated from the kind's schema descriptor.
const codecs = new ProtobufCodecs(allProtobufPackages);
const kinds = allProtobufPackages.flatMap((p) => p.kinds);
const RUNS = Number(process.env.SVCKIT_PROPERTY_RUNS ?? 20);

describe('Protobuf round trip of every built-in kind', () => {
  it('covers every kind with a Protobuf message', () => {
    expect(kinds.length).toBeGreaterThan(90);
    expect(kinds.map((k) => k.kind)).toEqual(
      expect.arrayContaining(['Pod', 'PodList', 'Status', 'Table', 'Job', 'CronJob', 'HorizontalPodAutoscaler']),
    );
  });

  describe.each(kinds.map((k) => [`${k.apiVersion} ${k.kind}`, k] as const))('%s', (_name, kind) => {
    it('reads back exactly what it wrote (canonical documents)', () => {
      fc.assert(
        fc.property(documentArbitrary(kind, { canonical: true }), (doc) => {
          const json = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
          const back = codecs.decode(codecs.encode(json));
          expect(canonicalJson(back)).toBe(canonicalJson(json));
        }),
        { numRuns: RUNS },
      );
    });

    it('reads back the documented form of any document (empty lists and maps, nulls, nested apiVersion and kind)', () => {
      fc.assert(
        fc.property(documentArbitrary(kind, { canonical: false }), (doc) => {
          const json = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
          const bytes = codecs.encode(json);
          const back = codecs.decode(bytes);
          expect(canonicalJson(back)).toBe(canonicalJson(expectedAfterProtobuf(kind, json)));
          // Writing what was read gives the same bytes: the encoding is deterministic.
          expect(Buffer.from(codecs.encode(back)).equals(Buffer.from(bytes))).toBe(true);
        }),
        { numRuns: RUNS },
      );
    });
  });
});
