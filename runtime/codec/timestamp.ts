import { ProtobufCodecError } from './protobuf-errors.js';

/**
 * RFC 3339 timestamps as the real system's `Time {seconds, nanos}`. Parsing accepts what Go's
 * RFC 3339 parser accepts for years 0000-9999 (any offset, any number of fraction digits, the
 * nanoseconds truncated); formatting gives the canonical UTC form: no fraction when the
 * nanoseconds are zero, otherwise the fewest of 3, 6 or 9 digits that are exact.
 */
export interface Timestamp {
  seconds: number;
  nanos: number;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the years an RFC 3339 timestamp can spell.
const MIN_SECONDS = -62167219200;
const MAX_SECONDS = 253402300799;

const encodeError = (detail: string): ProtobufCodecError => new ProtobufCodecError('encode', '', detail);

export function parseTimestamp(text: string): Timestamp {
  const canonical = parseCanonical(text);
  if (canonical !== undefined) return { seconds: canonical, nanos: 0 };
  const m = RFC3339.exec(text);
  if (!m) throw encodeError(`${JSON.stringify(text)} is not an RFC 3339 timestamp such as 2024-01-02T15:04:05Z`);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    throw encodeError(`${JSON.stringify(text)} is not a valid date and time`);
  }
  let offset = 0;
  if (m[8]) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) throw encodeError(`${JSON.stringify(text)} has an invalid offset`);
    offset = (m[8] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) throw encodeError(`${JSON.stringify(text)} is outside the years 0000-9999`);
  const nanos = m[7] ? Number(m[7].slice(0, 9).padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

/**
 * The seconds of the canonical form `2024-01-02T15:04:05Z` (what the server writes, so nearly every
 * timestamp), read digit by digit; undefined for any other form (then the expression decides).
 */
function parseCanonical(text: string): number | undefined {
  if (text.length !== 20 || text.charCodeAt(19) !== 0x5a) return undefined;
  if (text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d || text.charCodeAt(10) !== 0x54) return undefined;
  if (text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a) return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return undefined;
  }
  if (day > daysInMonth(year, month)) return undefined;
  return daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
}

/** The decimal number of `count` digits at `start`, or -1 when one is not a digit. */
function digits(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const d = text.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

// The last timestamp formatted: the times of one object often repeat (creation, start, conditions).
let lastSeconds = Number.NaN;
let lastText = '';
// The date of the last day formatted: the times of one list mostly fall on a few days.
let lastDays = Number.NaN;
let lastYear = 0;
let lastMonth = 0;
let lastDay = 0;

export function formatTimestamp(seconds: number, nanos: number): string {
  if (nanos === 0 && seconds === lastSeconds) return lastText;
  const days = Math.floor(seconds / 86400);
  const rest = seconds - days * 86400;
  if (days !== lastDays) {
    [lastYear, lastMonth, lastDay] = civilFromDays(days);
    lastDays = days;
  }
  const year = lastYear;
  const month = lastMonth;
  const day = lastDay;
  const hour = (rest / 3600) | 0;
  const minute = ((rest % 3600) / 60) | 0;
  const second = rest % 60;
  // One flat string from its character codes: a template would build a tree of ten pieces.
  const date = String.fromCharCode(
    d((year / 1000) | 0),
    d(((year / 100) | 0) % 10),
    d(((year / 10) | 0) % 10),
    d(year % 10),
    0x2d,
    d((month / 10) | 0),
    d(month % 10),
    0x2d,
    d((day / 10) | 0),
    d(day % 10),
    0x54,
    d((hour / 10) | 0),
    d(hour % 10),
    0x3a,
    d((minute / 10) | 0),
    d(minute % 10),
    0x3a,
    d((second / 10) | 0),
    d(second % 10),
    0x5a,
  );
  const text = nanos === 0 ? date : `${date.slice(0, 19)}${fraction(nanos)}Z`;
  if (nanos === 0) {
    lastSeconds = seconds;
    lastText = text;
  }
  return text;
}

/** The character code of digit `n`. */
function d(n: number): number {
  return 0x30 + n;
}

function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) return `.${digits.slice(0, 3)}`;
  if (nanos % 1_000 === 0) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// Days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant's algorithms): exact
// for every year, unlike Date.UTC, which maps years 0-99 to 1900-1999.
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}
