/**
 * Syntax the library's parser does not accept, rewritten before parsing to equivalent syntax it
 * does: raw bytes literals (`br'\d'` becomes `b'\\d'`), doubles with a leading dot (`.5` becomes
 * `0.5`), and optional entries in list and map literals (`[a, ?b]`, `{?'k': v}`).
 *
 * A literal that has an optional entry is rewritten to a call of an
 * internal function over plain literals: `[a, ?b]` becomes `svc__optList([optional.of(a), b])`
 * and `{'j': a, ?'k': b}` becomes `svc__optMap(['j', 'k'], [optional.of(a), b])`. The functions
 * (lib/optionals.ts) keep the entries whose optional has a value, so the checker types the entry
 * as `optional<T>` and the literal as `list<T>` / `map<K, T>`, as cel-go does.
 */
import { INTERNAL_PREFIX } from './lib/register.js';

export const OPTIONAL_LIST = `${INTERNAL_PREFIX}optList`;
export const OPTIONAL_MAP = `${INTERNAL_PREFIX}optMap`;

interface Token {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** True for identifiers, numbers, strings and quoted field names: a `[` or `{` after one selects. */
  readonly operand: boolean;
}

const STRING_PREFIX = /^[rRbB]{1,2}$/;
const IDENT = /[A-Za-z0-9_]/;

function stringEnd(src: string, quoteAt: number, raw: boolean): number {
  const triple = src.startsWith(src[quoteAt]!.repeat(3), quoteAt);
  const close = triple ? src[quoteAt]!.repeat(3) : src[quoteAt]!;
  let i = quoteAt + close.length;
  while (i < src.length) {
    if (!raw && src[i] === '\\') i += 2;
    else if (src.startsWith(close, i)) return i + close.length;
    else if (!triple && src[i] === '\n') return i;
    else i++;
  }
  return src.length;
}

/** Just enough of CEL's lexer to see brackets, commas, colons and `?` outside strings and comments. */
function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '"' || c === "'") {
      const end = stringEnd(src, i, false);
      out.push({ text: src.slice(i, end), start: i, end, operand: true });
      i = end;
    } else if (c === '`') {
      const close = src.indexOf('`', i + 1);
      const end = close < 0 ? src.length : close + 1;
      out.push({ text: src.slice(i, end), start: i, end, operand: true });
      i = end;
    } else if (IDENT.test(c)) {
      let end = i;
      while (end < src.length && IDENT.test(src[end]!)) end++;
      const word = src.slice(i, end);
      if (STRING_PREFIX.test(word) && (src[end] === '"' || src[end] === "'")) end = stringEnd(src, end, /r/i.test(word));
      // `in` is an operator: a `[` after it opens a list literal (`x in [?a, b]`).
      out.push({ text: src.slice(i, end), start: i, end, operand: word !== 'in' });
      i = end;
    } else {
      out.push({ text: c, start: i, end: i + 1, operand: false });
      i++;
    }
  }
  return out;
}

const CLOSER: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };

class Rewriter {
  rewrote = false;
  constructor(
    private readonly src: string,
    private readonly tokens: readonly Token[],
  ) {}

