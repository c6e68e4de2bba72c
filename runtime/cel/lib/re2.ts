/**
 * Translates RE2 syntax (what CEL's regex functions accept) into an equivalent JavaScript RegExp.
 * Features RE2 does not have (lookaround, backreferences, atomic groups) are rejected with a clear
 * error, instead of silently getting JavaScript's meaning. Leading flag groups such as `(?i)` become
 * RegExp flags; `.` never matches `\n` unless `(?s)`; `\s` is RE2's ASCII white space.
 */

export class Re2SyntaxError extends Error {
  override readonly name = 'Re2SyntaxError';
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`invalid regular expression ${JSON.stringify(pattern)}: ${reason}`);
  }
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const RE2_SPACE = '\\t\\n\\f\\r ';
const SYNTAX_CHARS = new Set('^$\\.*+?()[]{}|/'.split(''));
const MAX_REPEAT = 1000;

/** A code point as an escape JavaScript accepts in Unicode mode. */
const codePointEscape = (cp: number): string => `\\u{${cp.toString(16)}}`;

class Translator {
  private i = 0;
  private out = '';
  private dotAll = false;

  constructor(private readonly p: string) {}

  private fail(reason: string): never {
    throw new Re2SyntaxError(this.p, reason);
  }

  translate(): { source: string; flags: string } {
    const flags = new Set<string>(['u']);
    // Leading flag groups, e.g. (?i) or (?is): the only place flags are supported.
    for (let m = /^\(\?([imsU]+)\)/.exec(this.p.slice(this.i)); m; m = /^\(\?([imsU]+)\)/.exec(this.p.slice(this.i))) {
      for (const f of m[1] ?? '') {
        if (f === 'U') this.fail('the ungreedy flag (?U) is not supported');
        if (f === 's') this.dotAll = true;
        else flags.add(f);
      }
      this.i += m[0].length;
    }
    while (this.i < this.p.length) this.atom();
    return { source: this.out, flags: [...flags].join('') };
  }

  private atom(): void {
    const c = this.p[this.i] ?? '';
    switch (c) {
      case '\\':
        this.out += this.escape(false);
        return;
      case '(':
        this.group();
        return;
      case '[':
        this.charClass();
        return;
      case '.':
        this.i++;
        this.out += this.dotAll ? '[\\s\\S]' : '[^\\n]';
        return;
      case '{':
        this.repeat();
        return;
      case '}':
      case ']':
        this.i++;
        this.out += `\\${c}`;
        return;
      default:
        this.i++;
        this.out += c;
    }
  }

