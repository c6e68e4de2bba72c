/**
 * Regular expressions as Kubernetes reads them: RE2 syntax and Go's regexp semantics, for OpenAPI
 * `pattern` and CEL's `matches`, `find` and `findAll`. re2js (a port of RE2/J) parses by Go's
 * regexp/syntax rules, refuses with its messages (`error parsing regexp: ...`), and matches in
 * linear time, so a hostile pattern in a CRD cannot stall the server (docs/decisions.md).
 */
import { RE2JS, RE2JSSyntaxException } from 're2js';

/** A compiled RE2 pattern. */
export interface Regex {
  /** Whether the pattern matches anywhere in `text` (Go's MatchString). */
  test(text: string): boolean;
  /** The leftmost match, or '' when there is none (Go's FindString). */
  find(text: string): string;
  /** Up to `limit` successive matches, all of them when `limit` < 0 (Go's FindAllString). */
  findAll(text: string, limit: number): string[];
}

/** A pattern RE2 refuses; the message is Go's `regexp.Compile` error. */
export class RegexSyntaxError extends Error {
  override readonly name = 'RegexSyntaxError';
}

const CACHE_LIMIT = 1000;
const cache = new Map<string, Regex>();

/** The compiled pattern, cached; throws RegexSyntaxError when RE2 refuses it. */
export function compileRegex(pattern: string): Regex {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (e) {
    throw new RegexSyntaxError(goMessage(pattern, e));
  }
  const re2 = compiled.re2();
  const regex: Regex = {
    test: (text) => re2.match(text),
    find: (text) => re2.find(text),
    findAll: (text, limit) => re2.findAll(text, limit) ?? [],
  };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, regex);
  return regex;
}

/**
 * A Regex compiled on its first use. Generated validators declare every pattern of their module at
 * load, most of which a process never tests; the generator has refused the invalid ones already.
 */
export function lazyRegex(pattern: string): Regex {
  let compiled: Regex | undefined;
  const regex = (): Regex => {
    compiled ??= compileRegex(pattern);
    return compiled;
  };
  return {
    test: (text) => regex().test(text),
    find: (text) => regex().find(text),
    findAll: (text, limit) => regex().findAll(text, limit),
  };
}

/** Errors whose text Go's parser reports as the whole pattern (re2js leaves it out). */
const WHOLE_PATTERN = new Set(['expression too large', 'expression nests too deeply']);

/** Go's syntax.Error text: `error parsing regexp: <code>: `<expr>``, always with the expression. */
function goMessage(pattern: string, e: unknown): string {
  if (!(e instanceof RE2JSSyntaxException)) return e instanceof Error ? e.message : String(e);
  const expr = e.input ?? (WHOLE_PATTERN.has(e.error) ? pattern : '');
  return `error parsing regexp: ${e.error}: \`${expr}\``;
}

/** Go's error for a pattern RE2 refuses, or undefined when it compiles. */
export function regexError(pattern: string): string | undefined {
  try {
    compileRegex(pattern);
    return undefined;
  } catch (e) {
    if (e instanceof RegexSyntaxError) return e.message;
    throw e;
  }
}
