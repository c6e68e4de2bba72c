import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { servedTextOf } from './stored-text.js';

/** What the decoder serves: the parsed stored object with its resourceVersion set, printed. */
function decoded(stored: string, modRevision: number): string {
  const obj = JSON.parse(stored);
  obj.metadata = { resourceVersion: String(modRevision), ...obj.metadata };
  return JSON.stringify(obj);
}

const json = fc.jsonValue({ maxDepth: 3 });
const text = fc.oneof(fc.string(), fc.constantFrom('}', '{', '"', '\\', '"metadata":{', '\\"resourceVersion\\"', ']'));
const storedObject = fc.record(
  {
    apiVersion: fc.constant('v1'),
    kind: fc.oneof(fc.constant('ConfigMap'), text),
    // ObjectMeta's field names: never an array index, which JavaScript orders before the rest.
    metadata: fc.dictionary(
      fc.oneof(fc.constantFrom('name', 'labels', 'managedFields', 'annotations'), text).filter((k) => !/^\d+$/.test(k)),
      fc.oneof(text, json),
    ),
    data: fc.dictionary(text, fc.oneof(text, json)),
  },
  { requiredKeys: ['apiVersion', 'metadata'] },
);

describe('servedTextOf', () => {
  it('gives the text of the decoded object for any stored object in the stored layout', () => {
    fc.assert(
      fc.property(storedObject, fc.nat(), (obj, rv) => {
        const stored = JSON.stringify(obj);
        if (stored.includes('"resourceVersion"')) return; // covered below
        expect(servedTextOf(stored, rv, 'v1')).toBe(decoded(stored, rv));
      }),
    );
  });

  it('leaves to the decoder what it cannot serve as text', () => {
    const stored = (o: unknown) => JSON.stringify(o);
    // Another version: conversion needs the object.
    expect(servedTextOf(stored({ apiVersion: 'v1beta1', kind: 'X', metadata: { name: 'a' } }), 1, 'v1')).toBeUndefined();
    // Metadata not first after the type meta, or absent.
    expect(servedTextOf(stored({ apiVersion: 'v1', data: {}, metadata: { name: 'a' } }), 1, 'v1')).toBeUndefined();
    expect(servedTextOf(stored({ apiVersion: 'v1', kind: 'X' }), 1, 'v1')).toBeUndefined();
    // A resourceVersion already in the stored metadata would be printed twice; one elsewhere is
    // not told from it without reading the whole text.
    expect(servedTextOf(stored({ apiVersion: 'v1', metadata: { resourceVersion: '3' } }), 1, 'v1')).toBeUndefined();
    expect(servedTextOf(stored({ apiVersion: 'v1', metadata: {}, spec: { ref: { resourceVersion: '3' } } }), 1, 'v1')).toBeUndefined();
    // Not an object, or cut short before its metadata.
    expect(servedTextOf('[]', 1, 'v1')).toBeUndefined();
    expect(servedTextOf('{"apiVersion":"v1","kind":"X', 1, 'v1')).toBeUndefined();
  });

  it('puts the resourceVersion first in metadata, empty metadata included', () => {
    expect(servedTextOf('{"apiVersion":"v1","kind":"ConfigMap","metadata":{},"data":{"a":"}"}}', 7, 'v1')).toBe(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"resourceVersion":"7"},"data":{"a":"}"}}',
    );
    expect(servedTextOf('{"apiVersion":"v1","metadata":{"name":"a\\"}","labels":{"x":"]"}}}', 12, 'v1')).toBe(
      '{"apiVersion":"v1","metadata":{"resourceVersion":"12","name":"a\\"}","labels":{"x":"]"}}}',
    );
  });

  it('reads a kind that ends in escaped backslashes or quotes to its real end', () => {
    for (const kind of ['a\\', 'a\\\\', 'b\\"', '\\"metadata\\":{']) {
      const stored = JSON.stringify({ apiVersion: 'v1', kind, metadata: { name: 'x' } });
      expect(servedTextOf(stored, 3, 'v1')).toBe(decoded(stored, 3));
    }
  });
});
