/** The regex library: `matches`, `find` and `findAll` over RE2 syntax, costing length(pattern) x length(input). */
import type { Environment } from '@marcbachmann/cel-js';
import { type Regex, RegexSyntaxError, compileRegex } from '../../regex/index.js';
import { regexCost, spend } from '../cost.js';
import { defineFunction, fail } from './register.js';

/** The compiled pattern; a runtime error when RE2 refuses it. */
function regexFor(pattern: string): Regex {
  try {
    return compileRegex(pattern);
  } catch (e) {
    return fail(e instanceof RegexSyntaxError ? e.message : String(e));
  }
}

function matches(input: string, pattern: string): boolean {
  spend(regexCost(pattern.length, input.length));
  return regexFor(pattern).test(input);
}

function find(input: string, pattern: string): string {
  spend(regexCost(pattern.length, input.length));
  return regexFor(pattern).find(input);
}

/** Go's FindAllString: a negative limit means all. */
function findAll(input: string, pattern: string, limit: bigint): string[] {
  spend(regexCost(pattern.length, input.length));
  if (limit === 0n) return [];
  return regexFor(pattern).findAll(input, limit < 0n || limit > BigInt(input.length + 1) ? -1 : Number(limit));
}

export function registerRegex(env: Environment): void {
  defineFunction(env, 'string.svc__matches(string): bool', matches);
  defineFunction(env, 'svc__matches(string, string): bool', matches);
  defineFunction(env, 'string.find(string): string', find);
  defineFunction(env, 'string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n));
  defineFunction(env, 'string.findAll(string, int): list<string>', findAll);
}
