import { describe, expect, it } from 'vitest';
import type { ObjectSchema, SchemaNode } from '../schema/index.js';
import { compileRule } from './compile.js';
import { toCelValue } from './schema-values.js';
import { Duration } from './values.js';

const holds = (rule: string, self: SchemaNode, value: unknown, old?: unknown): boolean =>
  compileRule(rule, { self, oldSelf: old !== undefined }).evaluate(old === undefined ? { self: value } : { self: value, oldSelf: old });

const str: SchemaNode = { type: 'string' };
const int: SchemaNode = { type: 'integer' };

const spec: ObjectSchema = {
  type: 'object',
  typeName: 'test.v1.Spec',
  fields: [
    { name: 'name', schema: str },
    { name: 'replicas', schema: int },
    { name: 'labels', schema: { type: 'map', values: str } },
  ],
};

describe('schema to CEL types', () => {
  it('object with properties: a declared object type, field access is type-checked', () => {
    expect(holds('self.name == "web" && self.replicas == 3', spec, { name: 'web', replicas: 3 })).toBe(true);
    expect(() => compileRule('self.nmae == "web"', { self: spec })).toThrow(/No such key: nmae/);
    expect(() => compileRule('self.replicas == "3"', { self: spec })).toThrow(/no such overload/);
  });

  it('object with additional properties: map<string, V>', () => {
    expect(holds("self.labels['app'] == 'web' && self.labels.all(k, k.size() < 10)", spec, { labels: { app: 'web' } })).toBe(true);
    expect(holds("'tier' in self.labels", spec, { labels: { app: 'web' } })).toBe(false);
    expect(() => compileRule('self.labels.app + 1 == 2', { self: spec })).toThrow(/no such overload/);
  });

  it('embedded resource: apiVersion, kind, metadata.name and metadata.generateName are always there', () => {
    const embedded: SchemaNode = { type: 'object', fields: [], embeddedResource: true, preserveUnknown: true };
    const value = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', generateName: 'p-', labels: { a: 'b' } }, spec: {} };
    expect(
      holds(
        "self.kind == 'Pod' && self.apiVersion == 'v1' && self.metadata.name == 'p' && self.metadata.generateName == 'p-'",
        embedded,
        value,
      ),
    ).toBe(true);
    expect(() => compileRule("self.metadata.labels['a'] == 'b'", { self: embedded })).toThrow(/No such key: labels/);
    expect(() => compileRule('self.spec == {}', { self: embedded })).toThrow(/No such key: spec/);
    expect(() => compileRule('has(self.metadata.labels)', { self: embedded })).toThrow(/No such key: labels/);
  });

  it('preserve-unknown object: declared fields only, unknown fields are not accessible', () => {
    const open: SchemaNode = { type: 'object', preserveUnknown: true, fields: [{ name: 'known', schema: str }] };
    expect(holds("self.known == 'k'", open, { known: 'k', extra: 1 })).toBe(true);
    expect(() => compileRule('self.extra == 1', { self: open })).toThrow(/No such key: extra/);
    expect(holds('self == oldSelf', open, { known: 'k', extra: 1 }, { known: 'k', extra: 2 })).toBe(true);
  });

  it('int-or-string: a dyn union of int and string', () => {
    const ios: SchemaNode = { type: 'int-or-string' };
    expect(holds('type(self) == int && self == 80', ios, 80)).toBe(true);
    expect(holds("type(self) == string && self == 'http'", ios, 'http')).toBe(true);
    expect(holds('type(self) == string', ios, 80)).toBe(false);
  });

  it('lists; set and map lists compare without order and concatenate by union or merge', () => {
    const plain: SchemaNode = { type: 'list', items: str };
    const set: SchemaNode = { type: 'list', items: str, listType: 'set' };
    const item: ObjectSchema = {
      type: 'object',
      fields: [
        { name: 'name', schema: str },
        { name: 'port', schema: int },
      ],
    };
    const map: SchemaNode = { type: 'list', items: item, listType: 'map', listMapKeys: ['name'] };
    expect(holds('self == oldSelf', plain, ['a', 'b'], ['b', 'a'])).toBe(false);
    expect(holds('self == oldSelf', set, ['a', 'b'], ['b', 'a'])).toBe(true);
    expect(holds('self == oldSelf', set, ['a', 'b'], ['a', 'c'])).toBe(false);
    expect(holds("self + ['b', 'c'] == ['a', 'b', 'c']", set, ['a', 'b'])).toBe(true);
    expect(holds("(self + ['b', 'c']).size() == 3", set, ['a', 'b'])).toBe(true);
    expect(holds("(self + ['b', 'c']).size() == 4", plain, ['a', 'b'])).toBe(true);
    const a = [
      { name: 'http', port: 80 },
      { name: 'https', port: 443 },
    ];
    expect(holds('self == oldSelf', map, a, [...a].reverse())).toBe(true);
    expect(holds('self == oldSelf', map, a, [{ name: 'http', port: 81 }, a[1]])).toBe(false);
    expect(holds('self.all(p, p.port > 0) && self.exists(p, p.name == "https")', map, a)).toBe(true);
  });

  it('boolean, number, integer and string: bool, double, int (64-bit, not double) and string', () => {
    const o: SchemaNode = {
      type: 'object',
      fields: [
        { name: 'b', schema: { type: 'boolean' } },
        { name: 'd', schema: { type: 'number' } },
        { name: 'i', schema: int },
        { name: 's', schema: str },
      ],
    };
    const v = { b: true, d: 2, i: 9007199254740991, s: 'x' };
    expect(holds('type(self.b) == bool && type(self.d) == double && type(self.i) == int && type(self.s) == string', o, v)).toBe(true);
    expect(holds('self.i + 1 == 9007199254740992', o, v)).toBe(true);
    expect(holds('self.d / 4.0 == 0.5', o, v)).toBe(true);
    expect(() => compileRule('self.i == 1.0', { self: o })).toThrow(/no such overload/);
    expect(toCelValue(5, int)).toBe(5n);
  });

  it('string formats: byte is bytes (base64 decoded), date and date-time are timestamps, duration is a duration', () => {
    const o: SchemaNode = {
      type: 'object',
      fields: [
        { name: 'data', schema: { type: 'string', format: 'byte' } },
        { name: 'day', schema: { type: 'string', format: 'date' } },
        { name: 'at', schema: { type: 'string', format: 'date-time' } },
        { name: 'ttl', schema: { type: 'string', format: 'duration' } },
        { name: 'raw', schema: { type: 'bytes' } },
      ],
    };
    const v = { data: 'aGVsbG8=', day: '2024-02-29', at: '2024-02-29T10:00:00Z', ttl: '1h30m', raw: 'AAE=' };
    expect(holds("self.data == b'hello' && self.raw.size() == 2", o, v)).toBe(true);
    expect(holds("self.day == timestamp('2024-02-29T00:00:00Z') && self.at > self.day", o, v)).toBe(true);
    expect(holds("self.ttl == duration('90m') && self.at + self.ttl == timestamp('2024-02-29T11:30:00Z')", o, v)).toBe(true);
    expect(toCelValue('1.5s', { type: 'duration' })).toBeInstanceOf(Duration);
    expect(() => compileRule("self.data == 'hello'", { self: o })).toThrow(/no such overload/);
  });

  it('has() on dynamic values', () => {
    const raw: SchemaNode = { type: 'raw' };
    expect(holds('has(self.a) && !has(self.b)', raw, { a: 1 })).toBe(true);
    expect(holds('has(self.a.b)', raw, { a: { b: [] } })).toBe(true);
  });

  it('recursive schemas through references', () => {
    const node: ObjectSchema = {
      type: 'object',
      typeName: 'test.Tree',
      fields: [
        { name: 'value', schema: int },
        { name: 'children', schema: { type: 'list', maxItems: 100, items: { type: 'ref', ref: () => node } } },
      ],
    };
    expect(
      holds('self.children.all(c, c.value > self.value && c.children.size() == 0)', node, {
        value: 1,
        children: [{ value: 2, children: [] }],
      }),
    ).toBe(true);
  });
});
