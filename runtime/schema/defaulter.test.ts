import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { documentOf } from './arbitrary.testing.js';
import { closureDefaulter, defaulterOf } from './defaulter.js';
import type { ListSchema, ObjectSchema } from './types.js';

/** The defaulted document as text: key order counts (a default is added where upstream adds it). */
function defaulted(setDefaults: (v: unknown) => void, doc: unknown): string {
  const copy = structuredClone(doc);
  setDefaults(copy);
  return JSON.stringify(copy);
}

// Both compilers give the same documents on every built-in kind, on documents drawn from its schema.
describe('defaulterOf: compiled source and closures give the same documents', () => {
  for (const kind of allKinds) {
    it(`${kind.apiVersion} ${kind.kind}`, () => {
      const [compiled, closures] = [defaulterOf(kind.schema), closureDefaulter(kind.schema)];
      fc.assert(
        fc.property(documentOf(kind.schema), (doc) => {
          expect(defaulted(compiled, doc)).toBe(defaulted(closures, doc));
        }),
        { numRuns: 25 },
      );
    });
  }
});

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
