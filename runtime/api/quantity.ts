// Resource quantities (`500m`, `1.5Gi`, `1e3`) exactly as the real system parses, rounds and
// prints them (k8s.io/apimachinery/pkg/api/resource), with bigint arithmetic: never a float.

/** How a quantity prints: the family of its suffix when it was parsed. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** The accepted syntax, quoted in every parse error. */
export const QUANTITY_SYNTAX =
  '<sign><number><suffix>: an optional + or -, digits with an optional fraction (1, 1.5, .5), then nothing, ' +
  'a decimal suffix (n u m k M G T P E), a binary suffix (Ki Mi Gi Ti Pi Ei) or an exponent (e3, E-2)';

/** A malformed quantity: the input, the 0-based position of the problem and what was wrong. */
export class QuantityParseError extends Error {
  override readonly name = 'QuantityParseError';
  readonly input: string;
  readonly position: number;
  readonly detail: string;

  constructor(input: string, position: number, detail: string) {
    super(`invalid quantity ${JSON.stringify(input)}: ${detail} at position ${position}; expected ${QUANTITY_SYNTAX}`);
    this.input = input;
    this.position = position;
    this.detail = detail;
  }
}

export function isQuantityParseError(value: unknown): value is QuantityParseError {
  return value instanceof QuantityParseError;
}

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_SUFFIX_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const SUFFIX_LETTERS = 'eEinumkKMGTP';
const MAX_INT32 = 2 ** 31 - 1;
const MAX_INT64 = 2n ** 63n - 1n;
const NANO = -9;
// Materializing 10^e costs memory linear in e; conversions and arithmetic refuse beyond this.
const MAX_MATERIALIZED_DIGITS = 10_000;

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const abs = (n: bigint): bigint => (n < 0n ? -n : n);
const pow10 = (n: number): bigint => 10n ** BigInt(n);
const digitCount = (n: bigint): number => abs(n).toString().length;

/**
 * An exact decimal value `mantissa × 10^exponent` (mantissa without trailing zeros; 0 is 0×10^0)
 * and the format it prints in. Immutable.
 */
export class Quantity {
  readonly mantissa: bigint;
  readonly exponent: number;
  readonly format: QuantityFormat;
  /**
   * The input text when the real system keeps it as the serialized form (it reuses the text of
   * parses it considers canonical, such as `100m`, but also `+1` and `1.500k`).
   */
  readonly original: string | undefined;

  constructor(mantissa: bigint, exponent: number, format: QuantityFormat, original?: string) {
    let m = mantissa;
    let e = m === 0n ? 0 : exponent;
    while (m !== 0n && m % 10n === 0n) {
      m /= 10n;
      e++;
    }
    this.mantissa = m;
    this.exponent = e;
    this.format = format;
    this.original = original;
  }

  /** -1, 0 or 1. */
  sign(): -1 | 0 | 1 {
    return this.mantissa === 0n ? 0 : this.mantissa < 0n ? -1 : 1;
  }

  isZero(): boolean {
    return this.mantissa === 0n;
  }

