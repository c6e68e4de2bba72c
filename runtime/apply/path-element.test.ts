import { describe, expect, it } from 'vitest';
import { isManagedFieldsError } from './errors.js';
import {
  comparePathElements,
  fieldElement,
  indexElement,
  keyElement,
  parsePathElement,
  pathString,
  serializePathElement,
  valueElement,
} from './path-element.js';

describe('path elements: FieldsV1 keys', () => {
  it('decoding: a key or value text read again gives the same element, written canonically, and bad text still fails', () => {
    const text = 'k:{"protocol":"TCP","containerPort":80}';
    const first = parsePathElement(text);
    expect(parsePathElement(text)).toBe(first);
    expect(serializePathElement(first!)).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(parsePathElement('v:"a"')).toEqual(valueElement('a'));
    for (let i = 0; i < 2; i++) expect(() => parsePathElement('k:{"a":')).toThrow(/invalid JSON/);
  });

  it('encoding/field: a field is f:<name>, the name written raw', () => {
    expect(serializePathElement(fieldElement('spec'))).toBe('f:spec');
    expect(serializePathElement(fieldElement('app.kubernetes.io/name'))).toBe('f:app.kubernetes.io/name');
    expect(serializePathElement(fieldElement('a"b'))).toBe('f:a"b');
  });

  it('encoding/key: a list-map key is k:<json object>, fields sorted by name', () => {
    expect(serializePathElement(keyElement([{ name: 'name', value: 'a' }]))).toBe('k:{"name":"a"}');
    expect(
      serializePathElement(
        keyElement([
          { name: 'protocol', value: 'TCP' },
          { name: 'containerPort', value: 80 },
        ]),
      ),
    ).toBe('k:{"containerPort":80,"protocol":"TCP"}');
  });

  it('encoding/key-escaping: key values are escaped as the real system escapes JSON', () => {
    expect(serializePathElement(keyElement([{ name: 'name', value: '<a&b>' }]))).toBe('k:{"name":"\\u003ca\\u0026b\\u003e"}');
    expect(serializePathElement(keyElement([{ name: 'name', value: 'q"\\' }]))).toBe('k:{"name":"q\\"\\\\"}');
  });

  it('encoding/value: a set value is v:<json>, for every scalar type', () => {
    expect(serializePathElement(valueElement('x'))).toBe('v:"x"');
    expect(serializePathElement(valueElement(42))).toBe('v:42');
    expect(serializePathElement(valueElement(1.5))).toBe('v:1.5');
    expect(serializePathElement(valueElement(true))).toBe('v:true');
    expect(serializePathElement(valueElement(null))).toBe('v:null');
  });

  it('encoding/index: an index is i:<n>', () => {
    expect(serializePathElement(indexElement(3))).toBe('i:3');
  });

  it('decoding/roundtrip: every kind reads back to the same element', () => {
    for (const pe of [
      fieldElement('x'),
      keyElement([
        { name: 'b', value: 1 },
        { name: 'a', value: 'z' },
      ]),
      valueElement('v'),
      valueElement(7),
      indexElement(0),
    ]) {
      expect(parsePathElement(serializePathElement(pe))).toEqual(pe);
    }
  });

  it('decoding/key-sorted: key fields are sorted whatever order they are written in', () => {
    expect(parsePathElement('k:{"protocol":"TCP","containerPort":80}')).toEqual(
      keyElement([
        { name: 'containerPort', value: 80 },
        { name: 'protocol', value: 'TCP' },
      ]),
    );
  });

  it('decoding/unknown-kind-skipped: a well-formed key of an unknown kind reads as nothing', () => {
    expect(parsePathElement('x:whatever')).toBeUndefined();
  });

  it('decoding/malformed: short keys, a missing colon, bad JSON and bad indexes are errors', () => {
    for (const bad of ['f', 'fx', 'k:{nope', 'k:[1]', 'v:', 'i:x', 'i:1.5']) {
      expect(() => parsePathElement(bad), bad).toThrow();
      try {
        parsePathElement(bad);
      } catch (error) {
        expect(isManagedFieldsError(error)).toBe(true);
      }
    }
  });
});

describe('path elements: printed paths and order', () => {
  it('print/forms: fields dotted, keys as [k=v,...], values as [=v], indexes as [n]', () => {
    expect(
      pathString([
        fieldElement('spec'),
        fieldElement('containers'),
        keyElement([{ name: 'name', value: 'web' }]),
        fieldElement('ports'),
        keyElement([
          { name: 'containerPort', value: 80 },
          { name: 'protocol', value: 'TCP' },
        ]),
      ]),
    ).toBe('.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"]');
    expect(pathString([fieldElement('metadata'), fieldElement('finalizers'), valueElement('x')])).toBe('.metadata.finalizers[="x"]');
    expect(pathString([fieldElement('gates'), indexElement(2)])).toBe('.gates[2]');
  });

  it('order/kinds: fields before keys before values before indexes', () => {
    const sorted = [indexElement(0), valueElement('a'), keyElement([{ name: 'n', value: 'a' }]), fieldElement('z')].sort(
      comparePathElements,
    );
    expect(sorted.map(serializePathElement)).toEqual(['f:z', 'k:{"n":"a"}', 'v:"a"', 'i:0']);
  });

  it('order/values: numbers numerically, before strings, booleans and null', () => {
    const values = [null, 'b', true, 10, 'a', 9, false].map((v) => valueElement(v));
    expect(values.sort(comparePathElements).map(serializePathElement)).toEqual([
      'v:9',
      'v:10',
      'v:"a"',
      'v:"b"',
      'v:false',
      'v:true',
      'v:null',
    ]);
  });

  it('order/keys: keys compare field by field, numbers numerically', () => {
    const keys = [443, 80, 8080].map((port) => keyElement([{ name: 'containerPort', value: port }]));
    expect(keys.sort(comparePathElements).map(serializePathElement)).toEqual([
      'k:{"containerPort":80}',
      'k:{"containerPort":443}',
      'k:{"containerPort":8080}',
    ]);
  });
});
