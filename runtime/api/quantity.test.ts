import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Quantity,
  type QuantityFormat,
  QuantityParseError,
  canonicalQuantity,
  compareQuantities,
  isQuantity,
  isQuantityParseError,
  parseQuantity,
  quantityFromInteger,
} from './index.js';

const MAX_INT64 = 2n ** 63n - 1n;
const q = (mantissa: bigint | number, exponent: number, format: QuantityFormat): Quantity =>
  new Quantity(BigInt(mantissa), exponent, format);

function parseError(input: string): QuantityParseError {
  try {
    parseQuantity(input);
  } catch (e) {
    if (isQuantityParseError(e)) return e;
    throw e;
  }
  throw new Error(`${JSON.stringify(input)} parsed`);
}

// The real system's TestQuantityParse table: input, exact value (mantissa × 10^exponent), format.
const PARSE_CASES: [string, bigint | number, number, QuantityFormat][] = [
  ['0', 0, 0, 'DecimalSI'],
  ['0n', 0, 0, 'DecimalSI'],
  ['0u', 0, 0, 'DecimalSI'],
  ['0m', 0, 0, 'DecimalSI'],
  ['0Ki', 0, 0, 'BinarySI'],
  ['0k', 0, 0, 'DecimalSI'],
  ['0Mi', 0, 0, 'BinarySI'],
  ['0M', 0, 0, 'DecimalSI'],
  ['0Gi', 0, 0, 'BinarySI'],
  ['0G', 0, 0, 'DecimalSI'],
  ['0Ti', 0, 0, 'BinarySI'],
  ['0T', 0, 0, 'DecimalSI'],
  ['1', 1, 0, 'DecimalSI'],
  ['1Ki', 1024, 0, 'BinarySI'],
  ['8Ki', 8 * 1024, 0, 'BinarySI'],
  ['7Mi', 7 * 1024 ** 2, 0, 'BinarySI'],
  ['6Gi', 6 * 1024 ** 3, 0, 'BinarySI'],
  ['5Ti', 5 * 1024 ** 4, 0, 'BinarySI'],
  ['4Pi', 4 * 1024 ** 5, 0, 'BinarySI'],
  ['3Ei', 3n * 1024n ** 6n, 0, 'BinarySI'],
  ['10Ti', 10 * 1024 ** 4, 0, 'BinarySI'],
  ['100Ti', 100 * 1024 ** 4, 0, 'BinarySI'],
  ['5n', 5, -9, 'DecimalSI'],
  ['4u', 4, -6, 'DecimalSI'],
  ['3m', 3, -3, 'DecimalSI'],
  ['9', 9, 0, 'DecimalSI'],
  ['8k', 8, 3, 'DecimalSI'],
  ['50k', 5, 4, 'DecimalSI'],
  ['7M', 7, 6, 'DecimalSI'],
  ['6G', 6, 9, 'DecimalSI'],
  ['5T', 5, 12, 'DecimalSI'],
  ['40T', 4, 13, 'DecimalSI'],
  ['300T', 3, 14, 'DecimalSI'],
  ['2P', 2, 15, 'DecimalSI'],
  ['1E', 1, 18, 'DecimalSI'],
  ['1E-3', 1, -3, 'DecimalExponent'],
  ['1e3', 1, 3, 'DecimalExponent'],
  ['1E6', 1, 6, 'DecimalExponent'],
  ['1e9', 1, 9, 'DecimalExponent'],
  ['1E12', 1, 12, 'DecimalExponent'],
  ['1e15', 1, 15, 'DecimalExponent'],
  ['1E18', 1, 18, 'DecimalExponent'],
  ['1e14', 1, 14, 'DecimalExponent'],
  ['1e13', 1, 13, 'DecimalExponent'],
  ['100.035k', 100035, 0, 'DecimalSI'],
  ['0.001', 1, -3, 'DecimalSI'],
  ['0.0005k', 5, -1, 'DecimalSI'],
  ['0.005', 5, -3, 'DecimalSI'],
  ['0.05', 5, -2, 'DecimalSI'],
  ['0.5', 5, -1, 'DecimalSI'],
  ['0.00050k', 5, -1, 'DecimalSI'],
  ['0.00500', 5, -3, 'DecimalSI'],
  ['0.05000', 5, -2, 'DecimalSI'],
  ['0.50000', 5, -1, 'DecimalSI'],
  ['0.5e0', 5, -1, 'DecimalExponent'],
  ['0.5e-1', 5, -2, 'DecimalExponent'],
  ['0.5e-2', 5, -3, 'DecimalExponent'],
  ['10.035M', 10035, 3, 'DecimalSI'],
  ['1.2e3', 12, 2, 'DecimalExponent'],
  ['1.3E+6', 13, 5, 'DecimalExponent'],
  ['1.40e9', 14, 8, 'DecimalExponent'],
  ['1.53E12', 153, 10, 'DecimalExponent'],
  ['1.6e15', 16, 14, 'DecimalExponent'],
  ['1.7E18', 17, 17, 'DecimalExponent'],
  ['9.01', 901, -2, 'DecimalSI'],
  ['8.1k', 81, 2, 'DecimalSI'],
  ['7.123456M', 7123456, 0, 'DecimalSI'],
  ['6.987654321G', 6987654321, 0, 'DecimalSI'],
  ['5.444T', 5444, 9, 'DecimalSI'],
  ['40.1T', 401, 11, 'DecimalSI'],
  ['300.2T', 3002, 11, 'DecimalSI'],
  ['2.5P', 25, 14, 'DecimalSI'],
  ['1.01E', 101, 16, 'DecimalSI'],
  // Rounded up to whole nanos, or capped.
  ['3.001n', 4, -9, 'DecimalSI'],
  ['1.1E-9', 2, -9, 'DecimalExponent'],
  ['0.0000000001', 1, -9, 'DecimalSI'],
  ['0.0000000005', 1, -9, 'DecimalSI'],
  ['0.00000000050', 1, -9, 'DecimalSI'],
  ['0.5e-9', 1, -9, 'DecimalExponent'],
  ['0.9n', 1, -9, 'DecimalSI'],
  ['0.00000012345', 124, -9, 'DecimalSI'],
  ['0.00000012354', 124, -9, 'DecimalSI'],
  ['9Ei', MAX_INT64, 0, 'BinarySI'],
  ['9223372036854775807Ki', MAX_INT64, 0, 'BinarySI'],
  ['12E', 12, 18, 'DecimalSI'],
  // Fractional binary values.
  ['100.035Ki', 10243584, -2, 'BinarySI'],
  ['0.5Mi', 0.5 * 1024 * 1024, 0, 'BinarySI'],
  ['0.05Gi', 536870912, -1, 'BinarySI'],
  ['0.025Ti', 274877906944, -1, 'BinarySI'],
  // "Things written by trolls".
  ['0.000000000001Ki', 2, -9, 'DecimalSI'],
  ['.001', 1, -3, 'DecimalSI'],
  ['.0001k', 100, -3, 'DecimalSI'],
  ['1.', 1, 0, 'DecimalSI'],
  ['1.G', 1, 9, 'DecimalSI'],
  // The scanner accepts an empty number as zero, as the real one does.
  ['.', 0, 0, 'DecimalSI'],
  ['-.', 0, 0, 'DecimalSI'],
  ['-', 0, 0, 'DecimalSI'],
  ['Ki', 0, 0, 'BinarySI'],
  ['m', 0, 0, 'DecimalSI'],
];