  private group(): void {
    const rest = this.p.slice(this.i);
    if (!rest.startsWith('(?')) {
      this.i++;
      this.out += '(';
      return;
    }
    if (rest.startsWith('(?:')) {
      this.i += 3;
      this.out += '(?:';
      return;
    }
    const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
    if (named) {
      this.i += named[0].length;
      this.out += `(?<${named[1]}>`;
      return;
    }
    if (/^\(\?<?[=!]/.test(rest)) this.fail('lookahead and lookbehind assertions are not supported (RE2 syntax)');
    if (rest.startsWith('(?>')) this.fail('atomic groups are not supported (RE2 syntax)');
    if (/^\(\?[imsU-]+[:)]/.test(rest)) this.fail('flag groups such as (?i) are supported only at the start of the pattern');
    this.fail(`invalid or unsupported group syntax at offset ${this.i}`);
  }

  private repeat(): void {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i));
    if (!m) {
      // RE2 reads a brace that starts no repetition as a literal.
      this.i++;
      this.out += '\\{';
      return;
    }
    const min = Number(m[1]);
    const max = m[3] ? Number(m[3]) : min;
    if (min > MAX_REPEAT || max > MAX_REPEAT) this.fail(`repeat count must be at most ${MAX_REPEAT}`);
    if (m[3] && max < min) this.fail('invalid repeat count');
    this.i += m[0].length;
    this.out += m[0];
  }

  private charClass(): void {
    this.i++;
    let body = '';
    if (this.p[this.i] === '^') {
      body += '^';
      this.i++;
    }
    let first = true;
    for (;;) {
      const c = this.p[this.i];
      if (c === undefined) this.fail('missing closing ]');
      if (c === ']' && !first) break;
      first = false;
      if (c === '[' && this.p[this.i + 1] === ':') {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(this.p.slice(this.i));
        const expansion = m ? POSIX_CLASSES[m[2] ?? ''] : undefined;
        if (!m || expansion === undefined) this.fail(`invalid character class at offset ${this.i}`);
        if (m[1]) this.fail('negated POSIX classes such as [:^alpha:] are not supported');
        body += expansion;
        this.i += m[0].length;
        continue;
      }
      if (c === '\\') {
        body += this.escape(true);
        continue;
      }
      this.i++;
      body += c === '[' || c === ']' || c === '\\' ? `\\${c}` : c;
    }
    this.i++;
    this.out += `[${body}]`;
  }

  /** Translates the escape at `i`; `inClass` when inside brackets (no assertions there). */
  private escape(inClass: boolean): string {
    const c = this.p[this.i + 1];
    if (c === undefined) this.fail('trailing backslash');
    this.i += 2;
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        return `\\${c}`;
      case 's':
        return inClass ? RE2_SPACE : `[${RE2_SPACE}]`;
      case 'S':
        if (inClass) this.fail('\\S inside a character class is not supported');
        return `[^${RE2_SPACE}]`;
      case 'b':
      case 'B':
        if (inClass) this.fail(`\\${c} is not allowed in a character class`);
        return `\\${c}`;
      case 'A':
        if (inClass) this.fail('\\A is not allowed in a character class');
        return '(?<![\\s\\S])';
      case 'z':
        if (inClass) this.fail('\\z is not allowed in a character class');
        return '(?![\\s\\S])';
      case 'a':
        return '\\x07';
      case 'f':
        return '\\f';
      case 't':
        return '\\t';
      case 'n':
        return '\\n';
      case 'r':
        return '\\r';
      case 'v':
        return '\\v';
      case 'p':
      case 'P':
        return this.unicodeClass(c === 'P');
      case 'x':
        return this.hexEscape();
      case 'Q':
        return this.quoted(inClass);
      case 'k':
        this.fail('backreferences are not supported (RE2 syntax)');
    }
    if (c >= '0' && c <= '9') return this.octalEscape(c);
    if (/[A-Za-z]/.test(c)) this.fail(`invalid escape sequence \\${c}`);
    return this.literal(c, inClass);
  }

  private literal(c: string, inClass: boolean): string {
    if (inClass) return '\\]^-['.includes(c) || c === '\\' ? `\\${c}` : c;
    return SYNTAX_CHARS.has(c) ? `\\${c}` : c === '-' ? '-' : codePointEscape(c.codePointAt(0) ?? 0);
  }

  private quoted(inClass: boolean): string {
    const end = this.p.indexOf('\\E', this.i);
    const text = end < 0 ? this.p.slice(this.i) : this.p.slice(this.i, end);
    this.i = end < 0 ? this.p.length : end + 2;
    return Array.from(text, (ch) => (/[A-Za-z0-9]/.test(ch) ? ch : this.literal(ch, inClass))).join('');
  }

  private octalEscape(first: string): string {
    const m = /^[0-7]{0,2}/.exec(this.p.slice(this.i))?.[0] ?? '';
    if (first !== '0' && (first > '7' || m === '')) this.fail('backreferences are not supported (RE2 syntax)');
    this.i += m.length;
    return codePointEscape(Number.parseInt(first + m, 8));
  }

  private hexEscape(): string {
    const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(this.p.slice(this.i));
    const plain = /^[0-9A-Fa-f]{2}/.exec(this.p.slice(this.i));
    const digits = braced?.[1] ?? plain?.[0];
    if (digits === undefined) this.fail('invalid hexadecimal escape');
    this.i += (braced ?? plain)?.[0].length ?? 0;
    const cp = Number.parseInt(digits, 16);
    if (cp > 0x10ffff) this.fail('invalid hexadecimal escape');
    return codePointEscape(cp);
  }

  private unicodeClass(negated: boolean): string {
    const rest = this.p.slice(this.i);
    const m = /^\{(\^?)([A-Za-z_]+)\}/.exec(rest) ?? /^()([A-Za-z])/.exec(rest);
    if (!m) this.fail('invalid Unicode class');
    this.i += m[0].length;
    const name = m[2] ?? '';
    const neg = negated !== (m[1] === '^');
    const property = name === 'Any' ? 'Any' : name.length <= 2 ? name : `Script=${name}`;
    return `\\${neg ? 'P' : 'p'}{${property}}`;
  }
}

/** The JavaScript RegExp for an RE2 pattern; throws Re2SyntaxError when the pattern is invalid or unsupported. */
export function compileRe2(pattern: string): RegExp {
  const { source, flags } = new Translator(pattern).translate();
  try {
    return new RegExp(source, flags);
  } catch (e) {
    throw new Re2SyntaxError(pattern, e instanceof Error ? e.message.replace(/^Invalid regular expression: /, '') : String(e));
  }
}
