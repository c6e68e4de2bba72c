import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findDuplicateKeys } from './index.js';

/** A JSON value whose objects are lists of members, so that a key may repeat. */
type Tree = null | number | string | Tree[] | { members: [string, Tree][] };

const tree = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.integer(),
    // Quotes, backslashes, braces and escapes inside strings must not end or open anything.
    fc.constantFrom('', 'a', '"', '\\', '\\"', '}{', '[,:]', 'é', '\u0000'),
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.record({ members: fc.array(fc.tuple(fc.constantFrom('a', 'b', '"', 'a.b', '\\', 'k'), tie('tree')), { maxLength: 5 }) }),
  ),
})).tree;

function textOf(t: Tree, space: string): string {
  if (Array.isArray(t)) return `[${t.map((v) => textOf(v, space)).join(`,${space}`)}]`;
  if (t !== null && typeof t === 'object')
    return `{${t.members.map(([k, v]) => `${JSON.stringify(k)}${space}:${textOf(v, space)}`).join(',')}}`;
  return JSON.stringify(t);
}

/** The duplicates named from the tree itself: each member whose key an earlier member of its object has. */
function duplicatesOf(t: Tree, path: string, out: string[] = []): string[] {
  if (Array.isArray(t)) t.forEach((v, i) => duplicatesOf(v, `${path}[${i}]`, out));
  else if (t !== null && typeof t === 'object') {
    const seen = new Set<string>();
    for (const [k, v] of t.members) {
      const child = path === '' ? k : `${path}.${k}`;
      if (seen.has(k)) out.push(child);
      seen.add(k);
      duplicatesOf(v, child, out);
    }
  }
  return out;
}

describe('findDuplicateKeys', () => {
  it('finds none in ordinary JSON', () => {
    expect(findDuplicateKeys('{"a":1,"b":[{"a":2},{"a":3}],"c":{"d":"}{,:\\"["}}')).toEqual([]);
    expect(findDuplicateKeys('[]')).toEqual([]);
    expect(findDuplicateKeys(' "x" ')).toEqual([]);
  });

  it('names each duplicate with its path', () => {
    const text = '{"metadata":{"name":"a","name":"b"},"spec":{"containers":[{"name":"x","image":"i","image":"j"}]},"spec":{}}';
    expect(findDuplicateKeys(text)).toEqual(['metadata.name', 'spec.containers[0].image', 'spec']);
  });

  it('compares decoded keys, so escapes do not hide a duplicate', () => {
    expect(findDuplicateKeys('{"a":1,"\\u0061":2}')).toEqual(['a']);
  });

  it('names exactly the members whose key came earlier in the same object, in text order, with or without spaces', () => {
    fc.assert(
      fc.property(tree, fc.constantFrom('', ' ', '\n\t'), (t, space) => {
        expect(findDuplicateKeys(textOf(t, space))).toEqual(duplicatesOf(t, ''));
      }),
      { numRuns: 500 },
    );
  });

  it('finds a duplicate among many keys of one object', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`);
    expect(findDuplicateKeys(`{${keys.join(',')},"k3":0,"k39":0}`)).toEqual(['k3', 'k39']);
  });

  it('handles whitespace everywhere', () => {
    expect(findDuplicateKeys('{ "a" : [ 1 , { "b" : true , "b" : null } ] , "c" : -1.5e3 }')).toEqual(['a[1].b']);
  });
});
