/**
 * Parses a `Warning` header (RFC 7234 section 5.5): `299 - "text"` items separated by commas. A
 * fetch Headers object joins repeated headers with ", ", so the text of each item is read as a
 * quoted string rather than split on commas.
 */
export function parseWarningHeader(value: string | null): string[] {
  if (!value) return [];
  const out: string[] = [];
  let i = 0;
  while (i < value.length) {
    const item = /^\s*,?\s*(\d{3})\s+(\S+)\s+"/.exec(value.slice(i));
    if (!item) break;
    i += item[0].length;
    let text = '';
    while (i < value.length && value[i] !== '"') {
      if (value[i] === '\\' && i + 1 < value.length) i++;
      text += value[i];
      i++;
    }
    i++; // closing quote
    // An optional quoted date follows the text.
    const date = /^\s+"[^"]*"/.exec(value.slice(i));
    if (date) i += date[0].length;
    out.push(text);
  }
  return out;
}
