/**
 * Checks of the string formats the schemas use; each returns true when the text is well-formed.
 * Durations and quantities are runtime/api's parsers' (isDuration, isQuantity), re-exported by the face.
 */

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * An RFC 3339 timestamp (`2024-05-01T12:00:00Z`, `...00.5+02:00`; `t`, `z` and a space are
 * accepted as RFC 3339 allows), checked as Go's time.Parse does: the day must exist in its month
 * (no February 30th), hours 00-23, minutes and seconds 00-59.
 */
export function isDateTime(s: string): boolean {
  const n = s.length;
  if (n < 20 || !dateAtStart(s)) return false;
  const t = s.charCodeAt(10);
  if (t !== 84 /* T */ && t !== 116 /* t */ && t !== 32 /* space */) return false;
  if (s.charCodeAt(13) !== 58 /* : */ || s.charCodeAt(16) !== 58) return false;
  if (!twoDigitsIn(s, 11, 23) || !twoDigitsIn(s, 14, 59) || !twoDigitsIn(s, 17, 59)) return false;
  let i = 19;
  if (s.charCodeAt(i) === 46 /* . */) {
    i++;
    const start = i;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
    if (i === start) return false;
  }
  const zone = s.charCodeAt(i);
  if (zone === 90 /* Z */ || zone === 122 /* z */) return i + 1 === n;
  if (zone !== 43 /* + */ && zone !== 45 /* - */) return false;
  return i + 6 === n && s.charCodeAt(i + 3) === 58 && twoDigitsIn(s, i + 1, 23) && twoDigitsIn(s, i + 4, 59);
}

/** A full date, `YYYY-MM-DD`, that exists in the calendar. */
export function isDate(s: string): boolean {
  return s.length === 10 && dateAtStart(s);
}

/** `YYYY-MM-DD` at the start of `s`, a day that exists. */
function dateAtStart(s: string): boolean {
  if (s.charCodeAt(4) !== 45 /* - */ || s.charCodeAt(7) !== 45) return false;
  const century = twoDigits(s, 0);
  const yy = twoDigits(s, 2);
  const month = twoDigits(s, 5);
  const day = twoDigits(s, 8);
  const year = century * 100 + yy;
  return century >= 0 && yy >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Two digits at `i` writing a number from 0 to `max`. */
function twoDigitsIn(s: string, i: number, max: number): boolean {
  const v = twoDigits(s, i);
  return v >= 0 && v <= max;
}

/** The number written by two digits at `i`, or -1. */
function twoDigits(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Whether Go's base64.StdEncoding decodes `s` (it skips line breaks). */
export function isBase64(s: string): boolean {
  return BASE64.test(s) || (/[\r\n]/.test(s) && BASE64.test(s.replace(/[\r\n]/g, '')));
}

/**
 * Why Go's base64.StdEncoding refuses `s` (`illegal base64 data at input byte N`, the offset as
 * its decoder reports it), or undefined when it decodes. Line breaks are skipped, as Go does.
 */
export function base64Error(s: string): string | undefined {
  const offset = base64ErrorOffset(s);
  return offset === undefined ? undefined : `illegal base64 data at input byte ${offset}`;
}

const BASE64_ALPHABET = /[A-Za-z0-9+/]/;

function base64ErrorOffset(s: string): number | undefined {
  let si = 0;
  while (si < s.length) {
    // One quantum of four characters, as Go's decodeQuantum reads it.
    let j = 0;
    while (j < 4) {
      while (si < s.length && (s[si] === '\n' || s[si] === '\r')) si++;
      if (si === s.length) return j === 0 ? undefined : si - j;
      const c = s[si]!;
      si++;
      if (c === '=') {
        // Padding: only in the last two places of a quantum, and nothing after it.
        if (j < 2) return si - 1;
        if (j === 2) {
          while (si < s.length && (s[si] === '\n' || s[si] === '\r')) si++;
          if (si === s.length) return s.length;
          if (s[si] !== '=') return si - 1;
          si++;
        }
        while (si < s.length && (s[si] === '\n' || s[si] === '\r')) si++;
        return si < s.length ? si : undefined;
      }
      if (!BASE64_ALPHABET.test(c)) return si - 1;
      j++;
    }
  }
  return undefined;
}

/** A duration that is zero however it is written (`0`, `0s`, `0m0s`, `0.0h`): upstream's zero value. */
export function isZeroDuration(v: unknown): boolean {
  return typeof v === 'string' && (v === '0' || /^[-+]?((0+(\.0*)?|\.0+)(ns|us|µs|μs|ms|s|m|h))+$/.test(v));
}
