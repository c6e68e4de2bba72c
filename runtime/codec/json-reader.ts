import { isObject } from '../json/index.js';

/**
 * JSON text as the real system's decoder reads it: a key given twice in an object keeps the last
 * value, except that with `mergeDuplicates` (built-in kinds, decoded into Go structs and typed
 * maps, which the decoder fills in place) two objects under the same key are merged, the later
 * one's fields winning. An integer beyond what a JSON number holds exactly (2^53) throws
 * UnsafeIntegerError rather than becoming a silently changed value; text that is not JSON throws
 * the platform parser's SyntaxError, which names the problem.
 */
export function readJson(text: string, mergeDuplicates: boolean): unknown {
  try {
    return new JsonReader(text, mergeDuplicates).document();
  } catch (e) {
    if (e instanceof UnsafeIntegerError) throw e;
    // The reader only reads valid JSON; the platform's parser names the problem.
    return JSON.parse(text);
  }
}

/** An integer a decoded value holds beyond 2^53, at a field path (`spec.items[0].n`, '' for the root). */
export class UnsafeIntegerError extends Error {
  override readonly name = 'UnsafeIntegerError';

  constructor(
    readonly path: string,
    readonly literal: string,
  ) {
    super(`unsafe integer at ${path}`);
  }
}

export function isUnsafeIntegerError(value: unknown): value is UnsafeIntegerError {
  return value instanceof UnsafeIntegerError;
}

/**
 * Throws UnsafeIntegerError for the first integer beyond 2^53 in a decoded value: the YAML reader
 * rounds such an integer where the JSON reader refuses it, so a YAML body is checked after reading.
 */
export function checkSafeIntegers(value: unknown, path = ''): void {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) throw new UnsafeIntegerError(path, String(BigInt(value)));
  } else if (Array.isArray(value)) value.forEach((v, i) => checkSafeIntegers(v, itemPath(path, i)));
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) checkSafeIntegers(v, fieldPath(path, k));
}

/** The path of a field below `path`, as the duplicate-key and unsafe-integer reports name it. */
export function fieldPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** The path of an item of the list at `path`. */
export function itemPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** A recursive-descent reader of valid JSON (anything else throws and JSON.parse reports it). */
class JsonReader {
  private i = 0;

  constructor(
    private readonly text: string,
    private readonly merge: boolean,
  ) {}

  document(): unknown {
    const v = this.value('');
    this.space();
    if (this.i !== this.text.length) throw new SyntaxError('trailing text');
    return v;
  }

  private space(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i]!)) this.i++;
  }

  private value(path: string): unknown {
    this.space();
    const c = this.text[this.i];
    if (c === '{') return this.object(path);
    if (c === '[') return this.array(path);
    if (c === '"') return this.string();
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.i, this.i + 400));
    if (m && m[0] !== '' && m[0] !== '-') {
      this.i += m[0].length;
      const n = Number(m[0]);
      if (m[2] === undefined && m[3] === undefined && !Number.isSafeInteger(n)) throw new UnsafeIntegerError(path, m[0]);
      return n;
    }
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    throw new SyntaxError('unexpected character');
  }

  private string(): string {
    const start = this.i;
    this.i++;
    for (;;) {
      const c = this.text[this.i];
      if (c === undefined) throw new SyntaxError('unterminated string');
      if (c === '\\') this.i += 2;
      else if (c === '"') break;
      else this.i++;
    }
    this.i++;
    return JSON.parse(this.text.slice(start, this.i)) as string;
  }

  private object(path: string): Record<string, unknown> {
    this.i++;
    const out: Record<string, unknown> = {};
    this.space();
    if (this.text[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text[this.i] !== '"') throw new SyntaxError('expected a key');
      const key = this.string();
      this.space();
      if (this.text[this.i++] !== ':') throw new SyntaxError('expected :');
      const v = this.value(fieldPath(path, key));
      const before = Object.hasOwn(out, key) ? out[key] : undefined;
      const next = this.merge && isObject(before) && isObject(v) ? mergeInto(before, v) : v;
      Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
      this.space();
      const sep = this.text[this.i++];
      if (sep === '}') return out;
      if (sep !== ',') throw new SyntaxError('expected , or }');
    }
  }

  private array(path: string): unknown[] {
    this.i++;
    const out: unknown[] = [];
    this.space();
    if (this.text[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(itemPath(path, out.length)));
      this.space();
      const sep = this.text[this.i++];
      if (sep === ']') return out;
      if (sep !== ',') throw new SyntaxError('expected , or ]');
    }
  }
}

/** Go's decoder filling a struct it already holds: the later fields win, objects merge. */
function mergeInto(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(b)) {
    const before = Object.hasOwn(a, k) ? a[k] : undefined;
    const next = isObject(before) && isObject(v) ? mergeInto(before, v) : v;
    Object.defineProperty(a, k, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return a;
}
