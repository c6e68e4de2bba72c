import { describe, expect, it } from 'vitest';
import {
  type DurationParseError,
  MAX_DURATION_NANOSECONDS,
  MIN_DURATION_NANOSECONDS,
  formatDuration,
  isDuration,
  isDurationParseError,
  parseDuration,
  parseDurationNanoseconds,
} from './index.js';

const NS = 1n;
const US = 1000n * NS;
const MS = 1000n * US;
const S = 1000n * MS;
const M = 60n * S;
const H = 60n * M;

function parseError(input: string): DurationParseError {
  try {
    parseDurationNanoseconds(input);
  } catch (e) {
    if (isDurationParseError(e)) return e;
    throw e;
  }
  throw new Error(`${JSON.stringify(input)} parsed`);
}

// Go's parseDurationTests.
describe('parseDurationNanoseconds', () => {
  it.each<[string, bigint]>([
    ['0', 0n],
    ['5s', 5n * S],
    ['30s', 30n * S],
    ['1478s', 1478n * S],
    ['-5s', -5n * S],
    ['+5s', 5n * S],
    ['-0', 0n],
    ['+0', 0n],
    ['5.0s', 5n * S],
    ['5.6s', 5n * S + 600n * MS],
    ['5.s', 5n * S],
    ['.5s', 500n * MS],
    ['1.0s', S],
    ['1.00s', S],
    ['1.004s', S + 4n * MS],
    ['1.0040s', S + 4n * MS],
    ['100.00100s', 100n * S + MS],
    ['10ns', 10n * NS],
    ['11us', 11n * US],
    ['12µs', 12n * US],
    ['12μs', 12n * US],
    ['13ms', 13n * MS],
    ['14s', 14n * S],
    ['15m', 15n * M],
    ['16h', 16n * H],
    ['3h30m', 3n * H + 30n * M],
    ['10.5s4m', 4n * M + 10n * S + 500n * MS],
    ['-2m3.4s', -(2n * M + 3n * S + 400n * MS)],
    ['1h2m3s4ms5us6ns', H + 2n * M + 3n * S + 4n * MS + 5n * US + 6n * NS],
    ['39h9m14.425s', 39n * H + 9n * M + 14n * S + 425n * MS],
    ['52763797000ns', 52763797000n],
    ['0.3333333333333333333h', 20n * M],
    ['9007199254740993ns', 2n ** 53n + 1n],
    ['9223372036854775807ns', MAX_DURATION_NANOSECONDS],
    ['9223372036854775.807us', MAX_DURATION_NANOSECONDS],
    ['9223372036s854ms775us807ns', MAX_DURATION_NANOSECONDS],
    ['-9223372036854775808ns', MIN_DURATION_NANOSECONDS],
    ['-9223372036854775.808us', MIN_DURATION_NANOSECONDS],
    ['-9223372036s854ms775us808ns', MIN_DURATION_NANOSECONDS],
    ['-2562047h47m16.854775808s', MIN_DURATION_NANOSECONDS],
    ['0.100000000000000000000h', 6n * M],
    ['0.830103483285477580700h', 49n * M + 48n * S + 372539827n * NS],
    ['1.5h', 90n * M],
    ['300ms', 300n * MS],
    ['2h45m', 2n * H + 45n * M],
    ['-1m', -M],
  ])('%j', (input, expected) => {
    expect(parseDurationNanoseconds(input)).toBe(expected);
    expect(isDuration(input)).toBe(true);
  });

  it.each([
    '',
    '3',
    '-',
    's',
    '.',
    '-.',
    '.s',
    '+.s',
    '1d',
    '\x85\x85',
    '\xffff',
    'hello \xffff world',
    '9223372036854775808ns',
    '9223372036854775.808us',
    '9223372036854ms775us808ns',
    '-9223372036854775809ns',
    '1h-2m',
    '1 h',
    '5S',
    '1.5.5s',
  ])('rejects %j', (input) => {
    const e = parseError(input);
    expect(e.name).toBe('DurationParseError');
    expect(e.input).toBe(input);
    expect(isDuration(input)).toBe(false);
  });

  it('says what is wrong, where, and what is accepted', () => {
    const unknown = parseError('1d');
    expect(unknown.detail).toBe('unknown unit "d"');
    expect(unknown.position).toBe(1);
    expect(unknown.message).toBe(
      'invalid duration "1d": unknown unit "d" at position 1; expected an optionally signed sequence of decimal numbers, each with an optional fraction and a unit (ns, us, µs, ms, s, m, h), such as 300ms, -1.5h or 2h45m; or 0',
    );
    expect(parseError('3').detail).toBe('missing unit');
    expect(parseError('3').position).toBe(1);
    expect(parseError('').detail).toBe('empty');
    expect(parseError('.s').detail).toBe('a number needs at least one digit');
    expect(parseError('1h x').detail).toBe('unknown unit "h x"');
    expect(parseError('9223372036854775808ns').detail).toMatch(/^out of range/);
  });
});

describe('parseDuration', () => {
  it('gives nanoseconds and milliseconds', () => {
    expect(parseDuration('1.5s')).toEqual({ nanoseconds: 1_500_000_000n, milliseconds: 1500 });
    expect(parseDuration('300us')).toEqual({ nanoseconds: 300_000n, milliseconds: 0.3 });
    expect(parseDuration('-1h')).toEqual({ nanoseconds: -3_600_000_000_000n, milliseconds: -3_600_000 });
  });
});

// Go's durationTests for Duration.String.
describe('formatDuration', () => {
  it.each<[string, bigint]>([
    ['0s', 0n],
    ['1ns', NS],
    ['1.1µs', 1100n * NS],
    ['2.2ms', 2200n * US],
    ['3.3s', 3300n * MS],
    ['4m5s', 4n * M + 5n * S],
    ['4m5.001s', 4n * M + 5001n * MS],
    ['5h6m7.001s', 5n * H + 6n * M + 7001n * MS],
    ['8m0.000000001s', 8n * M + NS],
    ['2562047h47m16.854775807s', MAX_DURATION_NANOSECONDS],
    ['-2562047h47m16.854775808s', MIN_DURATION_NANOSECONDS],
    ['1h0m0s', H],
    ['1m0s', M],
    ['1h0m1s', H + S],
    ['300ms', 300n * MS],
    ['1µs', US],
    ['-1.5s', -1500n * MS],
    ['999ns', 999n],
  ])('%s', (expected, nanoseconds) => {
    expect(formatDuration(nanoseconds)).toBe(expected);
    expect(parseDurationNanoseconds(expected)).toBe(nanoseconds);
  });

  it('accepts numbers and rejects values outside int64', () => {
    expect(formatDuration(90_000_000_000)).toBe('1m30s');
    expect(() => formatDuration(MAX_DURATION_NANOSECONDS + 1n)).toThrow(RangeError);
  });
});
