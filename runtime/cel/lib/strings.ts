/**
 * The strings extension with cel-go's semantics: indexes count code points, not UTF-16 units;
 * lowerAscii/upperAscii change ASCII letters only; trim removes Unicode white space as Go does.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { COST, spend, traversalCost, valueTraversalCost } from '../cost.js';
import { defineFunction, fail, toIndex } from './register.js';

const codePoints = (s: string): string[] => Array.from(s);

function charAt(s: string, at: bigint): string {
  const runes = codePoints(s);
  const i = toIndex(at);
  if (i < 0 || i > runes.length) fail(`index out of range: ${at}`);
  return runes[i] ?? '';
}

function matchesAt(runes: string[], sub: string[], i: number): boolean {
  for (let j = 0; j < sub.length; j++) if (runes[i + j] !== sub[j]) return false;
  return true;
}

function indexOfFrom(s: string, sub: string, offset: bigint): bigint {
  spend(valueTraversalCost(s));
  if (sub === '') return offset;
  const runes = codePoints(s);
  const subRunes = codePoints(sub);
  const off = toIndex(offset);
  if (off < 0 || off >= runes.length) fail(`index out of range: ${offset}`);
  for (let i = off; i <= runes.length - subRunes.length; i++) if (matchesAt(runes, subRunes, i)) return BigInt(i);
  return -1n;
}

function lastIndexOfFrom(s: string, sub: string, offset: bigint): bigint {
  spend(valueTraversalCost(s));
  if (sub === '') return offset;
  const runes = codePoints(s);
  const subRunes = codePoints(sub);
  let off = toIndex(offset);
  if (off < 0 || off >= runes.length) fail(`index out of range: ${offset}`);
  if (runes.length < subRunes.length) return -1n;
  off = Math.min(off, runes.length - subRunes.length);
  for (let i = off; i >= 0; i--) if (matchesAt(runes, subRunes, i)) return BigInt(i);
  return -1n;
}

function lastIndexOf(s: string, sub: string): bigint {
  const length = codePoints(s).length;
  if (sub === '') return BigInt(length);
  return lastIndexOfFrom(s, sub, BigInt(length - 1));
}

const mapAscii = (s: string, from: RegExp, to: (c: string) => string): string => {
  spend(traversalCost(s.length));
  return s.replace(from, to);
};

/** Go's strings.Replace, n < 0 meaning all; an empty `old` matches before every code point and at the end. */
function replace(s: string, old: string, replacement: string, limit: bigint): string {
  spend(traversalCost(s.length, 2 * COST.stringTraversal));
  if (old === replacement || limit === 0n) return s;
  const n = limit < 0n ? Infinity : Number(limit);
  if (old === '') {
    const runes = codePoints(s);
    let out = '';
    let done = 0;
    for (let i = 0; i <= runes.length; i++) {
      if (done < n) {
        out += replacement;
        done++;
      }
      out += runes[i] ?? '';
    }
    return out;
  }
  let out = '';
  let start = 0;
  for (let done = 0; done < n; done++) {
    const at = s.indexOf(old, start);
    if (at < 0) break;
    out += s.slice(start, at) + replacement;
    start = at + old.length;
  }
  return out + s.slice(start);
}

/** Go's strings.SplitN: n == 0 gives no parts, n < 0 all parts; an empty separator splits code points. */
function split(s: string, sep: string, limit: bigint): string[] {
  spend(traversalCost(s.length, 2 * COST.stringTraversal));
  if (limit === 0n) return [];
  const n = limit < 0n ? Infinity : Number(limit);
  const parts = sep === '' ? codePoints(s) : s.split(sep);
  if (parts.length <= n) return parts;
  const head = parts.slice(0, n - 1);
  head.push(parts.slice(n - 1).join(sep));
  return head;
}

