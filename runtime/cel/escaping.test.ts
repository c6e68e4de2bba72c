import { describe, expect, it } from 'vitest';
import type { SchemaNode } from '../schema/index.js';
import { compileRule } from './compile.js';
import { escapePropertyName, unescapePropertyName } from './escaping.js';

describe('property name escaping', () => {
  it.each([
    ['name', 'name'],
    ['foo-bar', 'foo__dash__bar'],
    ['a.b', 'a__dot__b'],
    ['x/y', 'x__slash__y'],
    ['__p', '__underscores__p'],
    ['a__b', 'a__underscores__b'],
    ['namespace', '__namespace__'],
    ['in', '__in__'],
    ['true', '__true__'],
    ['-x', '__dash__x'],
  ])('%s is spelled %s and back', (name, escaped) => {
    expect(escapePropertyName(name)).toBe(escaped);
    expect(unescapePropertyName(escaped)).toBe(name);
  });

  it.each(['1abc', 'foo bar', 'a:b', '', 'ünï'])('%j is not accessible', (name) => {
    expect(escapePropertyName(name)).toBeUndefined();
  });

  it('keywords are escaped only as whole names', () => {
    expect(escapePropertyName('namespaces')).toBe('namespaces');
    expect(escapePropertyName('x-in')).toBe('x__dash__in');
  });

  it('expressions read escaped fields; inaccessible fields are not declared', () => {
    const schema: SchemaNode = {
      type: 'object',
      fields: [
        { name: 'foo-bar', schema: { type: 'integer' } },
        { name: 'namespace', schema: { type: 'string' } },
        { name: 'a.b/c', schema: { type: 'boolean' } },
        { name: '1st', schema: { type: 'string' } },
      ],
    };
    const rule = compileRule('self.foo__dash__bar == 1 && self.__namespace__ == "ns" && self.a__dot__b__slash__c', { self: schema });
    expect(rule.evaluate({ self: { 'foo-bar': 1, namespace: 'ns', 'a.b/c': true, '1st': 'x' } })).toBe(true);
    expect(() => compileRule('self.namespace == "ns"', { self: schema })).toThrow(/No such key: namespace/);
  });
});
