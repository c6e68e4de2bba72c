/**
 * Parses a `Warning` header (RFC 7234 section 5.5): `299 - "text"` items separated by commas. A
 * fetch Headers object joins repeated headers with ", ", so the text of each item is read as a
 * quoted string rather than split on commas.
 */
export function parseWarningHeader(header: string | null): string[] {
  if (!header) return [];
  const value = utf8Text(header);
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

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Servers write warning text as UTF-8 (upstream's NewWarningHeader), and fetch hands a header over
 * byte per character: read those bytes as UTF-8 again. Bytes that are not UTF-8 stay as they came.
 */
function utf8Text(header: string): string {
  if (!/[\u0080-\u00ff]/.test(header) || /[^\u0000-\u00ff]/.test(header)) return header;
  try {
    return UTF8.decode(Uint8Array.from(header, (c) => c.charCodeAt(0)));
  } catch {
    return header;
  }
}
