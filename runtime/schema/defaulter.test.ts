import { describe, expect, it } from 'vitest';
import { defaulterOf } from './defaulter.js';
import type { ListSchema, ObjectSchema } from './types.js';

// Until the generated defaulters were removed, defaulterOf gave the same documents as those on
// every built-in kind and the fixture CRDs (commit 6a6af14; the corpus check on 334 kinds of eight
// projects). generated-defaulters.test.ts holds the per-kind cases.
describe('defaulterOf', () => {
  const schema: ObjectSchema = {
    type: 'object',
    fields: [
      { name: 'replicas', schema: { type: 'integer', default: 1 }, defaultZeroIsUnset: true },
      {
        name: 'ports',
        schema: { type: 'list', items: { type: 'object', fields: [{ name: 'protocol', schema: { type: 'string', default: 'TCP' } }] } },
      },
      { name: 'labels', schema: { type: 'map', values: { type: 'string' } }, required: false },
      {
        name: 'template',
        schema: { type: 'object', default: { a: [1] }, fields: [{ name: 'a', schema: { type: 'list', items: { type: 'integer' } } }] },
      },
    ],
  };

  it('fills absent fields, zeros where a zero means unset, and inside lists', () => {
    const doc = { replicas: 0, ports: [{}, { protocol: 'UDP' }] };
    defaulterOf(schema)(doc);
    expect(doc).toEqual({ replicas: 1, ports: [{ protocol: 'TCP' }, { protocol: 'UDP' }], template: { a: [1] } });
  });

  it('defaults inside the values of a map', () => {
    const port = (schema.fields[1]!.schema as ListSchema).items;
    const byName: ObjectSchema = { type: 'object', fields: [{ name: 'ports', schema: { type: 'map', values: port } }] };
    const doc = { ports: { http: {}, dns: { protocol: 'UDP' } } };
    defaulterOf(byName)(doc);
    expect(doc).toEqual({ ports: { http: { protocol: 'TCP' }, dns: { protocol: 'UDP' } } });
  });

  it('never shares a default between documents', () => {
    const [a, b] = [{} as { template?: { a: number[] } }, {} as { template?: { a: number[] } }];
    defaulterOf(schema)(a);
    defaulterOf(schema)(b);
    a.template!.a.push(2);
    expect(b.template!.a).toEqual([1]);
  });

  it('leaves a schema without defaults alone and compiles a descriptor once', () => {
    const plain: ObjectSchema = { type: 'object', fields: [{ name: 'x', schema: { type: 'string' } }] };
    const doc = { y: 1 };
    defaulterOf(plain)(doc);
    expect(doc).toEqual({ y: 1 });
    expect(defaulterOf(schema)).toBe(defaulterOf(schema));
  });
});
