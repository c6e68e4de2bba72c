import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { Collector } from '../validate/index.js';
import { documentOf } from './arbitrary.testing.js';
import type { ObjectSchema } from './types.js';
import { closureValidator, validatorOf } from './validator.js';

/** What a validator reported for a value: errors and unknown fields, in order. */
function findings(validate: (v: unknown, p: string, e: Collector) => void, value: unknown): unknown {
  const e = new Collector();
  validate(value, '', e);
  return { errors: e.errors, unknownFields: e.unknownFields };
}

// Both compilers of the engine find the same on every built-in kind, on documents drawn from the
// kind's schema (mostly valid, with mutations at every depth). Until the generated validators were
// removed, both were also held to the same findings as those (commits cc323f7, d2c691c; the corpus
// check compared all three on 334 kinds of eight projects).
describe('validatorOf: compiled source and closures find the same', () => {
  for (const kind of allKinds) {
    it(`${kind.apiVersion} ${kind.kind}`, () => {
      const [compiled, closures] = [validatorOf(kind.schema), closureValidator(kind.schema)];
      fc.assert(
        fc.property(documentOf(kind.schema), (doc) => {
          expect(findings(compiled, doc)).toEqual(findings(closures, doc));
        }),
        { numRuns: 25 },
      );
    });
  }
});

describe('validatorOf', () => {
  const schema: ObjectSchema = {
    type: 'object',
    fields: [
      { name: 'size', schema: { type: 'integer', format: 'int32', maximum: 5 }, required: true },
      { name: 'labels', schema: { type: 'map', values: { type: 'string', maxLength: 3 } } },
      { name: 'toString', schema: { type: 'string' } },
    ],
  };

  it('words failures as kube-openapi does for custom resources, and as Go code for built-in kinds', () => {
    const doc = { size: 7, labels: { a: 'long' } };
    expect(findings(validatorOf({ ...schema, customResource: true }), doc)).toMatchObject({
      errors: [
        { field: 'size', detail: 'size in body should be less than or equal to 5' },
        { field: 'labels.a', type: 'FieldValueTooLong' },
      ],
    });
    expect(findings(validatorOf(schema), doc)).toMatchObject({
      errors: [
        { field: 'size', detail: 'must be less than or equal to 5' },
        { field: 'labels[a]', type: 'FieldValueTooLong' },
      ],
    });
  });

  it('reads only a document\u0027s own properties and reports the rest as unknown', () => {
    expect(findings(validatorOf(schema), {})).toMatchObject({ errors: [{ type: 'FieldValueRequired', field: 'size' }] });
    expect(findings(validatorOf(schema), { size: 1, extra: 1 })).toEqual({ errors: [], unknownFields: ['extra'] });
  });

  it('compiles a descriptor once', () => {
    expect(validatorOf(schema)).toBe(validatorOf(schema));
    expect(validatorOf({ ...schema })).not.toBe(validatorOf(schema));
  });
});

describe('validatorOf: value validations and odd keys', () => {
  it('checks an object\u2019s inline oneOf before its fields, in kube-openapi\u2019s words', () => {
    const schema: ObjectSchema = {
      type: 'object',
      customResource: true,
      fields: [
        { name: 'a', schema: { type: 'string' } },
        { name: 'b', schema: { type: 'string' } },
      ],
      valueValidation: { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
    };
    const found = findings(validatorOf(schema), { a: 'x', b: 1 }) as { errors: { field: string; detail: string }[] };
    expect(found.errors.map((e) => e.detail)).toEqual([
      '"" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      'b in body must be of type string: "integer"',
    ]);
  });

  it('names a map entry under the empty key with its dot, as kube-openapi does', () => {
    const schema: ObjectSchema = {
      type: 'object',
      customResource: true,
      fields: [
        {
          name: 'm',
          schema: {
            type: 'map',
            values: { type: 'list', items: { type: 'object', fields: [{ name: 'n', schema: { type: 'integer' } }] } },
          },
        },
      ],
    };
    const found = findings(validatorOf(schema), { m: { '': [{ n: 'x' }] } }) as { errors: { field: string }[] };
    expect(found.errors.map((e) => e.field)).toEqual(['m.[0].n']);
  });
});
