import { describe, expect, it } from 'vitest';
import {
  LabelSelector,
  type LabelRequirement,
  SelectorParseError,
  isSelectorParseError,
  labelSelectorFromObject,
  labelSelectorFromSet,
  parseLabelSelector,
} from './index.js';

function parseError(selector: string): SelectorParseError {
  try {
    parseLabelSelector(selector);
  } catch (e) {
    if (isSelectorParseError(e)) return e;
    throw e;
  }
  throw new Error(`${JSON.stringify(selector)} parsed`);
}

const req = (key: string, operator: LabelRequirement['operator'], values: string[] = []): LabelRequirement => ({ key, operator, values });

// Cases from the real system's labels/selector_test.go.
describe('parseLabelSelector', () => {
  it.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5'])(
    'accepts %j and prints it back',
    (selector) => {
      expect(parseLabelSelector(selector).toString()).toBe(selector.replaceAll(' ', ''));
    },
  );

  it.each([
    'x=a||y=b',
    'x==a==b',
    '!x=a',
    'x<a',
    'x,,y',
    ',x,y',
    'x nott in (y)',
    'a in (xyz),',
    'a in (xyz)b notin ()',
    'a in (xyz abc)',
    'a notin(',
    'a (',
    '(',
    'x=a,',
    'a in',
    'a=(b)',
    'x notin (abc,,def',
    'z>-5',
  ])('rejects %j', (selector) => {
    const e = parseError(selector);
    expect(e.name).toBe('SelectorParseError');
    expect(e.selector).toBe(selector);
    expect(e.position).toBeGreaterThanOrEqual(0);
    expect(e.position).toBeLessThanOrEqual(selector.length);
  });

  it('parses deterministically regardless of term order', () => {
    expect(parseLabelSelector('x=a,a=x').toString()).toBe(parseLabelSelector('a=x,x=a').toString());
  });

  it.each<[string, LabelRequirement[]]>([
    ['', []],
    ['\rx', [req('x', 'exists')]],
    ['this-is-a-dns.domain.com/key-with-dash', [req('this-is-a-dns.domain.com/key-with-dash', 'exists')]],
    [
      'this-is-another-dns.domain.com/key-with-dash in (so,what)',
      [req('this-is-another-dns.domain.com/key-with-dash', 'in', ['so', 'what'])],
    ],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', [req('0.1.2.domain/99', 'notin', ['10.10.100.1', 'tick.tack.clock'])]],
    ['foo  in\t (abc)', [req('foo', 'in', ['abc'])]],
    ['x notin\n (abc)', [req('x', 'notin', ['abc'])]],
    ['x  notin\t\t\t(abc,def)', [req('x', 'notin', ['abc', 'def'])]],
    ['x in (abc,def)', [req('x', 'in', ['abc', 'def'])]],
    ['x in (abc,)', [req('x', 'in', ['', 'abc'])]],
    ['x in ()', [req('x', 'in', [''])]],
    [
      'x notin (abc,,def),bar,z in (),w',
      [req('bar', 'exists'), req('w', 'exists'), req('x', 'notin', ['', 'abc', 'def']), req('z', 'in', [''])],
    ],
    ['x,y in (a)', [req('x', 'exists'), req('y', 'in', ['a'])]],
    ['x,y', [req('x', 'exists'), req('y', 'exists')]],
    ['x=a', [req('x', '=', ['a'])]],
    ['x==a', [req('x', '==', ['a'])]],
    ['x>1', [req('x', 'gt', ['1'])]],
    ['x<7', [req('x', 'lt', ['7'])]],
    ['x=a,y!=b', [req('x', '=', ['a']), req('y', '!=', ['b'])]],
    ['x=a,y!=b,z in (h,i,j)', [req('x', '=', ['a']), req('y', '!=', ['b']), req('z', 'in', ['h', 'i', 'j'])]],
    ['x notin ( )', [req('x', 'notin', [''])]],
    ['x notin (, a)', [req('x', 'notin', ['', 'a'])]],
    ['a ', [req('a', 'exists')]],
    ['a in (x,y,notin, z,in)', [req('a', 'in', ['in', 'notin', 'x', 'y', 'z'])]],
    ['notin=in', [req('notin', '=', ['in'])]],
    ['in', [req('in', 'exists')]],
    ['x notin (abc,def)', [req('x', 'notin', ['abc', 'def'])]],
    ['!x, y', [req('x', '!'), req('y', 'exists')]],
    ['x in (b,a,b)', [req('x', 'in', ['a', 'b'])]],
  ])('%j', (selector, requirements) => {
    expect(parseLabelSelector(selector).requirements()).toEqual(requirements);
  });

  it('points at the problem', () => {
    expect(parseError('x=a,,y').position).toBe(4);
    expect(parseError('x=a,,y').detail).toBe("found ',', expected: identifier after ','");
    expect(parseError('a in (xyz abc)').detail).toBe("found 'abc', expected: ',' or ')'");
    expect(parseError('a in (xyz abc)').position).toBe(10);
    expect(parseError('!x=a').detail).toBe("found '=', expected: ',' or 'end of string'");
    expect(parseError('x nott in (y)').detail).toBe("found 'nott', expected: in, notin, =, ==, !=, gt, lt");
    expect(parseError('(').detail).toBe("found '(', expected: !, identifier, or 'end of string'");
    expect(parseError('a notin(').detail).toBe("found '', expected: ',', ')' or identifier");
  });

  it('validates keys and values with the real messages', () => {
    const badKey = parseError('a_ in (x)');
    expect(badKey.detail).toMatch(
      /^unable to parse requirement: key: Invalid value: "a_": name part must consist of alphanumeric characters/,
    );
    expect(badKey.position).toBe(0);
    expect(parseError('x=a||y').detail).toMatch(
      /^unable to parse requirement: values\[0\]\[x\]: Invalid value: "a\|\|y": a valid label must be/,
    );
    expect(parseError('x<a').detail).toBe(
      `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
    );
    expect(parseError('x<a').message).toBe(
      `invalid label selector "x<a" at position 0: unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
    );
    expect(parseError(`${'a'.repeat(64)}=b`).detail).toMatch(/name part must be no more than 63 characters/);
  });
});

