/**
 * Go's `%q` (strconv.Quote) for strings: the real system quotes names and bad values this way in
 * its messages, so matching it keeps our messages byte-identical for ordinary input.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    const simple = SIMPLE_ESCAPES.get(ch);
    if (simple !== undefined) out += simple;
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (!isPrintable(cp)) out += cp > 0xffff ? `\\U${hex(cp, 8)}` : `\\u${hex(cp, 4)}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's `%q` of a string slice: `["a" "b"]`. */
export function goQuoteList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

const SIMPLE_ESCAPES = new Map([
  ['"', '\\"'],
  ['\\', '\\\\'],
  ['\x07', '\\a'],
  ['\b', '\\b'],
  ['\f', '\\f'],
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
  ['\v', '\\v'],
]);

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

// Go's unicode.IsPrint, approximated: C1 controls, lone surrogates, separators other than the
// ASCII space, format characters and unassigned code points are not printable.
const NOT_PRINTABLE = /[\p{Cc}\p{Cs}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]|[\p{Zs}]/u;
/** Go's unicode.IsPrint of a code point (approximated, see above). */
export function isPrintable(cp: number): boolean {
  if (cp === 0x20) return true;
  return !NOT_PRINTABLE.test(String.fromCodePoint(cp));
}
