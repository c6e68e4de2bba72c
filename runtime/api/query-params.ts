import { goQuote } from './go-quote.js';
import { badRequest } from './status-error.js';

// Query parameters as kube-apiserver reads them: Go's `url.ParseQuery`, then apimachinery's
// conversions of `url.Values` into option structs (pkg/runtime/conversion.go). Every scalar
// option takes the first value of a repeated parameter; unknown parameters are ignored.

/**
 * Go's `url.ParseQuery`: pairs split on `&`, `+` is a space, and a pair holding a `;` or an
 * invalid percent-escape is dropped (Go's server reads the rest of the query).
 */
export function parseQuery(raw: string): URLSearchParams {
  const out = new URLSearchParams();
  for (const pair of raw.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const value = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (key !== undefined && value !== undefined) out.append(key, value);
  }
  return out;
}

/** Go's `url.QueryUnescape`; undefined for a malformed escape. Invalid UTF-8 becomes U+FFFD. */
function queryUnescape(s: string): string | undefined {
  if (!s.includes('%')) return s.replaceAll('+', ' ');
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else if (c === '+') bytes.push(0x20);
    else bytes.push(...new TextEncoder().encode(c));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/**
 * A bool option (`watch`, `allowWatchBookmarks`, `sendInitialEvents`, `force`,
 * `orphanDependents`), as upstream's `Convert_Slice_string_To_bool`: absent is undefined; `0` and
 * `false` in any case are false; anything else, the empty value (`?watch`) included, is true.
 */
export function queryBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  // Go's strings.EqualFold folds `ſ` to `s` as toUpperCase does.
  return !(v === '0' || v.toUpperCase() === 'FALSE');
}

/**
 * An integer option (`limit`, `timeoutSeconds`, `gracePeriodSeconds`), as upstream's
 * `strconv.ParseInt(v, 10, 64)`: an optional sign and decimal digits, in int64's range; anything
 * else, the empty value included, is a 400 with Go's error text. Absent is undefined.
 */
export function queryInt64(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  const problem = !/^[+-]?[0-9]+$/.test(v) ? 'invalid syntax' : !inInt64(BigInt(v)) ? 'value out of range' : undefined;
  if (problem) throw badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: ${problem}`);
  return Number(v);
}

function inInt64(n: bigint): boolean {
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

/**
 * Go's `strconv.ParseBool`, which `pretty` uses: undefined for anything else (upstream then
 * treats the value as false).
 */
export function parseGoBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}
