/**
 * Estimated costs of CRD rules by the sizes of their schema, from apiextensions-apiserver's own
 * table: k8s.io/apiextensions-apiserver v0.30.0 pkg/apiserver/schema/cel/compilation_test.go,
 * TestCostEstimation. Each case is a rule on a list, map or string schema, estimated once without
 * maxItems/maxProperties/maxLength (sizes from the 3 MiB request limit) and once with the given
 * maximum; OVER means over the per-rule limit (10,000,000), and 0, as there, that the case does
 * not check the figure.
 *
 * Left out: "index of array of objects" (`self[0] == null`), which our type checker refuses
 * (comparing an object with null).
 */
import { describe, expect, it } from 'vitest';
import type { SchemaNode } from '../schema/index.js';
import { compileRule } from './compile.js';

const OVER = -1;
const LIMIT = 10_000_000;

type Shape =
  | 'Array'
  | 'ArrayOfArrays'
  | 'ObjectArray'
  | 'Map'
  | 'String'
  | 'NestedSpec'
  | 'Bytes'
  | 'AllMaxNestedSpec'
  | 'OneMaxNestedSpec'
  | 'MapArray'
  | 'MapOfObjects'
  | 'MapOfMaps'
  | 'MapOfArrays'
  | 'Enum';

/** parseRuleType: the string formats are strings with a format, int-or-string is untyped. */
function itemOf(type: string | null): SchemaNode {
  if (type === 'duration' || type === 'date' || type === 'date-time') return { type: 'string', format: type };
  if (type === 'int-or-string') return { type: 'int-or-string' };
  return { type: type as 'string' | 'number' | 'boolean' | 'integer' };
}

/** genObjectForMap: an object with a required and an optional string. */
function requiredAndOptional(maxProperties?: number): SchemaNode {
  return {
    type: 'object',
    maxProperties,
    fields: [
      { name: 'required', schema: { type: 'string' }, required: true },
      { name: 'optional', schema: { type: 'string' } },
    ],
  };
}

function schemaOf(shape: Shape, item: string | null, rule: string, max?: number): SchemaNode {
  const rules = [{ rule }];
  switch (shape) {
    case 'Array':
      return { type: 'list', items: itemOf(item), maxItems: max, rules };
    case 'ArrayOfArrays':
      return { type: 'list', items: { type: 'list', items: itemOf(item) }, maxItems: max, rules };
    case 'ObjectArray':
      return { type: 'list', items: requiredAndOptional(), maxItems: max, rules };
    case 'NestedSpec':
      return { type: 'map', values: { type: 'string', maxLength: max }, maxProperties: max, rules };
    case 'Bytes':
      return { type: 'string', format: 'byte', maxLength: max, rules };
    case 'AllMaxNestedSpec':
      return {
        type: 'list',
        items: { type: 'map', values: requiredAndOptional(max), maxProperties: max },
        maxItems: max,
        rules,
      };
    case 'OneMaxNestedSpec':
      return { type: 'list', items: { type: 'map', values: requiredAndOptional(), maxProperties: max }, rules };
    case 'MapArray':
      return { type: 'list', items: { type: 'map', values: itemOf(item) }, maxItems: max, rules };
    case 'MapOfObjects':
      return { type: 'map', values: requiredAndOptional(), maxProperties: max, rules };
    case 'MapOfMaps':
      return { type: 'map', values: { type: 'map', values: { type: 'number' } }, maxProperties: max, rules };
    case 'MapOfArrays':
      return { type: 'map', values: { type: 'list', items: { type: 'number' } }, maxProperties: max, rules };
    case 'Enum':
      return { type: 'string', enum: ['A', 'B', 'C', 'LongValue'], maxLength: max, rules };
    case 'Map':
      return { type: 'map', values: itemOf(item), maxProperties: max, rules };
    case 'String':
      return { type: 'string', maxLength: max, rules };
  }
}

