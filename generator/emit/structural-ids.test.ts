import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StructuralIds } from './structural-ids.js';

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, 1, -2.5),
    fc.string({ maxLength: 4 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', '1', 'description', '"q"'), tie('value'), { maxKeys: 3 }),
  ),
})).value;
const container = fc.oneof(fc.array(json, { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'description'), json, { maxKeys: 3 }));

describe('StructuralIds', () => {
  it('gives two values one id exactly when their JSON text is the same, and knows its length', () => {
    fc.assert(
      fc.property(container, container, (a, b) => {
        const ids = new StructuralIds();
        const [ia, ib] = [ids.idOf(a), ids.idOf(b)];
        expect(ia === ib).toBe(JSON.stringify(a) === JSON.stringify(b));
        expect(ids.jsonLength(ia)).toBe(JSON.stringify(a).length);
        expect(ids.jsonLength(ib)).toBe(JSON.stringify(b).length);
      }),
    );
  });

  it('leaves skipped keys out at every depth, and undefined values as JSON does', () => {
    const ids = new StructuralIds((key) => key === 'description');
    const a = { type: 'string', items: [{ description: 'one', x: 1 }], gone: undefined };
    const b = { type: 'string', items: [{ description: 'two', x: 1 }] };
    const c = { type: 'string', items: [{ x: 2 }] };
    expect(ids.idOf(a)).toBe(ids.idOf(b));
    expect(ids.idOf(a)).not.toBe(ids.idOf(c));
    expect(ids.idOf([undefined])).toBe(ids.idOf([null]));
  });

  it('tells a string from the same text as a number or a key name', () => {
    const ids = new StructuralIds();
    expect(ids.idOf(['1'])).not.toBe(ids.idOf([1]));
    expect(ids.idOf({ a: 'b' })).not.toBe(ids.idOf({ b: 'a' }));
    expect(ids.idOf(['#0'])).not.toBe(ids.idOf([[]]));
  });
});
