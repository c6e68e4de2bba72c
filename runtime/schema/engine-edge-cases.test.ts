import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEmitContext, emitSchemas } from '../../generator/emit/index.js';
import { loadSchemas } from '../../generator/index.js';
import type { FieldError } from '../api/index.js';
import { Collector, FieldPath } from '../validate/index.js';
import { closureDefaulter, closureValidator, defaulterOf, validatorOf } from './index.js';
import type { ObjectSchema } from './types.js';

/**
 * Shapes the built-in schemas do not have, from a small schema's descriptor generated into a
 * temporary directory, checked by the schema engine (compiled and as closures, which must agree): exclusive bounds, maps of objects (checked per key and
 * defaulted per entry), lists of lists, entry counts of maps, nullable map values, and RE2 patterns.
 */
const SCHEMA = `
group: edge.test.svc.io
version: v1
description: Emitter edge cases.
definitions:
  Widget:
    type: object
    description: A widget.
    x-svc-kind: Widget
    properties:
      ratio: {type: number, minimum: 0, maximum: 1, exclusiveMinimum: true, exclusiveMaximum: true}
      count: {type: integer, format: int32, minimum: 0, exclusiveMinimum: true}
      slots:
        type: object
        additionalProperties: {$ref: '#Slot'}
        minProperties: 1
        maxProperties: 2
      grid: {type: array, items: {type: array, items: {$ref: '#Slot'}}}
      notes: {type: object, additionalProperties: {type: string, nullable: true}}
      "odd-name": {type: string, enum: [a]}
      constructor: {type: string}
      toString: {type: integer}
      month: {type: string, pattern: '^((?i)jan|feb)$'}
      line: {type: string, pattern: '^[a-z]+$'}
  Slot:
    type: object
    required: [name]
    properties:
      name: {type: string, minLength: 2}
      size: {type: integer, default: 3}
      tags: {type: array, items: {type: string}, x-svc-list-type: set}
`;

let widget: ObjectSchema;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-edge-'));
  writeFileSync(join(dir, 'v1.yaml'), SCHEMA);
  const out = join(dir, 'out');
  // Only the descriptors: the rest of codegen asks more of a schema (Protobuf numbers).
  const ctx = createEmitContext(loadSchemas({ inputs: [dir] }), out, 'test', { root: new URL('../../', import.meta.url).pathname });
  for (const file of emitSchemas(ctx)) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.render());
  }
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  ({ WidgetSchema: widget } = await import(pathToFileURL(join(out, 'edge.test.svc.io/v1/schema.ts')).href));
}, 60_000);

function check(doc: unknown): Collector {
  const c = new Collector();
  validatorOf(widget)(doc, '', c);
  const closures = new Collector();
  closureValidator(widget)(doc, '', closures);
  expect([closures.errors, closures.unknownFields]).toEqual([c.errors, c.unknownFields]);
  return c;
}

function defaultWidget(doc: unknown): void {
  const closures = structuredClone(doc);
  closureDefaulter(widget)(closures);
  defaulterOf(widget)(doc);
  expect(JSON.stringify(closures)).toBe(JSON.stringify(doc));
}

const invalid = (field: string, badValue: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, badValue, detail });

