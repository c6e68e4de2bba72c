/**
 * Estimated and actual costs of library calls, from Kubernetes' own table: k8s.io/apiserver v0.30.0
 * pkg/cel/library/cost_test.go (TestListsCost, TestIndexOfCost, TestURLsCost, TestStringLibrary,
 * TestAuthzLibrary, TestQuantityCost, TestSize): each case is [expression, estimated [min, max],
 * actual cost of one evaluation]. As there, strings and bytes whose size the expression does not
 * fix are 0..12 long, has() costs nothing, and the authorizer allows everything.
 *
 * Left out, for functions this CEL does not have: TestIPCost, TestIPIsCanonicalCost, TestCIDRCost
 * (the ip and cidr libraries) and TestSetsCost (sets.contains, sets.equivalent, sets.intersects).
 */
import { describe, expect, it } from 'vitest';
import { CostBudget } from './budget.js';
import { compileExpression as compilePublic } from './compile.js';
import { DEFAULT_COST_LIMITS } from './cost.js';
import { newEnvironment } from './environment.js';
import { estimateCost, MAX_UINT64, type Range, replaceSize, type SizeEstimator } from './estimate.js';
import { AUTHORIZER_TYPE } from './lib/authz.js';
import { compileExpression } from './program.js';

const testSizes: SizeEstimator = ({ type }) => (type?.name === 'string' || type?.name === 'bytes' ? { min: 0n, max: 12n } : undefined);

function estimate(expression: string): [bigint, bigint] {
  const env = newEnvironment();
  env.registerVariable('authorizer', AUTHORIZER_TYPE);
  const program = compileExpression(env, expression);
  const cost = estimateCost(program.root, program.isNode, testSizes);
  return [cost.min, cost.max];
}

const allowAll = { check: () => ({ allowed: true, reason: '' }) };

/** The runtime cost of one evaluation. */
function actual(expression: string): number {
  const budget = new CostBudget();
  compilePublic(expression, { variables: { authorizer: AUTHORIZER_TYPE } }).evaluate({ authorizer: allowAll }, { budget });
  return DEFAULT_COST_LIMITS.perObject - budget.remaining;
}

const cost = (min: number | bigint, max: number | bigint = min): [bigint, bigint] => [BigInt(min), BigInt(max)];

/** upstream's testCost: the estimate, then the cost of one evaluation. */
function expectCosts(expression: string, estimated: [bigint, bigint], runtime: number): void {
  expect(estimate(expression)).toEqual(estimated);
  expect(actual(expression)).toBe(runtime);
}

const intList = '[1, 2, 3, 4, 5]';
const uintList = '[uint(1), uint(2), uint(3), uint(4), uint(5)]';
const doubleList = '[1.0, 2.0, 3.0, 4.0, 5.0]';
const boolList = '[false, true, false, true, false]';
const stringList = "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']";
const bytesList = "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901')]";
const durationList = "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]";
const timestampList =
  "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), " +
  "timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), " +
  "timestamp('2011-01-05T00:00:00.000+01:00')]";
const stringLiteral = "'01234567890123456789012345678901234567890123456789'";