describe('LabelSelector.matches', () => {
  it.each<[string, Record<string, string>, boolean]>([
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['foo=bar', { foo: 'bar', baz: 'blah' }, true],
    ['foo=bar,baz=blah', { foo: 'bar', baz: 'blah' }, true],
    ['foo=blah', { foo: 'bar', baz: 'blah' }, false],
    ['foo=bar,foobar=bar,baz=blah', { foo: 'bar', baz: 'blah' }, false],
    ['x in (foo),y notin (alpha)', { x: 'foo', y: 'baz' }, true],
    ['x in (foo),y in (alpha)', { x: 'foo', y: 'baz' }, false],
    ['x notin (),y', { y: '' }, true],
    ['!x,y', { y: '' }, true],
    ['x notin (),!y', { y: '' }, false],
    ['x in ()', { y: 'baz' }, false],
    ['x in ()', { x: '' }, true],
    ['z>1', { z: '2' }, true],
    ['z>1', { z: 'v2' }, false],
    ['z<9223372036854775807', { z: '9223372036854775806' }, true],
    ['x notin (a)', {}, true],
  ])('%j against %j is %s', (selector, labels, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
    expect(parseLabelSelector(selector).matches(new Map(Object.entries(labels)))).toBe(expected);
  });

  it('treats absent labels as none', () => {
    expect(parseLabelSelector('!x').matches(undefined)).toBe(true);
    expect(parseLabelSelector('x').matches(undefined)).toBe(false);
  });

  it('does not read inherited properties as labels', () => {
    expect(parseLabelSelector('constructor').matches({})).toBe(false);
  });

  it('tells which value a key is pinned to', () => {
    const s = parseLabelSelector('a=1,b in (2),c in (3,4),d!=5,e==6');
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => s.requiresExactMatch(k))).toEqual(['1', '2', undefined, undefined, '6', undefined]);
  });
});

describe('structured selectors', () => {
  it('converts matchLabels and matchExpressions', () => {
    const s = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['front', 'edge'] },
        { key: 'env', operator: 'NotIn', values: ['dev'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    expect(s.toString()).toBe('app=web,env notin (dev),!legacy,owner,tier in (edge,front)');
    expect(s.matches({ app: 'web', tier: 'front', owner: 'me' })).toBe(true);
    expect(s.matches({ app: 'web', tier: 'front', owner: 'me', legacy: 'y' })).toBe(false);
    expect(s.matches({ app: 'web', tier: 'back', owner: 'me' })).toBe(false);
    expect(parseLabelSelector(s.toString()).toString()).toBe(s.toString());
  });

  it('matches everything when empty and nothing when null', () => {
    expect(labelSelectorFromObject({}).matches({ a: 'b' })).toBe(true);
    expect(labelSelectorFromObject({}).isEmpty()).toBe(true);
    expect(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }).matches(undefined)).toBe(true);
    expect(labelSelectorFromObject(null).matches({ a: 'b' })).toBe(false);
    expect(labelSelectorFromObject(undefined).matches({})).toBe(false);
    expect(labelSelectorFromObject(null).isEmpty()).toBe(false);
    expect(LabelSelector.everything().matches({})).toBe(true);
    expect(LabelSelector.nothing().matches({})).toBe(false);
  });

  it('rejects bad operators and values with field errors', () => {
    expect(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).toThrow(
      /"Gt" is not a valid label selector operator \(valid: In, NotIn, Exists, DoesNotExist\)/,
    );
    expect(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).toThrow(
      /values: Invalid value: \[\]string\{\}: for 'in', 'notin' operators, values set can't be empty/,
    );
    expect(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })).toThrow(
      /values set must be empty for exists and does not exist/,
    );
    expect(() => labelSelectorFromObject({ matchLabels: { a: 'bad value' } })).toThrow(SelectorParseError);
    try {
      labelSelectorFromObject({ matchLabels: { 'a b': 'x' } });
    } catch (e) {
      expect(isSelectorParseError(e) && e.position).toBeUndefined();
    }
  });

  it('builds from a label set', () => {
    const s = labelSelectorFromSet({ b: '2', a: '1' });
    expect(s.toString()).toBe('a=1,b=2');
    expect(s.matches({ a: '1', b: '2', c: '3' })).toBe(true);
    expect(labelSelectorFromSet({}).isEmpty()).toBe(true);
  });

  it('validates requirements given directly', () => {
    expect(() => LabelSelector.of([{ key: 'a', operator: '=', values: ['x', 'y'] }])).toThrow(
      /exact-match compatibility requires one single value/,
    );
    expect(LabelSelector.of([{ key: 'b', operator: 'in', values: ['y', 'x'] }]).toString()).toBe('b in (x,y)');
  });
});
