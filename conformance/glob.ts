/**
 * Scenario id globs for --focus, --skip and known-failing lists: `*` matches within one id segment,
 * `**` across segments, `?` one character; everything else (including `[` of parameterised ids) is literal.
 * A pattern without a wildcard also matches every id below it (`core/watch` matches `core/watch/x`)
 * and every parameterised instance (`core/get/x` matches `core/get/x[configmaps]`).
 */
export function globToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? '';
    if (c === '*' && pattern[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  const hasWildcard = /[*?]/.test(pattern);
  return new RegExp(hasWildcard ? `^${out}$` : `^${out}(?:/.*|\\[[^\\]]*\\])?$`);
}

export function matchesGlob(id: string, pattern: string): boolean {
  return globToRegExp(pattern).test(id);
}

export function matchesAny(id: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => matchesGlob(id, p));
}
