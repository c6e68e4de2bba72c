/** Checks of the string formats the schemas use; each returns true when the text is well-formed. */

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
// Go's time.ParseDuration: a sequence of decimal numbers with units, optionally signed; "0" alone.
const DURATION = /^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;
// The quantity grammar: sign, number, then a binary suffix, a decimal suffix or an exponent.
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isDateTime(s: string): boolean {
  return DATE_TIME.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T')));
}

export function isDate(s: string): boolean {
  return DATE.test(s) && !Number.isNaN(Date.parse(s));
}

export function isDuration(s: string): boolean {
  return DURATION.test(s);
}

/** A quantity as text (`1Gi`, `500m`, `1e3`) or as a JSON number. */
export function isQuantity(v: unknown): boolean {
  return typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string' && QUANTITY.test(v);
}

export function isBase64(s: string): boolean {
  return BASE64.test(s);
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Integer formats: int32 has its range; int64 is any integer JSON can carry exactly. */
export function fitsIntegerFormat(n: number, format: string | undefined): boolean {
  if (format === 'int32') return n >= INT32_MIN && n <= INT32_MAX;
  return Number.isSafeInteger(n);
}