describe('isQuantity', () => {
  // Upstream's ParseQuantity reads an empty number part as 0 (`e3` is 0 with an exponent suffix);
  // the regular expression its ErrFormatWrong message quotes is not what it enforces.
  it('accepts e3 as zero, as upstream does', () => {
    expect(isQuantity('e3')).toBe(true);
    expect(parseQuantity('e3').compare(q(0, 0, 'DecimalSI'))).toBe(0);
    expect(parseQuantity('e3').format).toBe('DecimalExponent');
    for (const text of ['-e3', '+E-2', 'e0', '.e3']) expect(isQuantity(text), text).toBe(true);
  });

  it('is true for finite JSON numbers only, and false for anything else that is not a string', () => {
    for (const n of [0, -1.5, 1e21, 5e-324]) expect(isQuantity(n), String(n)).toBe(true);
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, null, undefined, true, {}, ['1']]) expect(isQuantity(v)).toBe(false);
  });

  const parses = (text: string): boolean => {
    try {
      parseQuantity(text);
      return true;
    } catch (e) {
      if (isQuantityParseError(e)) return false;
      throw e;
    }
  };

  it('agrees with parseQuantity on every text made of quantity characters', () => {
    const texts = fc.string({ unit: fc.constantFrom(...'0123456789.+-eEinumkKMGTP x'), maxLength: 8 });
    fc.assert(
      fc.property(texts, (text) => {
        expect(isQuantity(text)).toBe(parses(text));
      }),
      { numRuns: 5000 },
    );
    for (const text of ['1e2147483647', '1e-2147483648', '1e2147483648', '1e4294967297', '', '0'])
      expect(isQuantity(text), text).toBe(parses(text));
  });
});

