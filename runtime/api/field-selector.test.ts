import { describe, expect, it } from 'vitest';
import {
  FieldSelector,
  type SelectorParseError,
  assertFieldsSupported,
  escapeFieldSelectorValue,
  fieldSelectorFromSet,
  selectableFieldsOf,
  isSelectorParseError,
  parseFieldSelector,
  unescapeFieldSelectorValue,
} from './index.js';

function parseError(selector: string): SelectorParseError {
  try {
    parseFieldSelector(selector);
  } catch (e) {
    if (isSelectorParseError(e)) return e;
    throw e;
  }
  throw new Error(`${JSON.stringify(selector)} parsed`);
}

// Cases from the real system's fields/selector_test.go.
describe('parseFieldSelector', () => {
  it.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=a||y\\=b', 'x=a\\=\\=b'])('accepts %j and prints it back', (selector) => {
    expect(parseFieldSelector(selector).toString()).toBe(selector);
  });

  it.each(['x=a||y=b', 'x==a==b', 'x=a,b', 'x in (a)', 'x in (a,b,c)', 'x', 'x=\\', 'x=\\a', 'x=a=b'])('rejects %j', (selector) => {
    expect(parseError(selector).name).toBe('SelectorParseError');
  });

  it('parses deterministically regardless of term order', () => {
    expect(parseFieldSelector('x=a,a=x').toString()).toBe(parseFieldSelector('a=x,x=a').toString());
    expect(parseFieldSelector('x=a,a=x').toString()).toBe('a=x,x=a');
  });

  it.each([
    ['a=avalue', [{ field: 'a', operator: '=', value: 'avalue' }]],
    [
      'a=avalue,b==bvalue,c!=cvalue',
      [
        { field: 'a', operator: '=', value: 'avalue' },
        { field: 'b', operator: '==', value: 'bvalue' },
        { field: 'c', operator: '!=', value: 'cvalue' },
      ],
    ],
    ['a=a,', [{ field: 'a', operator: '=', value: 'a' }]],
    [',a=a', [{ field: 'a', operator: '=', value: 'a' }]],
    [
      'k=\\,,k2=v2',
      [
        { field: 'k2', operator: '=', value: 'v2' },
        { field: 'k', operator: '=', value: ',' },
      ],
    ],
    [
      'k=\\\\,k2=v2',
      [
        { field: 'k2', operator: '=', value: 'v2' },
        { field: 'k', operator: '=', value: '\\' },
      ],
    ],
    [
      'k=\\\\\\,,k2=v2',
      [
        { field: 'k2', operator: '=', value: 'v2' },
        { field: 'k', operator: '=', value: '\\,' },
      ],
    ],
    [
      '함=수,목=록',
      [
        { field: '목', operator: '=', value: '록' },
        { field: '함', operator: '=', value: '수' },
      ],
    ],
    ['metadata.name=', [{ field: 'metadata.name', operator: '=', value: '' }]],
    ['spec.nodeName!=', [{ field: 'spec.nodeName', operator: '!=', value: '' }]],
    ['a!b=c', [{ field: 'a!b', operator: '=', value: 'c' }]],
  ])('%j (terms sorted by their text)', (selector, requirements) => {
    expect(parseFieldSelector(selector).requirements()).toEqual(requirements);
  });

  it('points at the problem and says what is accepted', () => {
    const noOperator = parseError('metadata.name=web,oops');
    expect(noOperator.position).toBe(18);
    expect(noOperator.detail).toBe("can't understand 'oops'; expected <field>=<value>, <field>==<value> or <field>!=<value>");
    const unescaped = parseError('a=x,b=c=d');
    expect(unescaped.position).toBe(7);
    expect(unescaped.detail).toBe(`unescaped '=' in value "c=d"; write it as \\=`);
    const badEscape = parseError('a=x\\y');
    expect(badEscape.position).toBe(3);
    expect(badEscape.message).toBe(
      'invalid field selector "a=x\\\\y" at position 3: invalid escape sequence "\\\\y" in value; only \\\\, \\, and \\= are escapes',
    );
    expect(parseError('a=x\\').detail).toMatch(/^invalid escape sequence "\\\\"/);
  });
});

