// Go durations (`300ms`, `1.5h`, `2h45m`) exactly as Go's time.ParseDuration reads them and
// Duration.String prints them: a signed 64-bit count of nanoseconds.

/** Nanoseconds per unit; `µs` (micro sign) and `μs` (Greek mu) are both accepted, as in Go. */
const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['µs', 1_000n],
  ['μs', 1_000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

/** The longest and shortest durations: a signed 64-bit count of nanoseconds. */
export const MAX_DURATION_NANOSECONDS = 2n ** 63n - 1n;
export const MIN_DURATION_NANOSECONDS = -(2n ** 63n);

export const DURATION_SYNTAX =
  'an optionally signed sequence of decimal numbers, each with an optional fraction and a unit (ns, us, µs, ms, s, m, h), such as 300ms, -1.5h or 2h45m; or 0';

/** A malformed duration: the input, the 0-based position of the problem and what was wrong. */
export class DurationParseError extends Error {
  override readonly name = 'DurationParseError';
  readonly input: string;
  readonly position: number;
  readonly detail: string;

  constructor(input: string, position: number, detail: string) {
    super(`invalid duration ${JSON.stringify(input)}: ${detail} at position ${position}; expected ${DURATION_SYNTAX}`);
    this.input = input;
    this.position = position;
    this.detail = detail;
  }
}

export function isDurationParseError(value: unknown): value is DurationParseError {
  return value instanceof DurationParseError;
}

export interface ParsedDuration {
  /** Exact. */
  readonly nanoseconds: bigint;
  /** nanoseconds / 10^6, possibly fractional, nearest double. */
  readonly milliseconds: number;
}

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const LIMIT = 2n ** 63n;

/** Parses a Go duration. Throws DurationParseError. */
export function parseDuration(input: string): ParsedDuration {
  const nanoseconds = parseDurationNanoseconds(input);
  return { nanoseconds, milliseconds: Number(nanoseconds) / 1e6 };
}

/** Parses a Go duration into nanoseconds. Throws DurationParseError. */
export function parseDurationNanoseconds(input: string): bigint {
  let pos = 0;
  let negative = false;
  if (input[0] === '-' || input[0] === '+') {
    negative = input[0] === '-';
    pos++;
  }
  // A bare "0" needs no unit.
  if (input.slice(pos) === '0') return 0n;
  if (pos >= input.length) throw new DurationParseError(input, pos, 'empty');

  let total = 0n;
  while (pos < input.length) {
    const termStart = pos;
    if (!(input[pos] === '.' || isDigit(input.charAt(pos)))) {
      throw new DurationParseError(input, pos, `expected a number, found ${JSON.stringify(input.charAt(pos))}`);
    }
    const intStart = pos;
    while (pos < input.length && isDigit(input.charAt(pos))) pos++;
    const whole = input.slice(intStart, pos);
    let fraction = '';
    if (input[pos] === '.') {
      const fracStart = ++pos;
      while (pos < input.length && isDigit(input.charAt(pos))) pos++;
      fraction = input.slice(fracStart, pos);
    }
    if (whole === '' && fraction === '') throw new DurationParseError(input, termStart, 'a number needs at least one digit');

    const unitStart = pos;
    while (pos < input.length && input[pos] !== '.' && !isDigit(input.charAt(pos))) pos++;
    const unitText = input.slice(unitStart, pos);
    if (unitText === '') throw new DurationParseError(input, unitStart, 'missing unit');
    const unit = UNITS.get(unitText);
    if (unit === undefined) throw new DurationParseError(input, unitStart, `unknown unit ${JSON.stringify(unitText)}`);

    const value = BigInt(whole || '0');
    if (value > LIMIT / unit) throw new DurationParseError(input, termStart, 'out of range (at most about 2562047h)');
    let term = value * unit;
    const fractionValue = fractionNanoseconds(fraction, unit);
    term += fractionValue;
    if (term > LIMIT) throw new DurationParseError(input, termStart, 'out of range (at most about 2562047h)');
    total += term;
    if (total > LIMIT) throw new DurationParseError(input, termStart, 'out of range (at most about 2562047h)');
  }
  if (negative) return -total;
  if (total > MAX_DURATION_NANOSECONDS) throw new DurationParseError(input, 0, 'out of range (at most about 2562047h)');
  return total;
}

// Go computes a fraction's contribution in float64 (f * (unit / 10^digits)), truncated; we do
// the same so that results agree to the nanosecond. Digits beyond int64 precision are dropped.
function fractionNanoseconds(digits: string, unit: bigint): bigint {
  let f = 0n;
  let scale = 1;
  for (const c of digits) {
    const next = f * 10n + BigInt(c);
    if (f > (LIMIT - 1n) / 10n || next > LIMIT) break;
    f = next;
    scale *= 10;
  }
  if (f === 0n) return 0n;
  return BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
}

/**
 * True when `input` parses as a Go duration (time.ParseDuration, range included). The one duration
 * predicate: the generated validators' `format: duration` check is this.
 */
export function isDuration(input: string): boolean {
  try {
    parseDurationNanoseconds(input);
    return true;
  } catch (error) {
    if (isDurationParseError(error)) return false;
    throw error;
  }
}

/**
 * Go's Duration.String: `1h0m0s`, `1.5s`, `300ms`, `1µs`, `0s`. Accepts any signed 64-bit count of
 * nanoseconds.
 */
export function formatDuration(nanoseconds: bigint | number): string {
  let n = BigInt(nanoseconds);
  if (n > MAX_DURATION_NANOSECONDS || n < MIN_DURATION_NANOSECONDS) {
    throw new RangeError(`duration ${n}ns is outside the signed 64-bit range`);
  }
  const negative = n < 0n;
  if (negative) n = -n;
  let text: string;
  if (n < 1_000_000_000n) {
    // Under a second: the largest unit that keeps a whole part, with a fraction.
    if (n === 0n) return '0s';
    if (n < 1_000n) text = `${n}ns`;
    else if (n < 1_000_000n) text = `${withFraction(n, 3)}µs`;
    else text = `${withFraction(n, 6)}ms`;
  } else {
    const seconds = n / 1_000_000_000n;
    const secondsText = `${withFraction(n % 60_000_000_000n, 9)}s`;
    const minutes = seconds / 60n;
    if (minutes === 0n) text = secondsText;
    else {
      const hours = minutes / 60n;
      text = `${hours > 0n ? `${hours}h` : ''}${minutes % 60n}m${secondsText}`;
    }
  }
  return negative ? `-${text}` : text;
}

// `value / 10^digits` with the fraction's trailing zeros (and a bare point) left out.
function withFraction(value: bigint, digits: number): string {
  const divisor = 10n ** BigInt(digits);
  const whole = value / divisor;
  const fraction = (value % divisor).toString().padStart(digits, '0').replace(/0+$/, '');
  return fraction === '' ? `${whole}` : `${whole}.${fraction}`;
}
