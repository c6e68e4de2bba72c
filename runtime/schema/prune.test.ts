import { describe, expect, it } from 'vitest';
import { prune, type ObjectSchema } from './index.js';

const inner: ObjectSchema = { type: 'object', fields: [{ name: 'a', schema: { type: 'string' } }] };
const schema: ObjectSchema = {
  type: 'object',
  fields: [
    { name: 'keep', schema: { type: 'ref', ref: () => inner } },
    { name: 'list', schema: { type: 'list', items: inner } },
    { name: 'map', schema: { type: 'map', values: inner } },
    { name: 'free', schema: { type: 'object', fields: [], preserveUnknown: true } },
    { name: 'raw', schema: { type: 'raw' } },
  ],
};

describe('prune', () => {
  it('drops unknown fields at every depth and keeps what preserves them', () => {
    const value = {
      keep: { a: 'x', b: 1 },
      list: [{ a: 'y', c: 2 }],
      map: { k: { a: 'z', d: 3 } },
      free: { anything: { goes: true } },
      raw: { also: 'kept' },
      extra: 'dropped',
    };
    expect(prune(value, schema)).toEqual({
      keep: { a: 'x' },
      list: [{ a: 'y' }],
      map: { k: { a: 'z' } },
      free: { anything: { goes: true } },
      raw: { also: 'kept' },
    });
  });

  it("leaves an embedded resource's apiVersion, kind and metadata whole, even where its schema declares them", () => {
    const embedded: ObjectSchema = {
      type: 'object',
      embeddedResource: true,
      fields: [
        { name: 'metadata', schema: { type: 'object', fields: [{ name: 'name', schema: { type: 'string' } }] } },
        { name: 'spec', schema: inner },
      ],
    };
    const value = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 'b' } }, spec: { a: 'y', b: 1 }, other: 1 };
    expect(prune(value, embedded)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', labels: { a: 'b' } },
      spec: { a: 'y' },
    });
  });

  it('leaves values of the wrong type alone (validation reports them)', () => {
    const value = { keep: 'not an object', list: { not: 'a list' } };
    expect(prune(value, schema)).toEqual({ keep: 'not an object', list: { not: 'a list' } });
  });
});