describe('schema engine edge cases', () => {
  it('a valid widget passes', () => {
    const c = check({
      ratio: 0.5,
      count: 1,
      slots: { a: { name: 'aa', tags: ['x', 'y'] } },
      grid: [[{ name: 'bb' }], []],
      notes: { n: 'x', m: null },
      'odd-name': 'a',
    });
    expect(c.errors).toEqual([]);
    expect(c.unknownFields).toEqual([]);
  });

  it('exclusive bounds reject the bound itself, inclusive values inside pass', () => {
    expect(check({ ratio: 0 }).errors).toEqual([invalid('ratio', 0, 'must be greater than 0')]);
    expect(check({ ratio: 1 }).errors).toEqual([invalid('ratio', 1, 'must be less than 1')]);
    expect(check({ ratio: 1e-9, count: 1 }).errors).toEqual([]);
    expect(check({ count: 0 }).errors).toEqual([invalid('count', 0, 'must be greater than 0')]);
  });

  it('a map of objects is checked per key, with unknown fields below the key', () => {
    const c = check({ slots: { first: { name: 'x', extra: 1 }, second: { size: 'big' } } });
    expect(c.errors).toEqual([
      invalid('slots[first].name', 'x', 'must be at least 2 characters long'),
      { type: 'FieldValueRequired', badValue: '', field: 'slots[second].name', detail: '' },
      { type: 'FieldValueTypeInvalid', field: 'slots[second].size', badValue: 'big', detail: 'must be of type integer, not string' },
    ]);
    expect(c.unknownFields).toEqual(['slots[first].extra']);
  });

  it('map entry counts: minProperties and maxProperties', () => {
    expect(check({ slots: {} }).errors).toEqual([invalid('slots', 0, 'must have at least 1 entries')]);
    expect(check({ slots: { a: { name: 'aa' }, b: { name: 'bb' }, c: { name: 'cc' } } }).errors).toEqual([
      { type: 'FieldValueTooMany', field: 'slots', badValue: 3, detail: 'must have at most 2 items' },
    ]);
  });

  it('a list of lists reports both indexes; a set inside reports the repeat', () => {
    const c = check({ grid: [[], [{ name: 'ok' }, { name: 'n', tags: ['t', 't'] }]] });
    expect(c.errors).toEqual([
      invalid('grid[1][1].name', 'n', 'must be at least 2 characters long'),
      { type: 'FieldValueDuplicate', field: 'grid[1][1].tags[1]', badValue: 't', detail: '' },
    ]);
    expect(check({ grid: [{ name: 'aa' }] }).errors).toEqual([
      { type: 'FieldValueTypeInvalid', field: 'grid[0]', badValue: 'object', detail: 'must be of type array, not object' },
    ]);
  });

  it('nullable map values accept null and check the rest', () => {
    expect(check({ notes: { a: null, b: 2 } }).errors).toEqual([
      { type: 'FieldValueTypeInvalid', field: 'notes[b]', badValue: 2, detail: 'must be of type string, not integer' },
    ]);
  });

  it('patterns are RE2: flags mid-pattern, and $ is the end of the text, not before a final newline', () => {
    expect(check({ month: 'JAN', line: 'abc' }).errors).toEqual([]);
    expect(check({ month: 'mar', line: 'abc\n' }).errors).toEqual([
      invalid('month', 'mar', 'must match ^((?i)jan|feb)$'),
      invalid('line', 'abc\n', 'must match ^[a-z]+$'),
    ]);
  });

  it('field names that are not identifiers', () => {
    expect(check({ 'odd-name': 'b' }).errors).toEqual([
      { type: 'FieldValueNotSupported', field: 'odd-name', badValue: 'b', detail: 'supported values: "a"' },
    ]);
  });

  it('fields named like Object.prototype members are absent unless the document has them', () => {
    // Before the fix, `v.constructor` read Object and reported "must be of type string, not function".
    expect(check(JSON.parse('{"ratio": 0.5}')).errors).toEqual([]);
    expect(check(JSON.parse('{"constructor": "c", "toString": 3}')).errors).toEqual([]);
    expect(check(JSON.parse('{"constructor": 1, "toString": "s"}')).errors).toEqual([
      { type: 'FieldValueTypeInvalid', field: 'constructor', badValue: 1, detail: 'must be of type string, not integer' },
      { type: 'FieldValueTypeInvalid', field: 'toString', badValue: 's', detail: 'must be of type integer, not string' },
    ]);
  });

  it('defaults are applied in every map entry and in lists of lists', () => {
    const doc = { slots: { a: { name: 'aa' }, b: { name: 'bb', size: 0 } }, grid: [[{ name: 'cc' }]] };
    defaultWidget(doc);
    expect(doc).toEqual({ slots: { a: { name: 'aa', size: 3 }, b: { name: 'bb', size: 0 } }, grid: [[{ name: 'cc', size: 3 }]] });
  });
});

describe('FieldPath', () => {
  it('renders like the text paths it replaces', () => {
    expect(String(new FieldPath('', 'spec'))).toBe('spec');
    expect(String(new FieldPath(new FieldPath('', 'spec'), 'containers', 2))).toBe('spec.containers[2]');
    expect(String(new FieldPath(new FieldPath(new FieldPath('', 'grid', 1), '', 0), 'name'))).toBe('grid[1][0].name');
    expect(String(new FieldPath('items[3]', 'metadata'))).toBe('items[3].metadata');
    expect(String(new FieldPath(new FieldPath('', 'metadata'), 'labels', 'app.kubernetes.io/name'))).toBe(
      'metadata.labels[app.kubernetes.io/name]',
    );
  });

  it('is accepted wherever the collector takes a path', () => {
    const c = new Collector();
    const p = new FieldPath(new FieldPath('', 'spec'), 'ports', 0);
    c.required(p);
    c.unknown(`${p}.extra`);
    expect(c.errors).toEqual([{ type: 'FieldValueRequired', badValue: '', field: 'spec.ports[0]', detail: '' }]);
    expect(c.unknownFields).toEqual(['spec.ports[0].extra']);
  });
});
