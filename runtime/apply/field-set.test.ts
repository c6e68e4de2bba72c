import { describe, expect, it } from 'vitest';
import { FieldSet } from './field-set.js';
import { fieldElement, keyElement, type PathElement, pathString } from './path-element.js';

/** A path from a dotted string; `[x]` is a key on `name`. */
function p(text: string): PathElement[] {
  return text
    .split('.')
    .filter((s) => s !== '')
    .map((s) => (s.startsWith('[') ? keyElement([{ name: 'name', value: s.slice(1, -1) }]) : fieldElement(s)));
}
const set = (...paths: string[]) => FieldSet.of(...paths.map(p));
const show = (s: FieldSet) => s.paths().map(pathString);

describe('field sets', () => {
  it('set/insert-has: inserted paths are members; their prefixes are not', () => {
    const s = set('a.b.c', 'a.d');
    expect(s.has(p('a.b.c'))).toBe(true);
    expect(s.has(p('a.b'))).toBe(false);
    expect(s.has(p('a'))).toBe(false);
    expect(s.size()).toBe(2);
  });

  it('set/item-and-fields: a path can be a member and have children (the "." of FieldsV1)', () => {
    const s = set('c.[web]', 'c.[web].image');
    expect(show(s)).toEqual(['.c[name="web"]', '.c[name="web"].image']);
  });

  it('set/empty-path-ignored: the whole object is never tracked', () => {
    expect(FieldSet.of([]).isEmpty()).toBe(true);
  });

  it('set/union', () => {
    expect(show(set('a', 'b.c').union(set('b.d', 'a')))).toEqual(['.a', '.b.c', '.b.d']);
  });

  it('set/intersection', () => {
    expect(show(set('a', 'b.c', 'b.d').intersection(set('b.c', 'e')))).toEqual(['.b.c']);
  });

  it('set/difference: a parent does not remove its children', () => {
    expect(show(set('a', 'a.b', 'c').difference(set('a')))).toEqual(['.a.b', '.c']);
  });

  it('set/recursive-difference: a parent removes its children too', () => {
    expect(show(set('a', 'a.b', 'c').recursiveDifference(set('a')))).toEqual(['.c']);
  });

  it('set/leaves: only paths with nothing below them', () => {
    expect(show(set('a', 'a.b', 'c').leaves())).toEqual(['.a.b', '.c']);
  });

  it('set/equals: same paths whatever the insertion order; empty children do not count', () => {
    const x = set('a.b', 'c');
    const y = set('c', 'a.b');
    y.descend(fieldElement('z'));
    expect(x.equals(y)).toBe(true);
    expect(x.equals(set('c'))).toBe(false);
  });

  it('set/operations-copy: results share no nodes with their inputs', () => {
    const x = set('a.b');
    const u = x.union(set('c'));
    u.insert(p('a.z'));
    expect(show(x)).toEqual(['.a.b']);
  });

  it('set/order: paths come out in the real system order', () => {
    expect(show(set('b', 'a.[y]', 'a.[x]'))).toEqual(['.a[name="x"]', '.a[name="y"]', '.b']);
  });

  it('set/frozen-shared: results of operations on a frozen set can grow anywhere, and the frozen set stays as it was', () => {
    const frozen = set('a.b.c', 'd.e').freeze();
    const union = frozen.union(set('x'));
    union.insert(p('a.b.z'));
    union.insert(p('d.e.f'));
    const difference = frozen.difference(set('d.e'));
    difference.insert(p('a.b.y'));
    const copy = frozen.copy();
    copy.descend(fieldElement('a')).insert(p('w'));
    expect(show(union)).toEqual(['.a.b.c', '.a.b.z', '.d.e', '.d.e.f', '.x']);
    expect(show(difference)).toEqual(['.a.b.c', '.a.b.y']);
    expect(show(copy)).toEqual(['.a.b.c', '.a.w', '.d.e']);
    expect(show(frozen)).toEqual(['.a.b.c', '.d.e']);
    expect(() => frozen.insert(p('q'))).toThrow(/frozen/);
  });

  it('fieldset/subset: a set is a subset of another exactly when their difference is empty', () => {
    const sets = [set(), set('a'), set('a.b'), set('a', 'a.b'), set('a.b', 'c'), set('a.[x].y'), set('a.[x]', 'a.[x].y')];
    for (const x of sets) {
      for (const y of sets) expect(x.isSubsetOf(y), `${show(x)} <= ${show(y)}`).toBe(x.difference(y).isEmpty());
    }
    expect(set('a.b').isSubsetOf(set('a'))).toBe(false);
  });
});
