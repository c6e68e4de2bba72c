/**
 * Property names as expressions see them. Only names matching `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*` are
 * accessible; `__`, `.`, `-` and `/` are spelled `__underscores__`, `__dot__`, `__dash__` and
 * `__slash__`, and a name that is exactly a reserved word is spelled `__<word>__`.
 */

/** Words that cannot be used as a field name in an expression (CEL's reserved identifiers). */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

const ACCESSIBLE = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;

const ESCAPES: Record<string, string> = {
  __: '__underscores__',
  '.': '__dot__',
  '-': '__dash__',
  '/': '__slash__',
};

/** The name an expression uses for a property, or undefined when the property is not accessible. */
export function escapePropertyName(name: string): string | undefined {
  if (!ACCESSIBLE.test(name)) return undefined;
  if (RESERVED_WORDS.has(name)) return `__${name}__`;
  return name.replace(/__|[./-]/g, (s) => ESCAPES[s] ?? s);
}

const UNESCAPES: Record<string, string> = {
  __underscores__: '__',
  __dot__: '.',
  __dash__: '-',
  __slash__: '/',
};

/** The property name behind an escaped name (the inverse of escapePropertyName). */
export function unescapePropertyName(escaped: string): string {
  const word = /^__([a-z]+)__$/.exec(escaped)?.[1];
  if (word !== undefined && RESERVED_WORDS.has(word)) return word;
  return escaped.replace(/__(?:underscores|dot|dash|slash)__/g, (s) => UNESCAPES[s] ?? s);
}
