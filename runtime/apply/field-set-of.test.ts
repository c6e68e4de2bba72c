import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/index.js';
import { isTypedValueError } from './errors.js';
import { fieldSetOf } from './field-set-of.js';
import { pathString } from './path-element.js';
import { PodSchema, WidgetSchema } from './pod-schema.testing.js';

const paths = (value: JsonObject, options = {}, schema = PodSchema) => fieldSetOf(value, schema, options).paths().map(pathString);

describe('fieldSetOf', () => {
  it('fieldSetOf/scalars-and-structs: scalars are leaves, granular structs only hold their fields', () => {
    expect(paths({ spec: { replicas: 1, strategy: { type: 'R' } } })).toEqual(['.spec.replicas', '.spec.strategy.type']);
  });

  it('fieldSetOf/list-map: items by key, each item a member with its fields', () => {
    expect(paths({ spec: { containers: [{ name: 'a', image: 'x' }] } })).toEqual([
      '.spec.containers[name="a"]',
      '.spec.containers[name="a"].image',
      '.spec.containers[name="a"].name',
    ]);
  });

  it('fieldSetOf/set: set items by value', () => {
    expect(paths({ metadata: { finalizers: ['b', 'a'] } })).toEqual(['.metadata.finalizers[="a"]', '.metadata.finalizers[="b"]']);
  });

  it('fieldSetOf/atomic: atomic lists, maps and structs are single leaves', () => {
    expect(paths({ spec: { tolerations: [{ key: 'k' }], nodeSelector: { a: 'b' }, securityContext: { runAsUser: 1 } } })).toEqual([
      '.spec.nodeSelector',
      '.spec.securityContext',
      '.spec.tolerations',
    ]);
  });

  it('fieldSetOf/granular-map: map keys are fields', () => {
    expect(paths({ metadata: { labels: { a: '1', b: '2' } } })).toEqual(['.metadata.labels.a', '.metadata.labels.b']);
  });

  it('fieldSetOf/null-and-empty: null and {} are leaves; an empty granular list leaves nothing', () => {
    expect(paths({ spec: { strategy: {}, hostname: null, containers: [] } })).toEqual(['.spec.hostname', '.spec.strategy']);
  });

  it('fieldSetOf/unknown-fields: undeclared keys are members even when they hold more', () => {
    expect(paths({ spec: { surprise: { a: 1 } } })).toEqual(['.spec.surprise', '.spec.surprise.a']);
  });

  it('fieldSetOf/key-default: a missing key field takes its schema default', () => {
    expect(paths({ spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }] }] } })).toContain(
      '.spec.containers[name="a"].ports[containerPort=80,protocol="TCP"]',
    );
  });

  it('fieldSetOf/missing-key: an item without its key and no default is a TypedValueError naming it', () => {
    try {
      fieldSetOf({ spec: { containers: [{ image: 'x' }] } }, PodSchema);
      expect.unreachable();
    } catch (error) {
      expect(isTypedValueError(error) && error.field).toBe('.spec.containers[0]');
    }
  });

  it('fieldSetOf/set-of-objects: a set holding an object is a TypedValueError', () => {
    expect(() => fieldSetOf({ spec: { gates: [{ a: 1 }] } }, PodSchema)).toThrow(/associative list without keys/);
  });

  it('fieldSetOf/custom-option: the custom option turns unmarked and legacy lists atomic', () => {
    const value = { spec: { legacy: [{ id: '1' }] } };
    expect(paths(value, { custom: true }, WidgetSchema)).toEqual(['.spec.legacy']);
    expect(paths(value, {}, WidgetSchema)).toEqual(['.spec.legacy[id="1"]', '.spec.legacy[id="1"].id']);
  });

  it('fieldSetOf/no-schema: without a schema objects are granular maps and lists atomic', () => {
    expect(
      fieldSetOf({ a: { b: [1] } }, undefined)
        .paths()
        .map(pathString),
    ).toEqual(['.a', '.a.b']);
  });
});
