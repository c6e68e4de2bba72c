import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../json/index.js';
import { isManagedFieldsError } from './errors.js';
import { FieldSet } from './field-set.js';
import { fieldsV1Json, fromFieldsV1, toFieldsV1 } from './fields-v1.js';
import { fieldElement as f, indexElement, keyElement, pathString, valueElement } from './path-element.js';

const k = (name: string) => keyElement([{ name: 'name', value: name }]);

describe('FieldsV1', () => {
  it('fieldsV1/upstream-example: the spec example encodes byte for byte', () => {
    const set = FieldSet.of(
      [f('metadata'), f('labels'), f('app')],
      [f('spec'), f('containers'), k('a')],
      [f('spec'), f('containers'), k('a'), f('image')],
    );
    expect(fieldsV1Json(set)).toBe(
      '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"a\\"}":{".":{},"f:image":{}}}}}',
    );
  });

  it('fieldsV1/every-element-kind: f:, k:, v:, i: and "." in one tree', () => {
    const set = FieldSet.of(
      [f('a')],
      [
        f('keys'),
        keyElement([
          { name: 'port', value: 80 },
          { name: 'proto', value: 'TCP' },
        ]),
      ],
      [f('set'), valueElement('x')],
      [f('set'), valueElement(3)],
      [f('list'), indexElement(1)],
      [f('list'), indexElement(1), f('x')],
    );
    expect(toFieldsV1(set)).toEqual({
      'f:a': {},
      'f:keys': { 'k:{"port":80,"proto":"TCP"}': {} },
      'f:list': { 'i:1': { '.': {}, 'f:x': {} } },
      'f:set': { 'v:3': {}, 'v:"x"': {} },
    });
    expect(Object.keys(toFieldsV1(set)['f:set'] as object)).toEqual(['v:3', 'v:"x"']);
  });

  it('fieldsV1/self-first: "." is written before the children', () => {
    const set = FieldSet.of([f('m')], [f('m'), f('x')]);
    expect(fieldsV1Json(set)).toBe('{"f:m":{".":{},"f:x":{}}}');
  });

  it('fieldsV1/roundtrip: decoding the encoding gives the same set', () => {
    const set = FieldSet.of([f('spec'), f('c'), k('a')], [f('spec'), f('c'), k('a'), f('image')], [f('spec'), f('r')]);
    expect(fromFieldsV1(toFieldsV1(set)).equals(set)).toBe(true);
  });

  it('fieldsV1/decode-members: an empty object or "." makes a member, children alone do not', () => {
    const set = fromFieldsV1({ 'f:a': {}, 'f:b': { 'f:c': {} }, 'f:d': { 'f:e': {}, '.': {} } });
    expect(set.paths().map(pathString)).toEqual(['.a', '.b.c', '.d', '.d.e']);
  });

  it('fieldsV1/decode-unknown-kinds: unknown element kinds are skipped, leaving their parent a member', () => {
    const set = fromFieldsV1({ 'f:a': { 'x:future': {} }, 'f:b': {} });
    expect(set.paths().map(pathString)).toEqual(['.a', '.b']);
  });

  it('fieldsV1/decode-errors: non-objects and bad keys are ManagedFieldsErrors', () => {
    const bads: JsonValue[] = [[], 'x', { 'f:a': 1 }, { 'k:nope': {} }, { q: {} }];
    for (const bad of bads) {
      try {
        fromFieldsV1(bad);
        expect.unreachable(JSON.stringify(bad));
      } catch (error) {
        expect(isManagedFieldsError(error)).toBe(true);
      }
    }
  });

  it('fieldsV1/decoded-cache: the same text decodes to one frozen set; other text, or a changed tree, to its own', () => {
    const tree = { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:image': {} } } } };
    const first = fromFieldsV1(tree);
    expect(first.isFrozen()).toBe(true);
    expect(fromFieldsV1(JSON.parse(JSON.stringify(tree)) as JsonValue)).toBe(first);
    expect(() => first.insert([f('spec'), f('other')])).toThrow(/frozen/);
    expect(() => first.descend(f('metadata'))).toThrow(/frozen/);
    // The cache is keyed by content: the same tree object changed in place decodes afresh.
    (tree['f:spec']['f:containers'] as Record<string, unknown>)['k:{"name":"b"}'] = {};
    const second = fromFieldsV1(tree);
    expect(second).not.toBe(first);
    expect(second.has([f('spec'), f('containers'), k('b')])).toBe(true);
    expect(first.has([f('spec'), f('containers'), k('b')])).toBe(false);
    // Operations on a frozen set give fresh sets that can be changed.
    expect(
      first
        .union(second)
        .insert([f('x')])
        .has([f('x')]),
    ).toBe(true);
  });

  it('fieldsV1/written-tree: a frozen set writes one deeply frozen tree, read back as that set; a changed copy reads afresh', () => {
    const set = FieldSet.of([f('spec'), f('c'), k('a')], [f('spec'), f('c'), k('a'), f('image')]).freeze();
    const tree = toFieldsV1(set);
    expect(toFieldsV1(set)).toBe(tree);
    expect(fromFieldsV1(tree)).toBe(set);
    // Nothing can change the shared tree, at any depth, so reading it by identity cannot go stale.
    const inner = (tree['f:spec'] as Record<string, Record<string, unknown>>)['f:c'] as Record<string, unknown>;
    expect(Object.isFrozen(tree) && Object.isFrozen(inner)).toBe(true);
    expect(() => {
      inner['k:{"name":"b"}'] = {};
    }).toThrow(TypeError);
    expect(fromFieldsV1(tree).has([f('spec'), f('c'), k('b')])).toBe(false);
    // A copy is not the written tree: changed, it decodes to its own set; unchanged, to an equal one.
    const changed = JSON.parse(JSON.stringify(tree)) as Record<string, Record<string, Record<string, unknown>>>;
    (changed['f:spec'] as Record<string, Record<string, unknown>>)['f:c']!['k:{"name":"b"}'] = {};
    const read = fromFieldsV1(changed as JsonValue);
    expect(read).not.toBe(set);
    expect(read.has([f('spec'), f('c'), k('b')])).toBe(true);
    expect(set.has([f('spec'), f('c'), k('b')])).toBe(false);
    expect(set.isFrozen() && read.isFrozen()).toBe(true);
    expect(fromFieldsV1(JSON.parse(JSON.stringify(tree)) as JsonValue).equals(set)).toBe(true);
  });

  it('fieldsV1/unfrozen-set-tree: an unfrozen set writes a fresh tree each time, which the caller may change', () => {
    const set = FieldSet.of([f('a')]);
    const tree = toFieldsV1(set);
    expect(toFieldsV1(set)).not.toBe(tree);
    expect(Object.isFrozen(tree)).toBe(false);
    tree['f:b'] = {};
    expect(fromFieldsV1(tree).has([f('b')])).toBe(true);
    expect(set.has([f('b')])).toBe(false);
  });
});
