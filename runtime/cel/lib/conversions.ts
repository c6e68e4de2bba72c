/**
 * Type conversions and timestamp accessors with cel-go's semantics, replacing the library's where
 * they differ: range-checked int/uint conversions, int(timestamp), string(timestamp/duration),
 * invalid UTF-8 rejected by string(bytes), timestamp and duration range limits, identity
 * conversions, and time zones given as fixed offsets (`+11:00`) as well as IANA names.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Duration, durationToNanos, parseGoDuration, UnsignedInt } from '../values.js';
import { defineFunction, fail } from './register.js';

const INT_MAX = 2n ** 63n - 1n;
const INT_MIN = -(2n ** 63n);
const UINT_MAX = 2n ** 64n - 1n;
/** Timestamps span years 0001 to 9999, as protobuf's Timestamp does. */
export const MIN_TIMESTAMP_MS = -62135596800000;
export const MAX_TIMESTAMP_MS = 253402300799999;
/** Durations are int64 nanoseconds in cel-go (about 292 years either way). */
const MAX_DURATION_NANOS = 2n ** 63n - 1n;

const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';

export function checkTimestamp(d: Date): Date {
  const t = d.getTime();
  if (Number.isNaN(t) || t < MIN_TIMESTAMP_MS || t > MAX_TIMESTAMP_MS) fail('timestamp out of range');
  return d;
}

export function checkDuration(d: Duration): Duration {
  const n = durationToNanos(d);
  if (n > MAX_DURATION_NANOS || n < -MAX_DURATION_NANOS - 1n) fail('duration out of range');
  return d;
}

export function checkInt(n: bigint): bigint {
  if (n > INT_MAX || n < INT_MIN) fail('integer overflow');
  return n;
}

function intFromDouble(v: number): bigint {
  // cel-go: the bounds themselves are out of range, since they do not round-trip.
  if (!Number.isFinite(v) || v <= -(2 ** 63) || v >= 2 ** 63) fail('integer overflow');
  return BigInt(Math.trunc(v));
}

function uintFromDouble(v: number): UnsignedInt {
  if (!Number.isFinite(v) || v < 0 || v >= 2 ** 64) fail('unsigned integer overflow');
  return new UnsignedInt(BigInt(Math.trunc(v)));
}

function parseInteger(s: string, what: 'int' | 'uint'): bigint {
  if (!/^[+-]?\d+$/.test(s)) fail(`${what}() conversion error: invalid string ${JSON.stringify(s)}`);
  const n = BigInt(s);
  if (what === 'int' ? n > INT_MAX || n < INT_MIN : n < 0n || n > UINT_MAX) fail(`${what}() conversion error: out of range`);
  return n;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

export function parseRfc3339(s: string): Date {
  const m = RFC3339.exec(s);
  if (!m) return fail(`timestamp() conversion error: invalid RFC 3339 timestamp ${JSON.stringify(s)}`);
  const [, y, mo, d, h, mi, sec, frac = '', sign, oh = '0', om = '0'] = m;
  const ms = Date.UTC(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), Number(frac.padEnd(3, '0').slice(0, 3)));
  const date = new Date(ms);
  date.setUTCFullYear(Number(y));
  if (date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d))
    fail(`timestamp() conversion error: invalid date ${JSON.stringify(s)}`);
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) : 0;
  return checkTimestamp(new Date(date.getTime() - offset * 60_000));
}

/** RFC 3339 in UTC with the fraction trimmed, as Go prints timestamps. */
export function formatTimestamp(d: Date): string {
  const iso = d.toISOString();
  const year = d.getUTCFullYear();
  const body = iso.replace(/^[+-]?\d+/, String(year).padStart(4, '0')).replace(/\.(\d+)Z$/, (_, f: string) => {
    const trimmed = f.replace(/0+$/, '');
    return trimmed ? `.${trimmed}Z` : 'Z';
  });
  return body;
}

