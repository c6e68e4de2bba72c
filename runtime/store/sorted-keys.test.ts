import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedKeys } from './sorted-keys.js';

describe('SortedKeys', () => {
  it('holds, ranks and walks what a sorted array holds, through inserts and removes across chunk splits', () => {
    const op = fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 60 }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.integer({ min: 0, max: 61 }), (ops, probe) => {
        const keys = new SortedKeys(4);
        const model: number[] = [];
        const name = (n: number) => `k${String(n).padStart(2, '0')}`;
        for (const [insert, n] of ops) {
          const at = keys.find((k) => k >= name(n));
          const present = keys.at(at) === name(n);
          expect(present).toBe(model.includes(n));
          if (insert && !present) {
            keys.insertAt(at, name(n));
            model.push(n);
            model.sort((a, b) => a - b);
          } else if (!insert && present) {
            keys.removeAt(at);
            model.splice(model.indexOf(n), 1);
          }
        }
        expect(keys.size).toBe(model.length);
        const walked: string[] = [];
        keys.forEachFrom(
          keys.find(() => true),
          (k) => walked.push(k) > 0,
        );
        expect(walked).toEqual(model.map(name));
        const from = keys.find((k) => k >= name(probe));
        expect(keys.rank(from)).toBe(model.filter((n) => n < probe).length);
        const rest: string[] = [];
        keys.forEachFrom(from, (k) => rest.push(k) < 3);
        expect(rest).toEqual(
          model
            .filter((n) => n >= probe)
            .slice(0, 3)
            .map(name),
        );
      }),
      { numRuns: 300 },
    );
  });
});
