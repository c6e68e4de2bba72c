/**
 * Bytes literals decoded from their source text. The parser turns every character of a bytes
 * literal into one byte (so `b'ÿ'` becomes 0xFF); CEL encodes characters as UTF-8 and only
 * escapes (`\xFF`, `\377`) denote single bytes.
 */

const SIMPLE: Record<string, number> = {
  '\\': 0x5c,
  '?': 0x3f,
  '"': 0x22,
  "'": 0x27,
  '`': 0x60,
  a: 0x07,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  v: 0x0b,
};

/** The bytes of a literal such as `b'abc'`, `B"\xff"` or `b'''x'''`; undefined for anything else. */
export function decodeBytesLiteral(source: string): Uint8Array | undefined {
  const m = /^[bB](?!['"]{0,2}[rR])('''|"""|'|")([\s\S]*)\1$/.exec(source);
  if (!m) return undefined;
  const body = m[2] ?? '';
  const out: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < body.length; ) {
    const c = body[i] ?? '';
    if (c !== '\\') {
      const cp = body.codePointAt(i) ?? 0;
      const ch = String.fromCodePoint(cp);
      out.push(...encoder.encode(ch));
      i += ch.length;
      continue;
    }
    const e = body[i + 1] ?? '';
    const simple = SIMPLE[e];
    if (simple !== undefined) {
      out.push(simple);
      i += 2;
    } else if (e === 'x' || e === 'X') {
      out.push(Number.parseInt(body.slice(i + 2, i + 4), 16));
      i += 4;
    } else if (e >= '0' && e <= '7') {
      out.push(Number.parseInt(body.slice(i + 1, i + 4), 8) & 0xff);
      i += 4;
    } else {
      return undefined;
    }
  }
  return new Uint8Array(out);
}