/** Seconds with the fraction trimmed: `1000000s`, `1.5s`, `-0.000001s`. */
export function formatDuration(d: Duration): string {
  const total = durationToNanos(d);
  const negative = total < 0n;
  const abs = negative ? -total : total;
  const seconds = abs / 1_000_000_000n;
  const nanos = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${seconds}${nanos ? `.${nanos}` : ''}s`;
}

function bytesToString(b: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    return fail('string() conversion error: invalid UTF-8');
  }
}

function formatDouble(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Number.isNaN(v)) return 'NaN';
  return String(v);
}

/** Calendar fields of a timestamp in a time zone: an IANA name, or a fixed offset such as `-02:30`. */
interface Fields {
  year: number;
  month: number;
  day: number;
  weekday: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function fieldsIn(d: Date, zone: string | undefined): Fields {
  const offset = zone === undefined ? 0 : /^([+-]?)(\d{2}):(\d{2})$/.exec(zone);
  if (offset === 0 || offset) {
    const minutes = offset ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) : 0;
    const s = new Date(d.getTime() + minutes * 60_000);
    return {
      year: s.getUTCFullYear(),
      month: s.getUTCMonth(),
      day: s.getUTCDate(),
      weekday: s.getUTCDay(),
      hour: s.getUTCHours(),
      minute: s.getUTCMinutes(),
      second: s.getUTCSeconds(),
    };
  }
  let f = formatters.get(zone ?? '');
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        weekday: 'short',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      return fail(`invalid time zone ${JSON.stringify(zone)}`);
    }
    formatters.set(zone ?? '', f);
  }
  const parts = Object.fromEntries(f.formatToParts(d).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month) - 1,
    day: Number(parts.day),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

function dayOfYear(f: Fields): number {
  return Math.round((Date.UTC(f.year, f.month, f.day) - Date.UTC(f.year, 0, 1)) / 86_400_000);
}

const ACCESSORS: Record<string, (f: Fields, d: Date) => number> = {
  getFullYear: (f) => f.year,
  getMonth: (f) => f.month,
  getDate: (f) => f.day,
  getDayOfMonth: (f) => f.day - 1,
  getDayOfWeek: (f) => f.weekday,
  getDayOfYear: (f) => dayOfYear(f),
  getHours: (f) => f.hour,
  getMinutes: (f) => f.minute,
  getSeconds: (f) => f.second,
  getMilliseconds: (_, d) => d.getUTCMilliseconds(),
};

const DURATION_ACCESSORS: Record<string, (nanos: bigint) => bigint> = {
  getHours: (n) => n / 3_600_000_000_000n,
  getMinutes: (n) => n / 60_000_000_000n,
  getSeconds: (n) => n / 1_000_000_000n,
  getMilliseconds: (n) => n / 1_000_000n,
};

export function registerConversions(env: Environment): void {
  defineFunction(env, 'svc__int(int): int', (v: bigint) => v);
  defineFunction(env, 'svc__int(uint): int', (v: UnsignedInt) => checkInt(v.valueOf()));
  defineFunction(env, 'svc__int(double): int', intFromDouble);
  defineFunction(env, 'svc__int(string): int', (s: string) => parseInteger(s, 'int'));
  defineFunction(env, `svc__int(${TS}): int`, (d: Date) => BigInt(Math.floor(d.getTime() / 1000)));
  defineFunction(env, 'svc__uint(uint): uint', (v: UnsignedInt) => v);
  defineFunction(env, 'svc__uint(int): uint', (v: bigint) => (v < 0n ? fail('unsigned integer overflow') : new UnsignedInt(v)));
  defineFunction(env, 'svc__uint(double): uint', uintFromDouble);
  defineFunction(env, 'svc__uint(string): uint', (s: string) => new UnsignedInt(parseInteger(s, 'uint')));
  defineFunction(env, 'svc__string(string): string', (s: string) => s);
  defineFunction(env, 'svc__string(bool): string', (b: boolean) => String(b));
  defineFunction(env, 'svc__string(int): string', (n: bigint) => n.toString());
  defineFunction(env, 'svc__string(uint): string', (n: UnsignedInt) => n.valueOf().toString());
  defineFunction(env, 'svc__string(double): string', formatDouble);
  defineFunction(env, 'svc__string(bytes): string', bytesToString);
  defineFunction(env, `svc__string(${TS}): string`, formatTimestamp);
  defineFunction(env, `svc__string(${DUR}): string`, formatDuration);
  defineFunction(env, `svc__timestamp(string): ${TS}`, parseRfc3339);
  defineFunction(env, `svc__timestamp(int): ${TS}`, (s: bigint) =>
    s * 1000n < BigInt(MIN_TIMESTAMP_MS) || s * 1000n > BigInt(MAX_TIMESTAMP_MS)
      ? fail('timestamp out of range')
      : new Date(Number(s) * 1000),
  );
  defineFunction(env, `svc__timestamp(${TS}): ${TS}`, (d: Date) => d);
  defineFunction(env, `svc__duration(string): ${DUR}`, (s: string) =>
    checkDuration(parseGoDuration(s) ?? fail(`duration() conversion error: invalid duration ${JSON.stringify(s)}`)),
  );
  defineFunction(env, `svc__duration(${DUR}): ${DUR}`, (d: Duration) => d);
  for (const op of ['<', '<=', '>', '>=']) {
    env.registerOperator(`bytes ${op} bytes`, (a: Uint8Array, b: Uint8Array) => {
      const c = Buffer.compare(a, b);
      return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
    });
  }
  for (const [name, get] of Object.entries(ACCESSORS)) {
    defineFunction(env, `${TS}.svc__${name}(): int`, (d: Date) => BigInt(get(fieldsIn(d, undefined), d)));
    defineFunction(env, `${TS}.svc__${name}(string): int`, (d: Date, tz: string) => BigInt(get(fieldsIn(d, tz), d)));
  }
  for (const [name, get] of Object.entries(DURATION_ACCESSORS)) {
    defineFunction(env, `${DUR}.svc__${name}(): int`, (d: Duration) => get(durationToNanos(d)));
  }
}

/** Results of arithmetic that left the int64, timestamp or duration range are errors, as in cel-go. */
export function checkArithmeticResult(v: unknown): void {
  if (typeof v === 'bigint') checkInt(v);
  else if (v instanceof Date) checkTimestamp(v);
  else if (v instanceof Duration) checkDuration(v);
}
