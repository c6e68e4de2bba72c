/**
 * The cost checks of a CRD's rules, from apiextensions-apiserver's own cases:
 * k8s.io/apiextensions-apiserver v0.30.0 pkg/apis/apiextensions/validation/validation_test.go
 * (TestValidateCustomResourceDefinitionValidation: the double-nested rules, "check for cardinality
 * of 1 under root object", "forbid validation rules where cost total exceeds total limit" and the
 * three messageExpression cost cases). As there, each case lists the Forbidden errors by field.
 */
import { describe, expect, it } from 'vitest';
import type { SchemaNode } from '../../runtime/schema/index.js';
import { ruleErrors } from './rule-errors.js';

const ROOT = 'spec.validation.openAPIV3Schema';

const object = (fields: Record<string, SchemaNode>, extra: Partial<SchemaNode> = {}): SchemaNode =>
  ({ type: 'object', fields: Object.entries(fields).map(([name, schema]) => ({ name, schema })), ...extra }) as SchemaNode;

/** value: a list of maps of {key} objects, with the limits given, and a rule over every key. */
function doubleNested(limits: { maxItems?: number; maxProperties?: number; key: SchemaNode }): SchemaNode {
  const entry: SchemaNode = { type: 'object', fields: [{ name: 'key', schema: limits.key, required: true }] };
  return object({
    value: {
      type: 'list',
      maxItems: limits.maxItems,
      items: { type: 'map', maxProperties: limits.maxProperties, values: entry },
      rules: [{ rule: 'self.all(x, x.all(y, x[y].key == x[y].key))' }],
    },
  });
}

/** The fields of the Forbidden errors, sorted. */
function forbidden(root: SchemaNode): string[] {
  const errors = ruleErrors(root, ROOT);
  expect(errors.filter((e) => e.type !== 'FieldValueForbidden')).toEqual([]);
  return errors.map((e) => e.field).sort();
}

const rule = `${ROOT}.properties[value].x-kubernetes-validations[0].rule`;

describe('CRD rule costs (validation_test.go)', () => {
  it('forbid double-nested rule with no limit set', () => {
    expect(forbidden(doubleNested({ key: { type: 'string' } }))).toEqual([ROOT, rule, rule]);
  });

  it('forbid double-nested rule with one limit set', () => {
    expect(forbidden(doubleNested({ key: { type: 'string', maxLength: 10 } }))).toEqual([ROOT, rule, rule]);
  });

  it('allow double-nested rule with three limits set', () => {
    expect(forbidden(doubleNested({ maxItems: 10, maxProperties: 10, key: { type: 'string', maxLength: 10 } }))).toEqual([]);
  });

  it('allow double-nested rule with one limit set on outermost array', () => {
    expect(forbidden(doubleNested({ maxItems: 4, key: { type: 'number' } }))).toEqual([]);
  });

  it('check for cardinality of 1 under root object', () => {
    expect(forbidden(object({ value: { type: 'integer', rules: [{ rule: 'self < 1024' }] } }))).toEqual([]);
  });

  it('forbid validation rules where cost total exceeds total limit', () => {
    const keyword = { type: 'string', maxLength: 5000, rules: [{ rule: "self.contains('keyword')" }] } as const;
    const root = object({
      list: { type: 'list', maxItems: 100000, items: keyword },
      map: { type: 'map', maxProperties: 1000, values: keyword },
      field: { type: 'integer', rules: [{ rule: 'self > 50 && self < 100' }] },
    });
    const listRule = `${ROOT}.properties[list].items.x-kubernetes-validations[0].rule`;
    const mapRule = `${ROOT}.properties[map].additionalProperties.x-kubernetes-validations[0].rule`;
    expect(forbidden(root)).toEqual([ROOT, listRule, listRule, mapRule].sort());
  });

  const strings = (extra: Partial<SchemaNode>, items: SchemaNode = { type: 'string' }): SchemaNode =>
    object({ f: { type: 'list', items, ...extra } as SchemaNode });
  const message = `${ROOT}.properties[f].x-kubernetes-validations[0].messageExpression`;

  it('x-kubernetes-validations rule invalidated by messageExpression exceeding per-expression estimated cost limit', () => {
    const messageExpression = 'self[0] + self[1] + self[2] + self[3] + self[4] + self[5] + self[6] + self[7]';
    expect(forbidden(strings({ rules: [{ rule: 'true', messageExpression }] }))).toEqual([message]);
  });

  it('x-kubernetes-validations rule with lowerAscii check should be within estimated cost limit', () => {
    const rules = [{ rule: 'self.all(x, self.exists_one(y, x.lowerAscii() == y.lowerAscii()))' }];
    expect(forbidden(strings({ maxItems: 5, rules }, { type: 'string', maxLength: 5 }))).toEqual([]);
  });

  it('x-kubernetes-validations rule invalidated by messageExpression exceeding per-CRD estimated cost limit', () => {
    const messageExpression = 'string(self[0]) + string(self[1]) + string(self[2])';
    expect(forbidden(strings({ rules: [{ rule: 'true', messageExpression }] }))).toEqual([ROOT, message, message]);
  });
});
