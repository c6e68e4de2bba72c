import { ScenarioSkipped, UndefinedVariableError } from './errors.js';
import { JsonPathError, select, selectsMany } from './jsonpath.js';
import type { Json } from './types.js';

/** Scenario variables: built-ins (`ns`, `n`, `r.collection`, ...) and values captured by earlier steps. */
export type Vars = Map<string, Json | Buffer>;

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][\w.-]*)(?::([a-z]+))?\}/g;
const WHOLE = /^\$\{([A-Za-z_][\w.-]*)(?::([a-z]+))?\}$/;

/** Far enough ahead that no server reaches it during a run. */
const FUTURE_DISTANCE = 1_000_000_000n;

function lookup(vars: Vars, name: string, fn: string | undefined): Json {
  const value = vars.get(name);
  if (value === undefined) {
    throw new UndefinedVariableError(`undefined variable \${${name}} (known: ${[...vars.keys()].sort().join(', ')})`);
  }
  if (Buffer.isBuffer(value)) throw new UndefinedVariableError(`variable \${${name}} holds bytes; use it with bodyFrom`);
  if (fn === undefined) return value;
  if (fn === 'future') {
    // Versions are opaque; only a server whose versions are decimal integers lets the kit name a future one.
    const text = String(value);
    if (!/^\d+$/.test(text))
      throw new ScenarioSkipped(`resource version "${text}" is not a decimal integer, so no future version can be formed`);
    return (BigInt(text) + FUTURE_DISTANCE).toString();
  }
  if (fn === 'json') return JSON.stringify(value);
  throw new UndefinedVariableError(`unknown variable function "${fn}" in \${${name}:${fn}} (known: future, json)`);
}

function asText(v: Json): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Replaces every `${var}` in `text`; `$${` stands for a literal `${`. */
export function substitute(text: string, vars: Vars): string {
  return text.replace(REFERENCE, (_all, name: string | undefined, fn: string | undefined) =>
    name === undefined ? '${' : asText(lookup(vars, name, fn)),
  );
}

/**
 * Substitutes through a JSON value. A string that is exactly one `${var}` takes the variable's own
 * type, so a captured number or object stays one.
 */
export function substituteDeep(value: Json, vars: Vars): Json {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookup(vars, whole[1] ?? '', whole[2]);
    return substitute(value, vars);
  }
  if (Array.isArray(value)) return value.map((v) => substituteDeep(v, vars));
  if (value && typeof value === 'object') {
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) out[substitute(k, vars)] = substituteDeep(v, vars);
    return out;
  }
  return value;
}

/** What a capture can read from: a parsed body (or watch record), the headers, the raw bytes. */
export interface CaptureSource {
  json: Json | undefined;
  headers: Record<string, string | string[]>;
  raw?: Buffer;
  status?: number;
}

export class CaptureError extends Error {
  override readonly name = 'CaptureError';
}

/**
 * Reads `from` (`$.metadata.resourceVersion`, `header:warning`, `raw:body`, `status`) out of a
 * response. A JSONPath that reaches nothing is an error: a later step would run with a wrong value.
 */
export function captureValue(from: string, source: CaptureSource): Json | Buffer {
  if (from.startsWith('header:')) {
    const value = source.headers[from.slice(7).toLowerCase()];
    if (value === undefined) throw new CaptureError(`capture ${from}: the response has no such header`);
    return Array.isArray(value) ? value.join(', ') : value;
  }
  if (from === 'raw:body') {
    if (!source.raw) throw new CaptureError('capture raw:body: no body');
    return source.raw;
  }
  if (from === 'status') {
    if (source.status === undefined) throw new CaptureError('capture status: no status');
    return source.status;
  }
  let values: Json[];
  try {
    values = select(source.json, from);
  } catch (e) {
    if (e instanceof JsonPathError) throw new CaptureError(`capture ${from}: ${e.message}`);
    throw e;
  }
  if (selectsMany(from)) return values;
  const first = values[0];
  if (first === undefined) throw new CaptureError(`capture ${from}: nothing at that path in the response`);
  return first;
}

export function captureAll(captures: Record<string, string> | undefined, source: CaptureSource, vars: Vars): void {
  for (const [name, from] of Object.entries(captures ?? {})) vars.set(name, captureValue(from, source));
}