function substring(s: string, start: bigint, end?: bigint): string {
  spend(traversalCost(s.length));
  const runes = codePoints(s);
  const stop = end ?? BigInt(runes.length);
  if (end === undefined && (start < 0n || start > stop)) fail(`index out of range: ${start}`);
  if (start > stop) fail(`invalid substring range. start: ${start}, end: ${stop}`);
  if (start < 0n || start > BigInt(runes.length)) fail(`index out of range: ${start}`);
  if (stop < 0n || stop > BigInt(runes.length)) fail(`index out of range: ${stop}`);
  return runes.slice(Number(start), Number(stop)).join('');
}

/** Go's unicode.IsSpace: ASCII white space, NEL, NBSP and the Unicode space separators. */
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const LEADING_SPACE = new RegExp(`^${GO_SPACE}+`);
const TRAILING_SPACE = new RegExp(`${GO_SPACE}+$`);

function trim(s: string): string {
  spend(traversalCost(s.length));
  return s.replace(LEADING_SPACE, '').replace(TRAILING_SPACE, '');
}

function join(list: readonly unknown[], sep: string): string {
  for (const item of list) if (typeof item !== 'string') fail('join: list must contain only strings');
  // The library charges the result: its length x 0.2.
  const joined = list.join(sep);
  spend(traversalCost(joined.length, 2 * COST.stringTraversal));
  return joined;
}

/** cel-go's strings.quote: a double-quoted CEL string literal. */
function quote(s: string): string {
  spend(traversalCost(s.length));
  let out = '"';
  for (const c of s) {
    switch (c) {
      case '\x07':
        out += '\\a';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\v':
        out += '\\v';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '"':
        out += '\\"';
        break;
      default:
        out += c;
    }
  }
  return `${out}"`;
}

export function registerStrings(env: Environment): void {
  defineFunction(env, 'string.charAt(int): string', charAt);
  defineFunction(env, 'string.svc__indexOf(string): int', (s: string, sub: string) =>
    sub === '' ? 0n : codePoints(s).length === 0 ? -1n : indexOfFrom(s, sub, 0n),
  );
  defineFunction(env, 'string.svc__indexOf(string, int): int', indexOfFrom);
  defineFunction(env, 'string.svc__lastIndexOf(string): int', (s: string, sub: string) =>
    sub !== '' && codePoints(s).length === 0 ? -1n : lastIndexOf(s, sub),
  );
  defineFunction(env, 'string.svc__lastIndexOf(string, int): int', lastIndexOfFrom);
  defineFunction(env, 'string.svc__lowerAscii(): string', (s: string) => mapAscii(s, /[A-Z]+/g, (c) => c.toLowerCase()));
  defineFunction(env, 'string.svc__upperAscii(): string', (s: string) => mapAscii(s, /[a-z]+/g, (c) => c.toUpperCase()));
  defineFunction(env, 'string.replace(string, string): string', (s: string, o: string, r: string) => replace(s, o, r, -1n));
  defineFunction(env, 'string.replace(string, string, int): string', replace);
  defineFunction(env, 'string.svc__split(string): list<string>', (s: string, sep: string) => split(s, sep, -1n));
  defineFunction(env, 'string.svc__split(string, int): list<string>', split);
  defineFunction(env, 'string.svc__substring(int): string', (s: string, start: bigint) => substring(s, start));
  defineFunction(env, 'string.svc__substring(int, int): string', substring);
  defineFunction(env, 'string.svc__trim(): string', trim);
  defineFunction(env, 'list<string>.svc__join(): string', (l: readonly unknown[]) => join(l, ''));
  defineFunction(env, 'list<string>.svc__join(string): string', join);
  defineFunction(env, 'string.reverse(): string', (s: string) => {
    return codePoints(s).reverse().join('');
  });
  env.registerType('StringsNamespace', { ctor: StringsNamespace, fields: {} });
  env.registerConstant('strings', 'StringsNamespace', new StringsNamespace());
  defineFunction(env, 'StringsNamespace.quote(string): string', (_: StringsNamespace, s: string) => quote(s));
}

/** Receiver of `strings.quote(...)`. */
class StringsNamespace {}