describe('parseQuantity', () => {
  it.each(PARSE_CASES)('%j', (input, mantissa, exponent, format) => {
    const got = parseQuantity(input);
    expect(got.compare(q(mantissa, exponent, format))).toBe(0);
    expect(got.format).toBe(format);
  });

  it.each(PARSE_CASES.filter(([input]) => !input.startsWith('-')))(
    '-%s is the negation, +%s the same',
    (input, mantissa, exponent, format) => {
      const negative = parseQuantity(`-${input}`);
      expect(negative.compare(q(mantissa, exponent, format).negate())).toBe(0);
      expect(negative.format).toBe(format);
      const positive = parseQuantity(`+${input}`);
      expect(positive.compare(q(mantissa, exponent, format))).toBe(0);
      expect(positive.format).toBe(format);
    },
  );

  it.each([
    '',
    '1.1.M',
    '1+1.0M',
    '0.1mi',
    '0.1am',
    'aoeu',
    '.5i',
    '1i',
    '-3.01i',
    '-3.01e-',
    '1e4294967297',
    ' 1',
    '1 ',
    '1K',
    '1ki',
    '1e',
    '1Ki5',
    '1e1.5',
    '--1',
    '1,5',
  ])('rejects %j', (input) => {
    const e = parseError(input);
    expect(e.name).toBe('QuantityParseError');
    expect(e.input).toBe(input);
    expect(e.message).toContain('expected <sign><number><suffix>');
    expect(isQuantity(input)).toBe(false);
  });

  it('says what is wrong and where', () => {
    expect(parseError('1.1.M').detail).toBe('unexpected "."');
    expect(parseError('1.1.M').position).toBe(3);
    expect(parseError('0.1mi').detail).toBe('unknown suffix "mi"');
    expect(parseError('0.1mi').position).toBe(3);
    expect(parseError('').detail).toBe('empty');
    expect(parseError('1e4294967297').detail).toBe('exponent 4294967297 is outside ±2147483647');
    expect(parseError('1 ').message).toBe(
      'invalid quantity "1 ": unexpected " " at position 1; expected <sign><number><suffix>: an optional + or -, digits with an optional fraction (1, 1.5, .5), then nothing, a decimal suffix (n u m k M G T P E), a binary suffix (Ki Mi Gi Ti Pi Ei) or an exponent (e3, E-2)',
    );
  });

  it('reads JSON numbers through their decimal text', () => {
    expect(parseQuantity(1.5).toString()).toBe('1500m');
    expect(parseQuantity(2).toString()).toBe('2');
    expect(parseQuantity(1e21).toString()).toBe('1e+21');
    expect(parseQuantity(1e21).canonical()).toBe('1e21');
    expect(() => parseQuantity(Number.NaN)).toThrow(QuantityParseError);
  });
});