  /** Source text from token `from` up to (not including) token `to`, with nested literals rewritten. */
  span(from: number, to: number): string {
    let out = '';
    let i = from;
    let at = this.tokens[from]?.start ?? 0;
    while (i < to) {
      const t = this.tokens[i]!;
      out += this.src.slice(at, t.start);
      if (CLOSER[t.text]) {
        const close = this.matching(i);
        const previous = this.tokens[i - 1];
        const isLiteral = t.text !== '(' && !(previous && (previous.operand || /[)\]}]/.test(previous.text)));
        out += isLiteral ? this.literal(i, close) : this.plain(i, close);
        at = this.tokens[Math.min(close, to - 1)]!.end;
        i = close + 1;
      } else {
        out += this.spell(i);
        at = t.end;
        i++;
      }
    }
    return out;
  }

  /** A token as the library's lexer accepts it. */
  private spell(i: number): string {
    const t = this.tokens[i]!;
    const raw = /^([rR][bB]|[bB][rR])(['"])/.exec(t.text);
    if (raw) {
      this.rewrote = true;
      return `b${t.text.slice(2).replace(/\\/g, '\\\\')}`;
    }
    const next = this.tokens[i + 1];
    const previous = this.tokens[i - 1];
    const leadingDot = t.text === '.' && next?.start === t.end && /^[0-9]/.test(next.text);
    if (leadingDot && !(previous && (previous.operand || /[)\]}]/.test(previous.text)))) {
      this.rewrote = true;
      return '0.';
    }
    return t.text;
  }

  /** The index of the token closing the bracket at `open` (the last token when unbalanced). */
  private matching(open: number): number {
    let depth = 0;
    for (let i = open; i < this.tokens.length; i++) {
      const t = this.tokens[i]!.text;
      if (CLOSER[t]) depth++;
      else if (t === ')' || t === ']' || t === '}') {
        depth--;
        if (depth === 0) return i;
      }
    }
    return this.tokens.length - 1;
  }

  private plain(open: number, close: number): string {
    const o = this.tokens[open]!;
    const c = this.tokens[close]!;
    if (close === open) return o.text;
    return o.text + this.span(open + 1, close) + this.src.slice(this.tokens[close - 1]!.end, c.start) + c.text;
  }

  /** Entries of a literal: token ranges split at top-level commas, each with its `?` marker. */
  private entries(open: number, close: number): { from: number; to: number; optional: boolean }[] {
    const out: { from: number; to: number; optional: boolean }[] = [];
    let from = open + 1;
    let depth = 0;
    for (let i = open + 1; i <= close; i++) {
      const t = this.tokens[i]!.text;
      if (CLOSER[t]) depth++;
      else if (i < close && (t === ')' || t === ']' || t === '}')) depth--;
      else if (depth === 0 && (t === ',' || i === close)) {
        if (i > from) {
          const optional = this.tokens[from]!.text === '?';
          out.push({ from: optional ? from + 1 : from, to: i, optional });
        }
        from = i + 1;
      }
    }
    return out;
  }

  /** The top-level `:` of a map entry, skipping those of conditional expressions (`a ? b : c`). */
  private colon(from: number, to: number): number {
    let depth = 0;
    let conditionals = 0;
    for (let i = from; i < to; i++) {
      const t = this.tokens[i]!.text;
      if (CLOSER[t]) depth++;
      else if (t === ')' || t === ']' || t === '}') depth--;
      else if (depth === 0 && t === '?' && this.tokens[i - 1]?.text !== '.') conditionals++;
      else if (depth === 0 && t === ':') {
        if (conditionals === 0) return i;
        conditionals--;
      }
    }
    return -1;
  }

  private literal(open: number, close: number): string {
    const entries = close > open && this.tokens[close]!.text === CLOSER[this.tokens[open]!.text] ? this.entries(open, close) : [];
    if (!entries.some((e) => e.optional)) return this.plain(open, close);
    this.rewrote = true;
    const wrap = (text: string, optional: boolean) => (optional ? text : `optional.of(${text})`);
    if (this.tokens[open]!.text === '[') {
      return `${OPTIONAL_LIST}([${entries.map((e) => wrap(this.span(e.from, e.to), e.optional)).join(', ')}])`;
    }
    const keys: string[] = [];
    const values: string[] = [];
    for (const e of entries) {
      const colon = this.colon(e.from, e.to);
      if (colon < 0) return this.plain(open, close);
      keys.push(this.span(e.from, colon));
      values.push(wrap(this.span(colon + 1, e.to), e.optional));
    }
    return `${OPTIONAL_MAP}([${keys.join(', ')}], [${values.join(', ')}])`;
  }
}

/** The expression in syntax the library parses; undefined when nothing needs rewriting. */
export function rewriteSyntax(text: string): string | undefined {
  if (!/[?.]|[rR][bB]|[bB][rR]/.test(text)) return undefined;
  const tokens = tokenize(text);
  const rewriter = new Rewriter(text, tokens);
  const out = rewriter.span(0, tokens.length);
  return rewriter.rewrote ? out : undefined;
}