describe('estimated cost of library calls (cost_test.go)', () => {
  // TestListsCost
  const sums: [string, [bigint, bigint]][] = [
    [intList, cost(15)],
    [uintList, cost(20)],
    [doubleList, cost(15)],
    [durationList, cost(20)],
  ];
  it.each(sums)('%s.sum()', (list, expected) => {
    expectCosts(`${list}.sum()`, expected, Number(expected[0]));
  });
  const comparable: [string, [bigint, bigint]][] = [
    [intList, cost(15)],
    [uintList, cost(20)],
    [doubleList, cost(15)],
    [boolList, cost(15)],
    [stringList, cost(15, 25)],
    [bytesList, cost(25, 35)],
    [durationList, cost(20)],
    [timestampList, cost(20)],
  ];
  for (const op of ['.isSorted()', '.max()', '.min()']) {
    it.each(comparable)(`%s${op}`, (list, expected) => {
      expectCosts(`${list}${op}`, expected, Number(expected[0]));
    });
  }

  // TestIndexOfCost
  const indexOf: [string, string, [bigint, bigint]][] = [
    [intList, '3', cost(15)],
    [uintList, 'uint(3)', cost(21)],
    [doubleList, '3.0', cost(15)],
    [boolList, 'true', cost(15)],
    [stringList, "'x'", cost(15, 25)],
    [bytesList, "bytes('x')", cost(26, 36)],
    [durationList, "duration('3s')", cost(21)],
    [timestampList, "timestamp('2011-01-03T00:00:00.000+01:00')", cost(21)],
    [stringLiteral, "'123'", cost(5)],
  ];
  for (const op of ['indexOf', 'lastIndexOf']) {
    it.each(indexOf)(`%s.${op}(%s)`, (list, param, expected) => {
      expectCosts(`${list}.${op}(${param})`, expected, Number(expected[0]));
    });
  }

  // TestURLsCost
  it.each(['.getScheme()', '.getHostname()', '.getHost()', '.getPort()', '.getEscapedPath()', '.getQuery()'])('url%s', (op) => {
    expectCosts(`url('https:://kubernetes.io/')${op}`, cost(4), 4);
  });

  // TestStringLibrary
  const strings: [string, [bigint, bigint], number][] = [
    ["'ABCDEFGHIJ abcdefghij'.lowerAscii()", cost(3), 3],
    ["'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", cost(7, 9), 9],
    ["'ABCDEFGHIJ abcdefghij'.upperAscii()", cost(3), 3],
    ["'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()", cost(7, 9), 9],
    ["strings.quote('ABCDEFGHIJ abcdefghij')", cost(3), 3],
    ["strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')", cost(7, 11), 9],
    ["'abc 123 def 123'.replace('123', '456')", cost(3), 3],
    ["'abc 123 def 123'.replace('', 'x')", cost(3), 3],
    ["'abc 123 def 123'.replace('123', '')", cost(3), 3],
    ["'abc 123 def 123'.replace('123', '456', 1)", cost(3), 3],
    ["'abc 123 def 123'.split(' ')", cost(3), 3],
    ["'abc 123 def 123'.split(' ', 1)", cost(3), 3],
    ["'abc 123 def 123'.substring(5)", cost(2), 2],
    ["'abc 123 def 123'.substring(5, 8)", cost(2), 2],
    ["'  abc 123 def 123  '.trim()", cost(2), 2],
    ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", cost(11, 23), 15],
    ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", cost(10, 22), 13],
    ["'abc 123 def 123'.find('123')", cost(2), 2],
    ["'abc 123 def 123'.findAll('123')", cost(2), 2],
    ["'abc 123 def 123'.findAll('123', 1)", cost(2), 2],
  ];
  it.each(strings)('%s', (expression, expected, runtime) => {
    expectCosts(expression, expected, runtime);
  });

  // TestAuthzLibrary
  const resource = "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')";
  const authz: [string, [bigint, bigint]][] = [
    ["authorizer.path('/healthz')", cost(2)],
    [resource, cost(6)],
    ["authorizer.path('/healthz').check('get').allowed()", cost(350003)],
    [`${resource}.check('create').allowed()`, cost(350007)],
    [`${resource}.check('create').errored()`, cost(350007)],
    [`${resource}.check('create').error()`, cost(350007)],
  ];
  it.each(authz)('%s', (expression, expected) => {
    expectCosts(expression, expected, Number(expected[0]));
  });

  // TestQuantityCost
  const quantities: [string, [bigint, bigint], number][] = [
    ['quantity("12Mi")', cost(1), 1],
    ['isQuantity("20")', cost(1), 1],
    ['isQuantity("20M")', cost(1), 1],
    ['quantity("200M") == quantity("200M")', cost(3, 1844674407370955266n), 3],
    ['quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', cost(3, 3689348814741910532n), 6],
    [
      'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")',
      cost(3, 5534023222112865798n),
      9,
    ],
    ['quantity("50M").isLessThan(quantity("50Mi"))', cost(3), 3],
    ['quantity("50Mi").isGreaterThan(quantity("50M"))', cost(3), 3],
    ['quantity("200M").compareTo(quantity("0.2G")) > 0', cost(4), 4],
    ['quantity("50k").add(quantity("20")) == quantity("50.02k")', cost(5, 1844674407370955268n), 5],
    ['quantity("50k").sub(quantity("20")) == quantity("49.98k")', cost(5, 1844674407370955268n), 5],
    ['quantity("50k").sub(20) == quantity("49980")', cost(4, 1844674407370955267n), 4],
    ['quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0', cost(6), 6],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0', cost(7), 7],
    ['quantity("50k").asInteger() > 0', cost(3), 3],
    ['quantity("50").isInteger()', cost(2), 2],
    ['quantity("50.703k").asApproximateFloat() > 0.0', cost(3), 3],
  ];
  it.each(quantities)('%s', (expression, expected, runtime) => {
    expectCosts(expression, expected, runtime);
  });
});

describe('result size of replace (TestSize)', () => {
  const exact = (n: number): Range => ({ min: BigInt(n), max: BigInt(n) });
  const r = (min: number, max: number): Range => ({ min: BigInt(min), max: BigInt(max) });
  it.each([
    ['replace empty with char', exact(3), exact(0), exact(1), exact(7)],
    ['maybe replace char with empty', exact(3), exact(1), exact(0), r(0, 3)],
    ['maybe replace repeated', exact(4), exact(2), exact(4), r(4, 8)],
    ['maybe replace empty', exact(4), r(0, 1), r(0, 2), r(0, 14)],
    ['replace non-empty size range, maybe larger', exact(4), r(1, 1), r(1, 2), r(4, 8)],
    ['replace non-empty size range, maybe smaller', exact(4), r(1, 2), r(1, 1), r(2, 4)],
  ])('%s', (_, target, toReplace, replaceWith, expected) => {
    expect(replaceSize(target, toReplace, replaceWith)).toEqual(expected);
  });

  it('saturates at the largest uint64', () => {
    expect(replaceSize({ min: 0n, max: MAX_UINT64 }, exact(0), exact(1)).max).toBe(MAX_UINT64);
  });
});