describe('canonical form', () => {
  it.each([
    ['1536Mi', '1536Mi'],
    ['1.5Gi', '1536Mi'],
    ['1000m', '1'],
    ['1.5', '1500m'],
    ['1Ki', '1Ki'],
    ['1Mi', '1Mi'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1000M', '1G'],
    ['.001Ki', '1024m'],
    ['.000001Ki', '1024u'],
    ['.000000001Ki', '1024n'],
    ['.000000000001Ki', '2n'],
    ['0.5Ki', '512'],
    ['1.5Ki', '1536'],
    ['2048', '2048'],
    ['100m', '100m'],
    ['0.1', '100m'],
    ['1e3', '1e3'],
    ['1.2e3', '1200'],
    ['0.1e-9', '1e-9'],
    ['9Ei', '9223372036854775807'],
    ['-1.5Gi', '-1536Mi'],
    ['-0', '0'],
    ['0Gi', '0'],
  ])('%s -> %s', (input, expected) => {
    expect(canonicalQuantity(input)).toBe(expected);
    expect(parseQuantity(input).canonical()).toBe(expected);
  });

  // The real system's TestQuantityString: value, canonical text, and an alternate spelling of it.
  it.each<[Quantity, string, string]>([
    [q(1024 ** 3, 0, 'BinarySI'), '1Gi', '1024Mi'],
    [q(300 * 1024 ** 2, 0, 'BinarySI'), '300Mi', '307200Ki'],
    [q(6 * 1024, 0, 'BinarySI'), '6Ki', ''],
    [q(1001 * 1024 ** 3, 0, 'BinarySI'), '1001Gi', '1025024Mi'],
    [q(1024 ** 4, 0, 'BinarySI'), '1Ti', '1024Gi'],
    [q(5, 0, 'BinarySI'), '5', '5000m'],
    [q(500, -3, 'BinarySI'), '500m', '0.5'],
    [q(1, 9, 'DecimalSI'), '1G', '1000M'],
    [q(1000, 6, 'DecimalSI'), '1G', '0.001T'],
    [q(1000000, 3, 'DecimalSI'), '1G', ''],
    [q(1000000000, 0, 'DecimalSI'), '1G', ''],
    [q(1, -3, 'DecimalSI'), '1m', '1000u'],
    [q(80, -3, 'DecimalSI'), '80m', ''],
    [q(1080, -3, 'DecimalSI'), '1080m', '1.08'],
    [q(108, -2, 'DecimalSI'), '1080m', '1080000000n'],
    [q(10800, -4, 'DecimalSI'), '1080m', ''],
    [q(300, 6, 'DecimalSI'), '300M', ''],
    [q(1, 12, 'DecimalSI'), '1T', ''],
    [q(1, 18, 'DecimalSI'), '1E', ''],
    // No decimal suffix beyond E: exponent notation rather than losing the magnitude.
    [q(1, 21, 'DecimalSI'), '1e21', '1000E'],
    [q(5, 21, 'DecimalSI'), '5e21', '5000E'],
    [q(1, 24, 'DecimalSI'), '1e24', '1000000E'],
    // No binary suffix beyond Ei: exact exponent notation.
    [q(1, 70, 'BinarySI'), '10e69', ''],
    [q(2, 70, 'BinarySI'), '20e69', ''],
    [q(1, 72, 'BinarySI'), '1e72', ''],
    [q(1234567, 6, 'DecimalSI'), '1234567M', ''],
    [q(1234567, -3, 'BinarySI'), '1234567m', ''],
    [q(3, 3, 'DecimalSI'), '3k', ''],
    [q(1025, 0, 'BinarySI'), '1025', ''],
    [q(0, 0, 'DecimalSI'), '0', ''],
    [q(0, 0, 'BinarySI'), '0', ''],
    [q(1, 9, 'DecimalExponent'), '1e9', '.001e12'],
    [q(1, -3, 'DecimalExponent'), '1e-3', '0.001e0'],
    [q(1, -9, 'DecimalExponent'), '1e-9', '1000e-12'],
    [q(80, -3, 'DecimalExponent'), '80e-3', ''],
    [q(300, 6, 'DecimalExponent'), '300e6', ''],
    [q(1, 12, 'DecimalExponent'), '1e12', ''],
    [q(1, 3, 'DecimalExponent'), '1e3', ''],
    [q(3, 3, 'DecimalExponent'), '3e3', ''],
    [q(3, 3, 'DecimalSI'), '3k', ''],
    [q(0, 0, 'DecimalExponent'), '0', '00'],
    [q(1, -9, 'DecimalSI'), '1n', ''],
    [q(80, -9, 'DecimalSI'), '80n', ''],
    [q(1080, -9, 'DecimalSI'), '1080n', ''],
    [q(108, -8, 'DecimalSI'), '1080n', ''],
    [q(10800, -10, 'DecimalSI'), '1080n', ''],
    [q(1, -6, 'DecimalSI'), '1u', ''],
    [q(80, -6, 'DecimalSI'), '80u', ''],
    [q(1080, -6, 'DecimalSI'), '1080u', ''],
  ])('%s prints as %s', (value, expected, alternate) => {
    expect(value.toString()).toBe(expected);
    // The canonical text parses back to the same value, and the real system keeps that text.
    const reparsed = parseQuantity(expected);
    expect(reparsed.compare(value)).toBe(0);
    expect(reparsed.original).toBe(expected);
    if (alternate !== '') {
      const other = parseQuantity(alternate);
      expect(other.original).toBeUndefined();
      expect(other.toString()).toBe(expected);
    }
    if (!value.isZero()) expect(value.negate().toString()).toBe(`-${expected}`);
  });

  it('prints values below a nano in exponent form', () => {
    expect(q(1, -12, 'DecimalSI').toString()).toBe('1e-12');
    expect(q(1, -10, 'DecimalSI').toString()).toBe('100e-12');
  });

  it('prints a binary value past Ei exactly', () => {
    const twoTo70 = parseQuantity('1Ei').add(quantityFromInteger(2n ** 70n - 2n ** 60n));
    expect(twoTo70.toString()).toBe('1180591620717411303424');
    expect(parseQuantity(twoTo70.toString()).compare(twoTo70)).toBe(0);
  });

  it('keeps input text as the real system does, even where it is not canonical', () => {
    expect(parseQuantity('+1').toString()).toBe('+1');
    expect(parseQuantity('+1').canonical()).toBe('1');
    expect(parseQuantity('1.500k').toString()).toBe('1.500k');
    expect(parseQuantity('1.500k').canonical()).toBe('1500');
    expect(parseQuantity('1.5k').original).toBeUndefined();
    expect(JSON.stringify({ cpu: parseQuantity('1000m') })).toBe('{"cpu":"1"}');
  });
});

describe('comparison', () => {
  it.each<[string, string, number]>([
    ['0', '0', 0],
    ['100m', '50m', 1],
    ['50m', '100m', -1],
    ['10000T', '100Gi', 1],
    ['1Ki', '1024', 0],
    ['1k', '1Ki', -1],
    ['-1', '1m', -1],
    ['-1', '-2', 1],
    ['1e2147483647', '9Ei', 1],
    ['1e-2147483647', '0', 1],
    ['1e-2147483647', '1n', 0],
    ['1.5Gi', '1536Mi', 0],
    ['0.1', '100m', 0],
  ])('%s vs %s is %d', (a, b, expected) => {
    expect(compareQuantities(a, b)).toBe(expected);
    expect(compareQuantities(b, a)).toBe(-expected || 0);
    expect(parseQuantity(a).equals(parseQuantity(b))).toBe(expected === 0);
  });
});

describe('arithmetic and conversions', () => {
  it('adds and subtracts exactly; a zero left side takes the other format', () => {
    const sum = parseQuantity('100m').add(parseQuantity('1Gi'));
    expect(sum.compare(parseQuantity('1073741824.1'))).toBe(0);
    expect(sum.format).toBe('DecimalSI');
    expect(parseQuantity('0').add(parseQuantity('1Gi')).toString()).toBe('1Gi');
    expect(parseQuantity('1Gi').add(parseQuantity('0')).toString()).toBe('1Gi');
    expect(parseQuantity('100m').subtract(parseQuantity('100m')).toString()).toBe('0');
    expect(parseQuantity('0').subtract(parseQuantity('100m')).toString()).toBe('-100m');
    expect(parseQuantity('9.01').negate().toString()).toBe('-9010m');
  });

  it('converts to integers as the real system rounds', () => {
    expect(parseQuantity('1.5').value()).toBe(2n);
    expect(parseQuantity('-1.5').value()).toBe(-2n);
    expect(parseQuantity('2').value()).toBe(2n);
    expect(parseQuantity('1.5').milliValue()).toBe(1500n);
    expect(parseQuantity('1n').milliValue()).toBe(1n);
    expect(parseQuantity('1Gi').value()).toBe(1073741824n);
    expect(parseQuantity('1.5').integerValue()).toBeUndefined();
    expect(parseQuantity('1k').integerValue()).toBe(1000n);
    expect(parseQuantity('9.01').scaledValue(-1)).toBe(91n);
    expect(parseQuantity('1.5').isInteger()).toBe(false);
    expect(parseQuantity('500m').toNumber()).toBe(0.5);
    expect(parseQuantity('-2Ki').toNumber()).toBe(-2048);
    expect(parseQuantity('-2Ki').sign()).toBe(-1);
  });

  it('refuses to materialize absurd magnitudes', () => {
    expect(() => parseQuantity('1e2147483647').value()).toThrow(RangeError);
    expect(parseQuantity('1e2147483647').toString()).toBe('10e2147483646');
  });

  it('builds from integers', () => {
    expect(quantityFromInteger(1536, 'BinarySI').toString()).toBe('1536');
    expect(quantityFromInteger(2048, 'BinarySI').toString()).toBe('2Ki');
    expect(quantityFromInteger(1500, 'DecimalSI', true).toString()).toBe('1500m');
    expect(() => quantityFromInteger(0.5)).toThrow(RangeError);
  });
});