describe('escaping', () => {
  it.each([
    ['', ''],
    ['a', 'a'],
    ['=', '\\='],
    [',', '\\,'],
    ['\\', '\\\\'],
    ['\\=\\,\\', '\\\\\\=\\\\\\,\\\\'],
  ])('%j <-> %j', (plain, escaped) => {
    expect(escapeFieldSelectorValue(plain)).toBe(escaped);
    expect(unescapeFieldSelectorValue(escaped)).toBe(plain);
  });

  it.each(['\\', '\\\\\\', '\\a'])('rejects the escape in %j', (value) => {
    expect(() => unescapeFieldSelectorValue(value)).toThrow(/invalid escape sequence/);
  });
});

describe('FieldSelector.matches', () => {
  const fields = { foo: 'bar', baz: 'blah', complex: '=value\\,\\' };
  it.each<[string, Record<string, string>, boolean]>([
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['foo=bar', fields, true],
    ['baz=blah', fields, true],
    ['foo=bar,baz=blah', fields, true],
    ['foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\', fields, true],
    ['foo=blah', fields, false],
    ['baz=bar', fields, false],
    ['foo=bar,foobar=bar,baz=blah', fields, false],
    ['missing=', {}, true],
    ['missing!=', {}, false],
    ['missing!=x', {}, true],
  ])('%j against %j is %s', (selector, set, expected) => {
    expect(parseFieldSelector(selector).matches(set)).toBe(expected);
  });

  it('matches sets directly', () => {
    const labelset = { foo: 'bar', baz: 'blah' };
    expect(fieldSelectorFromSet({}).matches(labelset)).toBe(true);
    expect(fieldSelectorFromSet({ foo: 'bar', baz: 'blah' }).matches(labelset)).toBe(true);
    expect(fieldSelectorFromSet({ foo: '=blah' }).matches(labelset)).toBe(false);
    expect(fieldSelectorFromSet({ foo: '=bar', foobar: 'bar', baz: 'blah' }).matches(labelset)).toBe(false);
    expect(fieldSelectorFromSet({ v: 'a,b=c' }).toString()).toBe('v=a\\,b\\=c');
  });

  it('knows when a field is pinned', () => {
    const s = parseFieldSelector('a=1,b!=2,c==3');
    expect([s.requiresExactMatch('a'), s.requiresExactMatch('b'), s.requiresExactMatch('c'), s.requiresExactMatch('d')]).toEqual([
      '1',
      undefined,
      '3',
      undefined,
    ]);
    expect(FieldSelector.everything().isEmpty()).toBe(true);
    expect(s.fieldNames()).toEqual(['a', 'b', 'c']);
  });
});

describe('selectableFieldsOf', () => {
  const pod = {
    metadata: { name: 'web', namespace: 'prod' },
    spec: { nodeName: 'node-1', hostNetwork: false, containers: [{ name: 'c' }] },
    status: { phase: 'Running' },
  };

  it('always has the name and namespace', () => {
    expect(selectableFieldsOf(pod)).toEqual({ 'metadata.name': 'web', 'metadata.namespace': 'prod' });
    expect(selectableFieldsOf({ metadata: { name: 'node-1' } })).toEqual({ 'metadata.name': 'node-1', 'metadata.namespace': '' });
    expect(selectableFieldsOf(null)).toEqual({ 'metadata.name': '', 'metadata.namespace': '' });
  });

  it('adds kind-specific fields, scalars as text', () => {
    const fields = selectableFieldsOf(pod, ['spec.nodeName', 'status.phase', 'spec.hostNetwork', 'spec.containers', 'status.podIP']);
    expect(fields).toMatchObject({
      'spec.nodeName': 'node-1',
      'status.phase': 'Running',
      'spec.hostNetwork': 'false',
      'spec.containers': '',
      'status.podIP': '',
    });
    expect(parseFieldSelector('spec.nodeName=node-1,status.phase!=Failed,metadata.namespace=prod').matches(fields)).toBe(true);
  });

  it('rejects fields the resource does not support', () => {
    const s = parseFieldSelector('metadata.name=a,spec.foo=b');
    expect(() => assertFieldsSupported(s, ['metadata.name', 'metadata.namespace'])).toThrow(
      'invalid field selector "metadata.name=a,spec.foo=b": field label not supported: spec.foo (supported: metadata.name, metadata.namespace)',
    );
    expect(() => assertFieldsSupported(s, ['metadata.name', 'spec.foo'])).not.toThrow();
  });
});
