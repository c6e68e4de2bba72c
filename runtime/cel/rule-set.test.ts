import { describe, expect, it, vi } from 'vitest';
import type { ObjectSchema, SchemaNode } from '../schema/index.js';
import { isCelCostExceededError } from './errors.js';
import { RuleSet } from './rule-set.js';

const str: SchemaNode = { type: 'string', maxLength: 253 };

const plugin: ObjectSchema = {
  type: 'object',
  typeName: 'test.Plugin',
  fields: [
    { name: 'name', schema: str },
    {
      name: 'weight',
      schema: {
        type: 'integer',
        rules: [{ rule: 'self >= 1 && self <= 100', messageExpression: "'weight ' + string(self) + ' is not in [1, 100]'" }],
      },
    },
  ],
};

const pluginSet: ObjectSchema = {
  type: 'object',
  fields: [{ name: 'enabled', schema: { type: 'list', maxItems: 50, items: { type: 'ref', ref: () => plugin } } }],
};

const profile: ObjectSchema = {
  type: 'object',
  fields: [
    { name: 'schedulerName', schema: str },
    { name: 'percentageOfNodesToScore', schema: { type: 'integer' } },
    { name: 'plugins', schema: { type: 'object', fields: [{ name: 'score', schema: pluginSet }] } },
  ],
  rules: [{ rule: 'self.percentageOfNodesToScore >= oldSelf.percentageOfNodesToScore', message: 'may not decrease' }],
};

const config: ObjectSchema = {
  type: 'object',
  typeName: 'test.SchedulerConfiguration',
  fields: [
    {
      name: 'parallelism',
      schema: {
        type: 'integer',
        rules: [{ rule: 'self > 0' }, { rule: 'self == oldSelf', message: 'parallelism is immutable', reason: 'FieldValueForbidden' }],
      },
    },
    { name: 'podInitialBackoffSeconds', schema: { type: 'integer' } },
    { name: 'podMaxBackoffSeconds', schema: { type: 'integer' } },
    { name: 'profiles', schema: { type: 'list', listType: 'map', listMapKeys: ['schedulerName'], maxItems: 10, items: profile } },
    {
      name: 'labels',
      schema: {
        type: 'map',
        maxProperties: 10,
        values: { type: 'string', rules: [{ rule: 'self == oldSelf', message: 'label values are immutable' }] },
      },
    },
  ],
  rules: [
    {
      rule: 'self.podMaxBackoffSeconds > self.podInitialBackoffSeconds',
      message: 'must be greater than podInitialBackoffSeconds',
      fieldPath: '.podMaxBackoffSeconds',
    },
  ],
};

const valid = {
  parallelism: 16,
  podInitialBackoffSeconds: 1,
  podMaxBackoffSeconds: 10,
  profiles: [
    {
      schedulerName: 'default-scheduler',
      percentageOfNodesToScore: 50,
      plugins: {
        score: {
          enabled: [
            { name: 'a', weight: 1 },
            { name: 'b', weight: 2 },
            { name: 'c', weight: 3 },
          ],
        },
      },
    },
  ],
  labels: { team: 'x' },
};

const clone = <T>(v: T): T => structuredClone(v);

