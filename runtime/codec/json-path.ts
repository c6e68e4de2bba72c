/**
 * The JSONPath of printer columns, as the real system's jsonpath package reads it: `.a.b`,
 * `['a.b']`, `[0]`, `[-1]`, `[1:3]`, `[*]`, `..name` (recursive descent), and filters
 * `[?(@.type == "Ready")]` with `==`, `!=`, `<`, `<=`, `>`, `>=` or a bare `@.path` (present).
 * An optional surrounding `{...}` is accepted. Missing keys yield no result rather than an error.
 */
import { isObject } from '../json/index.js';

export class JsonPathError extends Error {
  override readonly name = 'JsonPathError';

  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`invalid JSONPath ${JSON.stringify(path)}: ${detail}`);
  }
}

export function isJsonPathError(value: unknown): value is JsonPathError {
  return value instanceof JsonPathError;
}

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'recurse'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start?: number; end?: number }
  | { kind: 'filter'; left: Step[]; op?: string; right?: Step[] | { literal: unknown } };

/** A compiled path: parse once per column, evaluate per object. */
export class JsonPath {
  private readonly steps: Step[];

  constructor(readonly source: string) {
    let text = source.trim();
    if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
    if (text.startsWith('$')) text = text.slice(1);
    this.steps = new Parser(source, text).steps();
  }

  /** Every value the path selects, in document order. */
  evaluate(root: unknown): unknown[] {
    return run(this.steps, [root]);
  }
}

function run(steps: Step[], start: unknown[]): unknown[] {
  let current = start;
  for (const step of steps) current = current.flatMap((v) => apply(step, v));
  return current;
}

function apply(step: Step, value: unknown): unknown[] {
  switch (step.kind) {
    case 'field':
      return isObject(value) && Object.hasOwn(value, step.name) ? [value[step.name]] : [];
    case 'recurse':
      return descendants(value).flatMap((v) => (isObject(v) && Object.hasOwn(v, step.name) ? [v[step.name]] : []));
    case 'wildcard':
      return Array.isArray(value)
        ? value
        : isObject(value)
          ? Object.keys(value)
              .sort()
              .map((k) => value[k])
          : [];
    case 'index': {
      if (!Array.isArray(value)) return [];
      const i = step.index < 0 ? value.length + step.index : step.index;
      return i >= 0 && i < value.length ? [value[i]] : [];
    }
    case 'slice': {
      if (!Array.isArray(value)) return [];
      const clamp = (n: number): number => Math.max(0, Math.min(value.length, n < 0 ? value.length + n : n));
      return value.slice(clamp(step.start ?? 0), clamp(step.end ?? value.length));
    }
    case 'filter': {
      const items = Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [];
      return items.filter((item) => test(step, item));
    }
  }
}

function test(step: Extract<Step, { kind: 'filter' }>, item: unknown): boolean {
  const left = run(step.left, [item]);
  if (step.op === undefined) return left.length > 0;
  const right = step.right === undefined ? [] : 'literal' in step.right ? [step.right.literal] : run(step.right, [item]);
  if (left.length === 0 || right.length === 0) return false;
  const [a, b] = [left[0], right[0]];
  switch (step.op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    default: {
      if (!(typeof a === 'number' && typeof b === 'number') && !(typeof a === 'string' && typeof b === 'string')) return false;
      if (step.op === '<') return a < b;
      if (step.op === '<=') return a <= b;
      if (step.op === '>') return a > b;
      return a >= b;
    }
  }
}

function descendants(value: unknown): unknown[] {
  const out: unknown[] = [value];
  if (Array.isArray(value)) for (const v of value) out.push(...descendants(v));
  else if (isObject(value)) for (const k of Object.keys(value).sort()) out.push(...descendants(value[k]));
  return out;
}

const NAME = /^[A-Za-z0-9_\-/$]+/;

class Parser {
  private pos = 0;

  constructor(
    private readonly source: string,
    private readonly text: string,
  ) {}

  steps(stopAt?: RegExp): Step[] {
    const steps: Step[] = [];
    while (this.pos < this.text.length) {
      if (stopAt?.test(this.text.slice(this.pos))) break;
      const c = this.text[this.pos]!;
      if (c === '.') {
        if (this.text[this.pos + 1] === '.') {
          this.pos += 2;
          steps.push({ kind: 'recurse', name: this.name() });
        } else {
          this.pos++;
          if (this.text[this.pos] === '*') {
            this.pos++;
            steps.push({ kind: 'wildcard' });
          } else if (this.pos < this.text.length && this.text[this.pos] !== '[') steps.push({ kind: 'field', name: this.name() });
        }
      } else if (c === '[') steps.push(this.bracket());
      else if (c === ' ') this.pos++;
      else throw this.error(`unexpected ${JSON.stringify(c)} at ${this.pos}`);
    }
    return steps;
  }

  private name(): string {
    const m = NAME.exec(this.text.slice(this.pos));
    if (!m) throw this.error(`expected a field name at ${this.pos}`);
    this.pos += m[0].length;
    return m[0];
  }

  private bracket(): Step {
    const close = this.text.indexOf(']', this.pos);
    if (this.text.startsWith('[?(', this.pos)) return this.filter();
    if (close < 0) throw this.error('unclosed [');
    const inner = this.text.slice(this.pos + 1, close).trim();
    this.pos = close + 1;
    if (inner === '*') return { kind: 'wildcard' };
    const quoted = /^(['"])(.*)\1$/.exec(inner);
    if (quoted) return { kind: 'field', name: quoted[2]! };
    if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
    const slice = /^(-?\d+)?:(-?\d+)?$/.exec(inner);
    if (slice)
      return {
        kind: 'slice',
        start: slice[1] === undefined ? undefined : Number(slice[1]),
        end: slice[2] === undefined ? undefined : Number(slice[2]),
      };
    throw this.error(`unsupported subscript [${inner}]`);
  }

  private filter(): Step {
    this.pos += 3;
    const left = this.operand();
    this.skipSpaces();
    let op: string | undefined;
    let right: Step[] | { literal: unknown } | undefined;
    const m = /^(==|!=|<=|>=|<|>)/.exec(this.text.slice(this.pos));
    if (m) {
      op = m[1];
      this.pos += m[0].length;
      this.skipSpaces();
      right = this.operand();
    }
    this.skipSpaces();
    if (!this.text.startsWith(')]', this.pos)) throw this.error(`expected )] at ${this.pos}`);
    this.pos += 2;
    if (!Array.isArray(left)) throw this.error('a filter must start with @');
    return { kind: 'filter', left, op, right };
  }

  private operand(): Step[] | { literal: unknown } {
    this.skipSpaces();
    const rest = this.text.slice(this.pos);
    if (rest.startsWith('@')) {
      this.pos++;
      return this.steps(/^\s*(==|!=|<=|>=|<|>|\)\])/);
    }
    const str = /^(['"])((?:\\.|(?!\1).)*)\1/.exec(rest);
    if (str) {
      this.pos += str[0].length;
      return { literal: str[2]!.replace(/\\(.)/g, '$1') };
    }
    const num = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(rest);
    if (num) {
      this.pos += num[0].length;
      return { literal: Number(num[0]) };
    }
    const bool = /^(true|false)\b/.exec(rest);
    if (bool) {
      this.pos += bool[0].length;
      return { literal: bool[0] === 'true' };
    }
    throw this.error(`expected @, a string, a number or a boolean at ${this.pos}`);
  }

  private skipSpaces(): void {
    while (this.text[this.pos] === ' ') this.pos++;
  }

  private error(detail: string): JsonPathError {
    return new JsonPathError(this.source, detail);
  }
}
