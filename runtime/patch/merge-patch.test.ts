import { describe, expect, it } from 'vitest';
import { applyMergePatch, isPatchError } from './index.js';

/** RFC 7396 Appendix A, every example in order: original, patch, result. */
const APPENDIX_A: [unknown, unknown, unknown][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

describe('applyMergePatch', () => {
  it.each(APPENDIX_A.map(([original, patch, result], i) => ({ n: i + 1, original, patch, result })))(
    'RFC 7396 Appendix A example $n: $patch',
    ({ original, patch, result }) => {
      const before = structuredClone(original);
      expect(applyMergePatch(original, patch)).toEqual(result);
      expect(original).toEqual(before);
    },
  );

  it('merges an object patch into a non-object document as into {}', () => {
    expect(applyMergePatch(null, { a: { b: null, c: 1 } })).toEqual({ a: { c: 1 } });
  });

  it('keeps nulls inside replaced arrays', () => {
    expect(applyMergePatch({ a: 1 }, { l: [null, { x: null }] })).toEqual({ a: 1, l: [null, { x: null }] });
  });

  it('does not share structure with the patch', () => {
    const patch = { a: { b: [1] } };
    const result = applyMergePatch({}, patch) as { a: { b: number[] } };
    result.a.b.push(2);
    expect(patch).toEqual({ a: { b: [1] } });
  });

  it('refuses values that are not JSON, saying where', () => {
    try {
      applyMergePatch({}, { a: { when: new Date(0) } });
      expect.unreachable();
    } catch (e) {
      expect(isPatchError(e) && e.reason).toBe('malformed');
      expect(String(e)).toBe('PatchError: merge-patch at /a/when: the patch is not JSON: not a plain JSON object');
    }
  });
});