const cases: [string, Shape, string | null, string, number, number, number][] = [
  ['number array with all', 'Array', 'number', 'self.all(x, true)', 4718591, 10, 32],
  ['string array with all', 'Array', 'string', 'self.all(x, true)', 3145727, 20, 62],
  ['boolean array with all', 'Array', 'boolean', 'self.all(x, true)', 1887437, 5, 17],
  ['array of number arrays with all', 'ArrayOfArrays', 'number', 'self.all(x, true)', 3145727, 100, 302],
  ['array of objects with all', 'ObjectArray', null, 'self.all(x, true)', 555128, 50, 152],
  ['map of numbers with all', 'Map', 'number', 'self.all(x, true)', 1348169, 10, 32],
  ['map of numbers with has', 'Map', 'number', 'has(self.x)', 0, 100, 0],
  ['map of strings with all', 'Map', 'string', 'self.all(x, true)', 1179647, 3, 11],
  ['map of strings with has', 'Map', 'string', 'has(self.x)', 0, 550, 0],
  ['map of booleans with all', 'Map', 'boolean', 'self.all(x, true)', 943718, 100, 302],
  ['map of booleans with has', 'Map', 'boolean', 'has(self.x)', 0, 1024, 0],
  ['string with contains', 'String', null, "self.contains('test')", 314574, 10, 5],
  ['string with startsWith', 'String', null, "self.startsWith('test')", 2, 15, 2],
  ['string with endsWith', 'String', null, "self.endsWith('test')", 2, 30, 2],
  ['concat string', 'String', null, 'size(self + "hello") > size("hello")', 314578, 4, 7],
  ['index of array with numbers', 'Array', 'number', 'self[1] == 0.0', 2, 5000, 2],
  ['index of array with strings', 'Array', 'string', 'self[1] == self[1]', 314577, 8, 314577],
  ['O(n^2) loop with numbers', 'Array', 'number', 'self.all(x, self.all(y, true))', OVER, 10, 352],
  ['O(n^3) loop with numbers', 'Array', 'number', 'self.all(x, self.all(y, self.all(z, true)))', OVER, 10, 3552],
  ['regex matches simple', 'String', null, 'self.matches("x")', 314574, 50, 22],
  ['regex matches empty string', 'String', null, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7],
  ['regex matches empty regex', 'String', null, 'self.matches("")', 1, 100, 1],
  ['set array maxLength to zero', 'Array', 'number', 'self[3] == 0.0', 2, 0, 2],
  ['set map maxLength to zero', 'Map', 'number', 'self["x"] == 0.0', 2, 0, 2],
  ['set string maxLength to zero', 'String', null, 'self == "x"', 2, 0, 1],
  ['set maxLength greater than estimated maxLength', 'Array', 'number', 'self.all(x, x == 0.0)', 6291454, 3 * 1024 * 2048, 25165826],
  ['int-or-string array with all', 'Array', 'int-or-string', 'self.all(x, true)', 4718591, 10, 32],
  ['index of array with int-or-strings', 'Array', 'int-or-string', 'self[0] == 5', 3, 10, 3],
  ['index of array with booleans', 'Array', 'boolean', 'self[0] == false', 2, 25, 2],
  ['index of array of array of numnbers', 'ArrayOfArrays', 'number', 'self[0][0] == -1.0', 3, 51, 3],
  ['duration array with all', 'Array', 'duration', 'self.all(x, true)', 2359295, 5, 17],
  ['index of duration array', 'Array', 'duration', 'self[0].getHours() == 2', 4, 525, 4],
  ['date array with all', 'Array', 'date', 'self.all(x, true)', 725936, 15, 47],
  ['index of date array', 'Array', 'date', 'self[2].getDayOfMonth() == 13', 4, 42, 4],
  ['date-time array with all', 'Array', 'date-time', 'self.all(x, true)', 428963, 25, 77],
  ['index of date-time array', 'Array', 'date-time', 'self[2].getMinutes() == 45', 4, 99, 4],
  ['map of int-or-strings with all', 'Map', 'int-or-string', 'self.all(x, true)', 1348169, 15, 47],
  ['map of int-or-strings with has', 'Map', 'int-or-string', 'has(self.x)', 0, 5000, 0],
  ['map of durations with all', 'Map', 'duration', 'self.all(x, true)', 1048577, 5, 17],
  ['map of durations with has', 'Map', 'duration', 'has(self.x)', 0, 256, 0],
  ['map of dates with all', 'Map', 'date', 'self.all(x, true)', 524288, 10, 32],
  ['map of dates with has', 'Map', 'date', 'has(self.x)', 0, 65536, 0],
  ['map of date-times with all', 'Map', 'date-time', 'self.all(x, true)', 349526, 25, 77],
  ['map of date-times with has', 'Map', 'date-time', 'has(self.x)', 0, 490, 0],
  ['extended library regex find', 'String', null, "self.find('[0-9]+') == ''", 629147, 10, 11],
  ['check cost of size call', 'Map', 'integer', 'oldSelf.size() == self.size()', 5, 10, 5],
  ['check cost of timestamp comparison', 'Map', 'date-time', 'self["a"] == self["b"]', 8, 7, 8],
  ['check cost of duration comparison', 'Map', 'duration', 'self["c"] == self["d"]', 8, 42, 8],
  // genNestedSpecWithRule, genBytesWithRule, genAllMaxNestedSpecWithRootRule, genOneMaxNestedSpecWithRootRule,
  // getMapArrayWithRule, genMapWithCustomItemRule, genEnumWithRuleAndValues
  ['map of strings with value length', 'NestedSpec', null, 'self.all(x, x.contains(self[x]))', 2752507, 10, 72],
  ['set bytes maxLength to zero', 'Bytes', null, 'self == b"x"', 2, 0, 1],
  [
    'nested types with root rule with all supporting maxLength',
    'AllMaxNestedSpec',
    null,
    'self.all(x, x["y"].required == "z")',
    7340027,
    10,
    72,
  ],
  [
    'nested types with root rule with one supporting maxLength',
    'OneMaxNestedSpec',
    null,
    'self.all(x, x["y"].required == "z")',
    7340027,
    10,
    7340027,
  ],
  ['array of number maps with all', 'MapArray', 'number', 'self.all(x, x.y == 25.2)', 6291452, 12, 74],
  ['index of array of number maps', 'MapArray', 'number', 'self[0].x > 2.0', 4, 3000, 4],
  ['map of objects with all', 'MapOfObjects', null, 'self.all(x, true)', 428963, 20, 62],
  ['map of objects with has', 'MapOfObjects', null, 'has(self.x)', 0, 9001, 0],
  ['map of number maps with all', 'MapOfMaps', null, 'self.all(x, true)', 1179647, 10, 32],
  ['map of number maps with has', 'MapOfMaps', null, 'has(self.x)', 0, 101, 0],
  ['map of number arrays with all', 'MapOfArrays', null, 'self.all(x, true)', 1179647, 25, 77],
  ['map of number arrays with has', 'MapOfArrays', null, 'has(self.x)', 0, 40000, 0],
  ['enums with maxLength equals to the longest possible value', 'Enum', null, "self.contains('A')", 2, 1000, 401],
];

function estimated(schema: SchemaNode, rule: string): number {
  return compileRule(rule, { self: schema, oldSelf: /\boldSelf\b/.test(rule) }).estimatedCost;
}

describe('estimated cost of CRD rules by schema sizes (compilation_test.go TestCostEstimation)', () => {
  it.each(cases)('%s', (_, shape, item, rule, calc, setMax, set) => {
    const unbounded = estimated(schemaOf(shape, item, rule), rule);
    if (calc === OVER) expect(unbounded).toBeGreaterThan(LIMIT);
    else if (calc > 0) expect(unbounded).toBe(calc);
    const bounded = estimated(schemaOf(shape, item, rule, setMax), rule);
    if (set === OVER) expect(bounded).toBeGreaterThan(LIMIT);
    else if (set > 0) expect(bounded).toBe(set);
  });
});