  isInteger(): boolean {
    return this.exponent >= 0;
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. Exact. */
  compare(other: Quantity): -1 | 0 | 1 {
    const a = this.sign();
    const b = other.sign();
    if (a !== b) return a < b ? -1 : 1;
    if (a === 0) return 0;
    // Same sign: compare magnitudes by order of magnitude first, then digit by digit.
    const orderA = digitCount(this.mantissa) + this.exponent;
    const orderB = digitCount(other.mantissa) + other.exponent;
    let magnitude: number;
    if (orderA !== orderB) magnitude = orderA < orderB ? -1 : 1;
    else {
      const e = Math.min(this.exponent, other.exponent);
      const x = abs(this.mantissa) * pow10(this.exponent - e);
      const y = abs(other.mantissa) * pow10(other.exponent - e);
      magnitude = x === y ? 0 : x < y ? -1 : 1;
    }
    return magnitude === 0 ? 0 : ((magnitude * a) as -1 | 1);
  }

  equals(other: Quantity): boolean {
    return this.compare(other) === 0;
  }

  /** The sum; a zero left side takes the right side's format, as in the real system. */
  add(other: Quantity): Quantity {
    const e = Math.min(this.exponent, other.exponent);
    const sum = this.scaledTo(e) + other.scaledTo(e);
    return new Quantity(sum, e, this.isZero() ? other.format : this.format);
  }

  subtract(other: Quantity): Quantity {
    return this.add(other.negate());
  }

  negate(): Quantity {
    return new Quantity(-this.mantissa, this.exponent, this.format);
  }

  /** The exact integer value; undefined when the quantity has a fraction. */
  integerValue(): bigint | undefined {
    return this.isInteger() ? this.scaledTo(0) : undefined;
  }

  /** The value rounded away from zero to a whole number (the real system's Value()). */
  value(): bigint {
    return this.scaledValue(0);
  }

  /** The value in thousandths, rounded away from zero (the real system's MilliValue()). */
  milliValue(): bigint {
    return this.scaledValue(-3);
  }

  /** ceil(|q| / 10^scale) with q's sign: the value in units of 10^scale. */
  scaledValue(scale: number): bigint {
    if (this.exponent >= scale) return this.scaledTo(scale);
    const divisor = pow10(scale - this.exponent);
    const quotient = abs(this.mantissa) / divisor;
    const rounded = abs(this.mantissa) % divisor === 0n ? quotient : quotient + 1n;
    return this.mantissa < 0n ? -rounded : rounded;
  }

  /** The nearest double; may lose precision. */
  toNumber(): number {
    return Number.parseFloat(`${this.mantissa}e${this.exponent}`);
  }

  /** The text the real system serializes: the kept input when there is one, the canonical form otherwise. */
  toString(): string {
    return this.original ?? this.canonical();
  }

  toJSON(): string {
    return this.toString();
  }

  /**
   * The canonical form: no fraction, the largest suffix of the quantity's format that loses no
   * precision (`1.5Gi` -> `1536Mi`, `1.5` -> `1500m`, `1000m` -> `1`, `1e3` -> `1e3`).
   */
  canonical(): string {
    if (this.isZero()) return '0';
    let format = this.format;
    if (format === 'BinarySI') {
      // Small or fractional binary values print in decimal rather than rounding.
      const small = new Quantity(-1024n, 0, 'DecimalSI').compare(this) < 0 && this.compare(new Quantity(1024n, 0, 'DecimalSI')) < 0;
      if (small || !this.isInteger()) format = 'DecimalSI';
      else {
        let value = this.scaledTo(0);
        let power = 0;
        while (value % 1024n === 0n) {
          value /= 1024n;
          power++;
        }
        const suffix = BINARY_SUFFIX_BY_POWER[power];
        // Beyond Ei there is no binary suffix: print exactly in exponent form instead.
        if (suffix !== undefined) return `${value}${suffix}`;
        format = 'DecimalExponent';
      }
    }
    // The exponent goes down to a multiple of 3, the mantissa up by at most 100.
    const e = Math.floor(this.exponent / 3) * 3;
    const digits = (this.mantissa * pow10(this.exponent - e)).toString();
    const suffix = format === 'DecimalSI' ? DECIMAL_SUFFIX_BY_EXPONENT.get(e) : undefined;
    if (suffix !== undefined) return digits + suffix;
    // DecimalExponent, and DecimalSI beyond E or below n (no suffix there).
    return e === 0 ? digits : `${digits}e${e}`;
  }

  // The value as an integer count of 10^e units; e must not exceed this.exponent by much.
  private scaledTo(e: number): bigint {
    if (e <= this.exponent) {
      if (this.exponent - e > MAX_MATERIALIZED_DIGITS)
        throw new RangeError(`quantity ${this.canonical()} is too large to compute with exactly`);
      return this.mantissa * pow10(this.exponent - e);
    }
    return this.mantissa / pow10(e - this.exponent);
  }
}

const MAX_INT64_QUANTITY = new Quantity(MAX_INT64, 0, 'BinarySI');

interface Scanned {
  positive: boolean;
  num: string;
  denom: string;
  suffix: string;
  suffixStart: number;
}

// The real system's scanner: sign, leading zeros, digits, optional fraction, then suffix letters,
// an optional sign and digits. A number part may be empty (`.`, `Ki` and `-` scan as zero).
function scan(text: string): Scanned {
  let pos = 0;
  const end = text.length;
  let positive = true;
  if (text[0] === '-' || text[0] === '+') {
    positive = text[0] === '+';
    pos++;
  }
  while (pos < end && text[pos] === '0') pos++;
  if (pos >= end) return { positive, num: '0', denom: '', suffix: '', suffixStart: end };
  const numStart = pos;
  while (pos < end && isDigit(text.charAt(pos))) pos++;
  const num = text.slice(numStart, pos) || '0';
  let denom = '';
  if (pos < end && text[pos] === '.') {
    const denomStart = ++pos;
    while (pos < end && isDigit(text.charAt(pos))) pos++;
    denom = text.slice(denomStart, pos);
  }
  const suffixStart = pos;
  while (pos < end && SUFFIX_LETTERS.includes(text.charAt(pos))) pos++;
  if (pos < end && (text[pos] === '+' || text[pos] === '-')) pos++;
  while (pos < end && isDigit(text.charAt(pos))) pos++;
  if (pos < end) throw new QuantityParseError(text, pos, `unexpected ${JSON.stringify(text.charAt(pos))}`);
  return { positive, num, denom, suffix: text.slice(suffixStart), suffixStart };
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

function interpretSuffix(text: string, scanned: Scanned): Suffix {
  const { suffix, suffixStart } = scanned;
  const decimal = DECIMAL_SUFFIXES[suffix];
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: 'DecimalSI' };
  const binary = BINARY_SUFFIXES[suffix];
  if (binary !== undefined) return { base: 2, exponent: binary, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    const exponent = Number(suffix.slice(1));
    if (Math.abs(exponent) > MAX_INT32) {
      throw new QuantityParseError(text, suffixStart, `exponent ${suffix.slice(1)} is outside ±${MAX_INT32}`);
    }
    return { base: 10, exponent, format: 'DecimalExponent' };
  }
  throw new QuantityParseError(text, suffixStart, `unknown suffix ${JSON.stringify(suffix)}`);
}

// Whether the real system keeps the input text as the serialized form: its int64 fast path
// reuses strings it deems canonical (see resource.ParseQuantity).
function keepsOriginal(scanned: Scanned, suffix: Suffix): boolean {
  const { num, denom } = scanned;
  if (suffix.format === 'BinarySI') {
    if (denom !== '') return false;
    const precision = 15 - num.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
    if (precision < 0) return false;
    const value = BigInt(num);
    if (value * 2n ** BigInt(suffix.exponent) > MAX_INT64) return false;
    return (value & 7n) !== 0n;
  }
  const precision = 18 - (num.length + denom.length);
  const scale = suffix.exponent - denom.length;
  if (precision < 0 || scale < NANO) return false;
  const shifted = num + denom;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

/**
 * Parses a quantity as the real system does: values are rounded up (away from zero) to whole
 * nanos, binary values are capped at 2^63-1, and a binary value between 0 and 1 becomes decimal.
 * A JSON number is read through its shortest decimal text. Throws QuantityParseError.
 */
export function parseQuantity(input: string | number): Quantity {
  if (typeof input === 'number' && !Number.isFinite(input)) {
    throw new QuantityParseError(String(input), 0, 'not a finite number');
  }
  const text = typeof input === 'number' ? String(input) : input;
  if (text === '') throw new QuantityParseError(text, 0, 'empty');
  if (text === '0') return new Quantity(0n, 0, 'DecimalSI', '0');

  const scanned = scan(text);
  const suffix = interpretSuffix(text, scanned);
  let mantissa = BigInt(scanned.num + scanned.denom);
  let exponent = -scanned.denom.length;
  if (suffix.base === 10) exponent += suffix.exponent;
  else mantissa *= 2n ** BigInt(suffix.exponent);

  // Round up to whole nanos: "if you want some resources, you should get some".
  if (exponent < NANO && mantissa !== 0n) {
    const shift = NANO - exponent;
    if (shift > digitCount(mantissa)) mantissa = 1n;
    else {
      const divisor = pow10(shift);
      mantissa = mantissa / divisor + (mantissa % divisor === 0n ? 0n : 1n);
    }
    exponent = NANO;
  }
  let format = suffix.format;
  if (format === 'BinarySI') {
    // Binary values are capped at 2^63-1; between 0 and 1 they print as decimal.
    if (new Quantity(mantissa, exponent, format).compare(MAX_INT64_QUANTITY) > 0) {
      mantissa = MAX_INT64;
      exponent = 0;
    } else if (mantissa !== 0n && digitCount(mantissa) <= -exponent) format = 'DecimalSI';
  }
  if (!scanned.positive) mantissa = -mantissa;
  return new Quantity(mantissa, exponent, format, keepsOriginal(scanned, suffix) ? text : undefined);
}

/**
 * True when `input` is a quantity: a string parseQuantity reads (so `e3`, `.` and `Ki` are zero,
 * as upstream's ParseQuantity has them) or a finite JSON number. The one quantity predicate: the
 * generated validators' `format: quantity` check is this, so it matches a text's shape (scan's and
 * interpretSuffix's rules in one expression) without computing the value.
 */
export function isQuantity(input: unknown): boolean {
  if (typeof input === 'number') return Number.isFinite(input);
  if (typeof input !== 'string' || input === '') return false;
  const m = QUANTITY_TEXT.exec(input);
  return m !== null && (m[1] === undefined || Math.abs(Number(m[1])) <= MAX_INT32);
}

/** What scan and interpretSuffix accept: sign, digits, fraction (each part may be empty), one suffix. */
const QUANTITY_TEXT = /^[+-]?\d*(?:\.\d*)?(?:[KMGTPE]i|[numkMGTPE]|[eE]([+-]?\d+))?$/;

/** The real system's serialized form of a quantity text (`1.5Gi` -> `1536Mi`). Throws QuantityParseError. */
export function canonicalQuantity(input: string | number): string {
  return parseQuantity(input).toString();
}

/** Compares two quantity texts or values exactly: -1, 0 or 1. Throws QuantityParseError. */
export function compareQuantities(a: string | number | Quantity, b: string | number | Quantity): -1 | 0 | 1 {
  const x = a instanceof Quantity ? a : parseQuantity(a);
  const y = b instanceof Quantity ? b : parseQuantity(b);
  return x.compare(y);
}

/** A whole number as a quantity (`value` units, or thousandths with `milli`). */
export function quantityFromInteger(value: bigint | number, format: QuantityFormat = 'DecimalSI', milli = false): Quantity {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new RangeError(`${value} is not a safe integer`);
  return new Quantity(BigInt(value), milli ? -3 : 0, format);
}
