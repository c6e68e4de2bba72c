import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, isPatchError, type PatchError } from './index.js';

/** One record of the json-patch-test-suite package (https://github.com/json-patch/json-patch-tests). */
interface SuiteCase {
  comment?: string;
  doc?: unknown;
  patch?: unknown;
  expected?: unknown;
  error?: string;
  disabled?: boolean;
}

const require = createRequire(import.meta.url);
const suites: Record<string, SuiteCase[]> = {
  'tests.json': require('json-patch-test-suite/tests.json') as SuiteCase[],
  'spec_tests.json': require('json-patch-test-suite/spec_tests.json') as SuiteCase[],
};

/** Why the suite disabled a case, as far as it can be told from the case. */
function skipReason(c: SuiteCase): string {
  if (c.error?.includes("two 'op' members")) return 'a duplicate member cannot survive JSON.parse, so the patch cannot be expressed';
  return 'disabled upstream (behaviour left to implementations); covered by a test of its own below';
}

function thrown(run: () => unknown): PatchError {
  try {
    run();
  } catch (e) {
    if (isPatchError(e)) return e;
    throw e;
  }
  throw new Error('expected a PatchError, nothing was thrown');
}

for (const [file, cases] of Object.entries(suites)) {
  describe(`json-patch-test-suite ${file}`, () => {
    cases.forEach((c, i) => {
      const name = `#${i} ${c.comment ?? JSON.stringify(c.patch)}`;
      if (c.doc === undefined && c.patch === undefined) return; // a comment-only record
      if (c.disabled) {
        it.skip(`${name} (skipped: ${skipReason(c)})`, () => {});
        return;
      }
      it(name, () => {
        const before = structuredClone(c.doc);
        if (c.error !== undefined) {
          const error = thrown(() => applyJsonPatch(c.doc, c.patch));
          expect(error.name).toBe('PatchError');
        } else {
          const result = applyJsonPatch(c.doc, c.patch);
          // Cases without `expected` only check that the patch applies.
          expect(result).toEqual('expected' in c ? c.expected : c.doc);
        }
        expect(c.doc).toEqual(before);
      });
    });
  });
}

describe('applyJsonPatch', () => {
  it('replaces a top-level scalar document (disabled in the suite)', () => {
    expect(applyJsonPatch('foo', [{ op: 'replace', path: '', value: 'bar' }])).toBe('bar');
  });

  it('tests the whole document (disabled in the suite)', () => {
    expect(applyJsonPatch({ foo: 1 }, [{ op: 'test', path: '', value: { foo: 1 } }])).toEqual({ foo: 1 });
  });

  it('is atomic: a failing operation leaves the input untouched and returns nothing', () => {
    const doc = { a: [1, 2], b: { c: 1 } };
    const error = thrown(() =>
      applyJsonPatch(doc, [
        { op: 'add', path: '/a/-', value: 3 },
        { op: 'remove', path: '/b/c' },
        { op: 'remove', path: '/missing' },
      ]),
    );
    expect(doc).toEqual({ a: [1, 2], b: { c: 1 } });
    expect(error).toMatchObject({ reason: 'not-applicable', operationIndex: 2, op: 'remove', path: '/missing' });
    expect(error.message).toBe('json-patch operation 2 (remove /missing): /missing does not exist');
  });

  it('tells a failing test apart from a malformed patch', () => {
    const failed = thrown(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]));
    expect(failed).toMatchObject({ reason: 'test-failed', operationIndex: 0, op: 'test', path: '/a' });
    expect(failed.detail).toBe('value is 1, test expected 2');

    const absent = thrown(() => applyJsonPatch({}, [{ op: 'test', path: '/a', value: 1 }]));
    expect(absent.reason).toBe('test-failed');

    const malformed = thrown(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a' }]));
    expect(malformed).toMatchObject({ reason: 'malformed', operationIndex: 0, detail: 'missing "value" member' });
  });

  it('reports malformed patches before touching the document', () => {
    const cases: [unknown, string][] = [
      [{ op: 'add', path: '/a', value: 1 }, 'a JSON Patch is an array of operations, not an object'],
      [[42], 'an operation is an object, not a number'],
      [[{ path: '/a' }], 'missing "op" member'],
      [[{ op: 'spam', path: '/a' }], 'unknown op "spam"; expected one of add, remove, replace, move, copy, test'],
      [[{ op: 'remove' }], 'missing "path" member (a string)'],
      [[{ op: 'remove', path: 'a' }], 'pointer "a" must be empty or start with "/"'],
      [[{ op: 'remove', path: '/a~2' }], 'pointer "/a~2" has "~" not followed by 0 or 1'],
      [[{ op: 'copy', path: '/b' }], 'missing "from" member (a string)'],
      [[{ op: 'move', from: '/a', path: '/a/b' }], 'cannot move /a into its own child'],
      [[{ op: 'add', path: '/a', value: () => 1 }], 'value: a function is not a JSON value'],
    ];
    for (const [patch, detail] of cases) {
      // A document the operations could never apply to: malformed wins over not-applicable.
      const error = thrown(() => applyJsonPatch(null, patch));
      expect(error.reason, detail).toBe('malformed');
      expect(error.detail).toBe(detail);
    }
  });

  it('unescapes ~1 and ~0 in that order and appends with -', () => {
    const doc = { 'a/b': { '~1': [] as number[] } };
    const result = applyJsonPatch(doc, [{ op: 'add', path: '/a~1b/~01/-', value: 7 }]);
    expect(result).toEqual({ 'a/b': { '~1': [7] } });
    expect(doc['a/b']['~1']).toEqual([]);
  });

  it('refuses - and non-canonical indexes where an existing element is needed', () => {
    for (const path of ['/a/-', '/a/01', '/a/-1', '/a/2']) {
      expect(thrown(() => applyJsonPatch({ a: [1, 2] }, [{ op: 'replace', path, value: 0 }])).reason).toBe('not-applicable');
    }
  });

  it('keeps values it inserts independent of the patch and of each other', () => {
    const value = { x: [1] };
    const result = applyJsonPatch({}, [
      { op: 'add', path: '/a', value },
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'add', path: '/b/x/-', value: 2 },
    ]) as { a: { x: number[] }; b: { x: number[] } };
    expect(result).toEqual({ a: { x: [1] }, b: { x: [1, 2] } });
    expect(value).toEqual({ x: [1] });
  });

  it('moves an array element to a later index', () => {
    expect(applyJsonPatch([1, 2, 3], [{ op: 'move', from: '/0', path: '/2' }])).toEqual([2, 3, 1]);
  });

  it('cannot remove the whole document', () => {
    expect(thrown(() => applyJsonPatch({}, [{ op: 'remove', path: '' }])).detail).toBe('cannot remove the whole document');
  });
});
