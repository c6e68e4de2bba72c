import { describe, expect, it } from 'vitest';
import { applyJsonPatch, jsonPatchDiff } from './index.js';

const cases: Array<[string, unknown, unknown]> = [
  ['equal', { a: 1 }, { a: 1 }],
  ['added key', { a: 1 }, { a: 1, b: { c: [1] } }],
  ['removed key', { a: 1, b: 2 }, { a: 1 }],
  ['replaced scalar', { a: 1 }, { a: '1' }],
  ['nested', { m: { labels: { x: 'a' } } }, { m: { labels: { x: 'b', y: 'c' } } }],
  ['list grows', { l: [1, 2] }, { l: [1, 3, 4, 5] }],
  ['list shrinks', { l: [1, 2, 3, 4] }, { l: [9] }],
  ['keys needing escapes', { 'a/b': 1, 'c~d': 2 }, { 'a/b': 2, 'e~/f': 3 }],
  ['type change', { a: [1] }, { a: { b: 1 } }],
  ['null', { a: null }, { a: 0 }],
];

describe('jsonPatchDiff', () => {
  it.each(cases)('%s: applying the diff to the source gives the target', (_name, from, to) => {
    expect(applyJsonPatch(from, jsonPatchDiff(from, to))).toEqual(to);
  });

  it('is empty for equal documents and minimal for one change', () => {
    expect(jsonPatchDiff({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([]);
    expect(jsonPatchDiff({ a: { b: 1, c: 2 } }, { a: { b: 1, c: 3 } })).toEqual([{ op: 'replace', path: '/a/c', value: 3 }]);
  });
});
