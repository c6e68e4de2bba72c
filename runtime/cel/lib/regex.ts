/** The regex library: `matches`, `find` and `findAll` over RE2 syntax, costing length(pattern) x length(input). */
import type { Environment } from '@marcbachmann/cel-js';
import { regexCost, spend } from '../cost.js';
import { compileRe2, Re2SyntaxError } from './re2.js';
import { defineFunction, fail } from './register.js';

const CACHE_LIMIT = 1000;
const cache = new Map<string, RegExp>();

/** The compiled pattern, cached; a runtime error when the pattern is invalid. */
function regexFor(pattern: string): RegExp {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let re: RegExp;
  try {
    re = compileRe2(pattern);
  } catch (e) {
    return fail(e instanceof Re2SyntaxError ? e.message : String(e));
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, re);
  return re;
}

/** The reason a pattern is rejected, or undefined when it compiles; used at compile time for literal patterns. */
export function patternError(pattern: string): string | undefined {
  try {
    compileRe2(pattern);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

function matches(input: string, pattern: string): boolean {
  spend(regexCost(pattern.length, input.length));
  return regexFor(pattern).test(input);
}

function find(input: string, pattern: string): string {
  spend(regexCost(pattern.length, input.length));
  return regexFor(pattern).exec(input)?.[0] ?? '';
}

/** Go's FindAllString: n < 0 means all; an empty match right after the previous match is skipped. */
function findAll(input: string, pattern: string, limit: bigint): string[] {
  spend(regexCost(pattern.length, input.length));
  if (limit === 0n) return [];
  const base = regexFor(pattern);
  const re = new RegExp(base.source, `${base.flags}g`);
  const out: string[] = [];
  let previousEnd = -1;
  for (let m = re.exec(input); m; m = re.exec(input)) {
    const text = m[0];
    if (text === '') {
      // Advance past the empty match by one code point, as the global flag does not.
      re.lastIndex += (input.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1;
      if (m.index === previousEnd) continue;
    }
    out.push(text);
    previousEnd = m.index + text.length;
    if (limit > 0n && BigInt(out.length) >= limit) break;
    if (m.index >= input.length) break;
  }
  return out;
}

export function registerRegex(env: Environment): void {
  defineFunction(env, 'string.svc__matches(string): bool', matches);
  defineFunction(env, 'svc__matches(string, string): bool', matches);
  defineFunction(env, 'string.find(string): string', find);
  defineFunction(env, 'string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n));
  defineFunction(env, 'string.findAll(string, int): list<string>', findAll);
}