describe('RuleSet', () => {
  const rules = new RuleSet(config);

  it('accepts a valid object', () => {
    expect(rules.validate(valid, undefined, { path: 'spec' })).toEqual([]);
  });

  it('reports the field path of a nested list item, with the evaluated messageExpression', () => {
    const bad = clone(valid);
    const enabled = bad.profiles[0]?.plugins.score.enabled ?? [];
    enabled[2] = { name: 'c', weight: 300 };
    expect(rules.validate(bad, undefined, { path: 'spec' })).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.profiles[0].plugins.score.enabled[2].weight',
        // The value shown is the schema type of the value the rule sits on, as upstream.
        badValue: 'integer',
        detail: 'weight 300 is not in [1, 100]',
        rule: 'self >= 1 && self <= 100',
      },
    ]);
  });

  it("appends a rule's fieldPath and uses its message", () => {
    const bad = { ...clone(valid), podMaxBackoffSeconds: 1 };
    expect(rules.validate(bad)).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'podMaxBackoffSeconds',
        // The type of the node holding the rule, not of the fieldPath's target, as upstream.
        badValue: 'object',
        detail: 'must be greater than podInitialBackoffSeconds',
        rule: 'self.podMaxBackoffSeconds > self.podInitialBackoffSeconds',
      },
    ]);
  });

  it("runs transition rules only on update, with the field's old value and the rule's reason", () => {
    const next = { ...clone(valid), parallelism: 8 };
    expect(rules.validate(next)).toEqual([]);
    expect(rules.validate(next, valid)).toEqual([
      {
        type: 'FieldValueForbidden',
        field: 'parallelism',
        badValue: 'integer',
        detail: 'parallelism is immutable',
        rule: 'self == oldSelf',
      },
    ]);
  });

  it('correlates map-list items by key, not by position', () => {
    const old = clone(valid);
    old.profiles.push({ schedulerName: 'other', percentageOfNodesToScore: 10, plugins: { score: { enabled: [] } } });
    const next = clone(old);
    next.profiles.reverse();
    expect(rules.validate(next, old)).toEqual([]);
    const decreased = clone(next);
    if (decreased.profiles[1]) decreased.profiles[1].percentageOfNodesToScore = 40;
    expect(rules.validate(decreased, old).map((e) => [e.field, e.detail])).toEqual([['profiles[1]', 'may not decrease']]);
  });

  it('correlates map values by key; new keys have no old value', () => {
    const next = { ...clone(valid), labels: { team: 'y', added: 'z' } };
    expect(rules.validate(next, valid).map((e) => [e.field, e.detail])).toEqual([['labels[team]', 'label values are immutable']]);
  });

  it('reports a runtime error as a field error carrying the error', () => {
    const bad = clone(valid) as Record<string, unknown>;
    delete bad.podInitialBackoffSeconds;
    const [error] = rules.validate(bad);
    expect(error?.field).toBe('podMaxBackoffSeconds');
    expect(error?.detail).toMatch(/No such key: podInitialBackoffSeconds/);
  });

  it("stops when the object's cost budget runs out", () => {
    const tight = new RuleSet(config, { costLimits: { perObject: 15 } });
    const errors = tight.validate(valid);
    expect(errors).toHaveLength(1);
    expect(isCelCostExceededError(errors[0]?.error)).toBe(true);
    expect(errors[0]?.detail).toMatch(/cost budget of the object \(15\)/);
  });

  it('check() compiles every rule and returns those that do not compile', () => {
    const broken: SchemaNode = {
      type: 'object',
      fields: [{ name: 'a', schema: { type: 'string', rules: [{ rule: 'self > 1' }, { rule: 'self.size() > 0' }] } }],
      rules: [{ rule: 'self.b == 1' }],
    };
    expect(new RuleSet(config).check()).toEqual([]);
    expect(new RuleSet(broken).check().map((e) => e.rule)).toEqual(['self.b == 1', 'self > 1']);
    expect(new RuleSet(broken).checkAt().map((p) => `${p.path} ${p.error.rule}`)).toEqual(['<root> self.b == 1', 'a self > 1']);
  });
});

describe('RuleSet on a long map-list', () => {
  const item: ObjectSchema = {
    type: 'object',
    fields: [
      { name: 'name', schema: str },
      { name: 'v', schema: { type: 'integer' } },
    ],
    rules: [{ rule: 'self.v >= oldSelf.v', message: 'may not decrease' }],
  };
  const schema: ObjectSchema = {
    type: 'object',
    fields: [{ name: 'items', schema: { type: 'list', listType: 'map', listMapKeys: ['name'], items: item } }],
  };
  const n = 1000;
  const old = { items: Array.from({ length: n }, (_, i) => ({ name: `n${i}`, v: i })) };

  it('finds each old item by its keys once: JSON work linear in the list, not a scan of the old list per item', () => {
    const rules = new RuleSet(schema);
    const next = { items: [...old.items].reverse().map((x) => ({ ...x, v: x.name === 'n7' ? 0 : x.v })) };
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      expect(rules.validate(next, old).map((e) => [e.field, e.detail])).toEqual([[`items[${n - 1 - 7}]`, 'may not decrease']]);
      // One key tuple per old and per new item; the scan made about n * n / 2.
      expect(stringify.mock.calls.length).toBeLessThan(4 * n);
    } finally {
      stringify.mockRestore();
    }
  });
});
