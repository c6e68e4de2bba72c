/**
 * CEL runtime values as this environment represents them: int is bigint, uint is the library's
 * UnsignedInt, double is number, bytes is Uint8Array, timestamp is Date, duration is the library's
 * Duration, list is an array, map is a Map, and an object of a schema is a CelObject (a Map of its
 * accessible, escaped field names). Equality lives here because objects, set lists and map lists
 * compare by the schema's rules, not by JavaScript identity.
 */
import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';

export { Duration, Optional, UnsignedInt };

/** Any value a CEL expression can see. */
export type CelValue = unknown;

/** An object of a schema type. Subclassed once per object schema so the type checker can tell them apart. */
export class CelObject extends Map<string, CelValue> {}

/** How a list compares and concatenates, from the schema's list type. */
export type ListSemantics = { kind: 'set' } | { kind: 'map'; keys: readonly string[] };

const listSemantics = new WeakMap<readonly CelValue[], ListSemantics>();

/** Marks a list value as a set list or map list (equality without order, concatenation by union/merge). */
export function markList<T extends CelValue[]>(list: T, semantics: ListSemantics): T {
  listSemantics.set(list, semantics);
  return list;
}

export function semanticsOf(list: readonly CelValue[]): ListSemantics | undefined {
  return listSemantics.get(list);
}

/** The key of a map-list item: its key fields' values, compared structurally. */
function itemKey(item: CelValue, keys: readonly string[]): CelValue[] {
  return keys.map((k) => (item instanceof Map ? item.get(k) : undefined));
}

function sameKey(a: CelValue[], b: CelValue[]): boolean {
  return a.length === b.length && a.every((v, i) => celEquals(v, b[i]));
}

function unorderedEquals(a: readonly CelValue[], b: readonly CelValue[]): boolean {
  if (a.length !== b.length) return false;
  const used = new Array<boolean>(b.length).fill(false);
  outer: for (const x of a) {
    for (let i = 0; i < b.length; i++) {
      if (!used[i] && celEquals(x, b[i])) {
        used[i] = true;
        continue outer;
      }
    }
    return false;
  }
  return true;
}

function listEquals(a: readonly CelValue[], b: readonly CelValue[]): boolean {
  if (semanticsOf(a) || semanticsOf(b)) return unorderedEquals(a, b);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
  return true;
}

function mapEquals(a: Map<unknown, CelValue>, b: Map<unknown, CelValue>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    if (!b.has(k) || !celEquals(v, b.get(k))) return false;
  }
  return true;
}

function bytesEquals(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Values with an `equals` of their own (quantities, URLs). */
interface SelfComparing {
  celEquals(other: CelValue): boolean;
}

function isSelfComparing(v: unknown): v is SelfComparing {
  return typeof v === 'object' && v !== null && typeof (v as Partial<SelfComparing>).celEquals === 'function';
}

function numeric(v: CelValue): number | bigint | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof UnsignedInt) return v.valueOf();
  return undefined;
}

/** CEL equality: heterogeneous numbers compare by value, objects field by field, set/map lists without order. */
export function celEquals(a: CelValue, b: CelValue): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) {
    // biome-ignore lint/suspicious/noDoubleEquals: bigint == number compares by value
    return na == nb;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && listEquals(a, b);
  if (a instanceof Uint8Array) return b instanceof Uint8Array && bytesEquals(a, b);
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Duration) return b instanceof Duration && a.seconds === b.seconds && a.nanos === b.nanos;
  if (a instanceof Optional) {
    if (!(b instanceof Optional)) return false;
    if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
    return celEquals(a.value(), b.value());
  }
  if (isSelfComparing(a)) return a.celEquals(b);
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.constructor !== b.constructor) return false;
    return mapEquals(a, b);
  }
  return false;
}

/** Concatenation by list type: set lists take the union, map lists merge by key (later wins), others append. */
export function concatLists(a: readonly CelValue[], b: readonly CelValue[]): CelValue[] {
  const semantics = semanticsOf(a) ?? semanticsOf(b);
  if (!semantics) return [...a, ...b];
  if (semantics.kind === 'set') {
    const out = [...a];
    for (const x of b) if (!out.some((y) => celEquals(x, y))) out.push(x);
    return markList(out, semantics);
  }
  const out = [...a];
  for (const x of b) {
    const key = itemKey(x, semantics.keys);
    const at = out.findIndex((y) => sameKey(itemKey(y, semantics.keys), key));
    if (at >= 0) out[at] = x;
    else out.push(x);
  }
  return markList(out, semantics);
}

const NANOS_PER_SECOND = 1_000_000_000n;

/** A Duration from a total number of nanoseconds (sign carried by both parts, as protobuf does). */
export function durationFromNanos(total: bigint): Duration {
  const seconds = total / NANOS_PER_SECOND;
  const nanos = Number(total % NANOS_PER_SECOND);
  return new Duration(seconds, nanos);
}

export function durationToNanos(d: Duration): bigint {
  return d.seconds * NANOS_PER_SECOND + BigInt(d.nanos);
}

const DURATION_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: NANOS_PER_SECOND,
  m: 60n * NANOS_PER_SECOND,
  h: 3600n * NANOS_PER_SECOND,
};

/** Parses a Go duration string (`1h30m`, `-1.5s`, `300ms`); undefined when it is not one. */
export function parseGoDuration(text: string): Duration | undefined {
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return new Duration(0n, 0);
  if (s === '') return undefined;
  const part = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  let total = 0n;
  while (s !== '') {
    const m = part.exec(s);
    if (!m) return undefined;
    const [whole, int = '', frac = '', unit = ''] = m;
    if (int === '' && frac === '') return undefined;
    const scale = DURATION_UNITS[unit];
    if (scale === undefined) return undefined;
    total += BigInt(int || '0') * scale;
    if (frac !== '') total += (BigInt(frac) * scale) / 10n ** BigInt(frac.length);
    s = s.slice(whole.length);
  }
  return durationFromNanos(negative ? -total : total);
}

/** RFC 3339 date-time (or a full date, meaning midnight UTC) to a timestamp; undefined when invalid. */
export function parseTimestamp(text: string): Date | undefined {
  const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (dateOnly) {
    const d = new Date(`${text}T00:00:00Z`);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(text)) return undefined;
  const d = new Date(text.replace(' ', 'T'));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** Standard or URL-safe base64 to bytes; undefined when invalid. */
export function decodeBase64(text: string): Uint8Array | undefined {
  const clean = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) return undefined;
  return new Uint8Array(Buffer.from(clean, clean.includes('-') || clean.includes('_') ? 'base64url' : 'base64'));
}
