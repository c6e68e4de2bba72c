/** JSON Pointer (RFC 6901): parsing into reference tokens and reading array indexes. */

export type ParsedPointer = { ok: true; tokens: string[] } | { ok: false; problem: string };

/** Splits a pointer into unescaped reference tokens; `''` is the whole document. */
export function parsePointer(pointer: string): ParsedPointer {
  if (pointer === '') return { ok: true, tokens: [] };
  if (!pointer.startsWith('/')) return { ok: false, problem: `pointer ${JSON.stringify(pointer)} must be empty or start with "/"` };
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    if (/~(?![01])/.test(raw)) {
      return { ok: false, problem: `pointer ${JSON.stringify(pointer)} has "~" not followed by 0 or 1` };
    }
    // ~1 first, then ~0: "~01" is the token "~1", not "/" (RFC 6901 section 4).
    tokens.push(raw.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return { ok: true, tokens };
}

/** The array index a token names: decimal digits without leading zeros, so not "01", "1e0" or "-1". */
export function arrayIndexOf(token: string): number | undefined {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
  const index = Number(token);
  return Number.isSafeInteger(index) ? index : undefined;
}

/** True when `prefix` names a proper ancestor of `tokens`. */
export function isProperPrefix(prefix: readonly string[], tokens: readonly string[]): boolean {
  return prefix.length < tokens.length && prefix.every((t, i) => t === tokens[i]);
}
