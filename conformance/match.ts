/**
 * Expectation matching. Every function returns the first mismatch as a sentence, or null when the
 * expectation holds, so the report can name exactly what failed.
 */
import { select, selectsMany } from './jsonpath.js';
import { decodeEnvelope, EnvelopeError } from './protobuf-envelope.js';
import type {
  ErrorExpectation,
  EventExpectation,
  HeaderExpectation,
  HttpResult,
  Json,
  PathCheck,
  ProtobufExpectation,
  ResponseExpectation,
  WatchEvent,
} from './types.js';
import { isObject } from './json.js';

export function describe(v: Json | undefined, max = 160): string {
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v);
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

const OPERATORS = ['$matches', '$exists', '$absent', '$any', '$oneOf', '$contains', '$notEquals', '$empty'] as const;

function isOperator(v: Json): v is { [key: string]: Json } {
  return isObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => (OPERATORS as readonly string[]).includes(k));
}

function isEmpty(v: Json | undefined): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
}

function matchOperator(op: { [key: string]: Json }, actual: Json | undefined, at: string): string | null {
  for (const [key, arg] of Object.entries(op)) {
    if (key === '$exists' && (actual !== undefined) !== Boolean(arg)) {
      return arg ? `${at}: expected a value, found none` : `${at}: expected no value, found ${describe(actual)}`;
    }
    if (key === '$absent' && arg && actual !== undefined) return `${at}: expected absent, found ${describe(actual)}`;
    if (key === '$matches') {
      if (typeof actual !== 'string' && typeof actual !== 'number')
        return `${at}: expected a string matching /${String(arg)}/, found ${describe(actual)}`;
      if (!new RegExp(String(arg)).test(String(actual))) return `${at}: ${describe(actual)} does not match /${String(arg)}/`;
    }
    if (key === '$oneOf') {
      const options = Array.isArray(arg) ? arg : [arg];
      if (!options.some((o) => partialMatch(o, actual, at) === null)) return `${at}: ${describe(actual)} is none of ${describe(options)}`;
    }
    if (key === '$contains') {
      if (!Array.isArray(actual)) return `${at}: expected a list containing ${describe(arg)}, found ${describe(actual)}`;
      if (!actual.some((item) => partialMatch(arg, item, at) === null))
        return `${at}: no element matches ${describe(arg)} in ${describe(actual)}`;
    }
    if (key === '$notEquals' && actual !== undefined && partialMatch(arg, actual, at) === null) {
      return `${at}: expected a value other than ${describe(arg)}`;
    }
    if (key === '$empty' && isEmpty(actual) !== Boolean(arg)) {
      return arg
        ? `${at}: expected empty or absent, found ${describe(actual)}`
        : `${at}: expected a non-empty value, found ${describe(actual)}`;
    }
  }
  return null;
}

/**
 * Partial deep match: every key of `expected` must match in `actual` (extra keys are fine), lists
 * match element by element and must have the same length, scalars compare strictly. Operator objects
 * (`{$matches: re}`, `{$exists: true}`, `{$absent: true}`, `{$oneOf: [...]}`, `{$contains: x}`,
 * `{$notEquals: x}`, `{$empty: true}`, `{$any: true}`) test the value instead.
 */
export function partialMatch(expected: Json, actual: Json | undefined, at = '$'): string | null {
  if (isOperator(expected)) return matchOperator(expected, actual, at);
  if (isObject(expected)) {
    if (!isObject(actual)) return `${at}: expected an object, found ${describe(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const problem = partialMatch(value, actual[key], `${at}.${key}`);
      if (problem) return problem;
    }
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: expected a list, found ${describe(actual)}`;
    if (actual.length !== expected.length) return `${at}: expected ${expected.length} items, found ${actual.length}: ${describe(actual)}`;
    for (let i = 0; i < expected.length; i++) {
      const problem = partialMatch(expected[i] as Json, actual[i], `${at}[${i}]`);
      if (problem) return problem;
    }
    return null;
  }
  if (actual !== expected) return `${at}: expected ${describe(expected)}, found ${describe(actual)}`;
  return null;
}

/** What a JSONPath selected: every value, and the one value a check reads (the list itself when the path selects many). */
interface Selection {
  at: string;
  values: Json[];
  many: boolean;
  value: Json | undefined;
}

/** One kind of check of a PathCheck; each looks only at its own keys and passes when they are absent. */
type PathChecker = (check: PathCheck, s: Selection) => string | null;

function checkPresence(check: PathCheck, { at, values, value }: Selection): string | null {
  if (check.exists === true && values.length === 0) return `${at}: expected a value, found none`;
  if (check.exists === false && values.length > 0) return `${at}: expected no value, found ${describe(value)}`;
  if (check.absent === true && values.length > 0) return `${at}: expected absent, found ${describe(value)}`;
  return null;
}

function checkEmpty(check: PathCheck, { at, values, many, value }: Selection): string | null {
  if (check.empty === undefined) return null;
  const empty = many ? values.length === 0 : isEmpty(value);
  if (empty === check.empty) return null;
  return check.empty
    ? `${at}: expected empty or absent, found ${describe(value)}`
    : `${at}: expected a non-empty value, found ${describe(value)}`;
}

function checkEquality(check: PathCheck, { at, value }: Selection): string | null {
  if (check.equals !== undefined) {
    if (value === undefined) return `${at}: expected ${describe(check.equals)}, found nothing`;
    const problem = partialMatch(check.equals, value, at);
    if (problem) return problem;
  }
  if (check.notEquals !== undefined && value !== undefined && partialMatch(check.notEquals, value, at) === null) {
    return `${at}: expected a value other than ${describe(check.notEquals)}`;
  }
  return null;
}

function checkMatches(check: PathCheck, { at, values, many, value }: Selection): string | null {
  if (check.matches === undefined) return null;
  for (const t of many ? values : [value]) {
    if (typeof t !== 'string' && typeof t !== 'number') return `${at}: expected a string matching /${check.matches}/, found ${describe(t)}`;
    if (!new RegExp(check.matches).test(String(t))) return `${at}: ${describe(t)} does not match /${check.matches}/`;
  }
  return null;
}

function sizeOf(v: Json | undefined): number | undefined {
  return Array.isArray(v) ? v.length : typeof v === 'string' ? v.length : isObject(v) ? Object.keys(v).length : undefined;
}

function checkSize(check: PathCheck, { at, value }: Selection): string | null {
  if (check.length !== undefined) {
    const n = sizeOf(value);
    if (n !== check.length)
      return `${at}: expected length ${check.length}, found ${n === undefined ? describe(value) : `${n}: ${describe(value)}`}`;
  }
  if (check.minLength !== undefined) {
    const n = sizeOf(value) ?? 0;
    if (n < check.minLength) return `${at}: expected at least ${check.minLength} items, found ${n}: ${describe(value)}`;
  }
  return null;
}

function checkEvery(check: PathCheck, { at, values }: Selection): string | null {
  if (check.every === undefined) return null;
  for (const [i, v] of values.entries()) {
    const problem = partialMatch(check.every, v, `${at}#${i}`);
    if (problem) return problem;
  }
  return null;
}

function checkMembers(check: PathCheck, { at, values, many, value }: Selection): string | null {
  const list = many ? values : Array.isArray(value) ? value : undefined;
  if (check.contains !== undefined) {
    if (!list) return `${at}: expected a list, found ${describe(value)}`;
    const wanted = check.contains;
    if (!list.some((v) => partialMatch(wanted, v) === null)) return `${at}: no element matches ${describe(wanted)} in ${describe(list)}`;
  }
  if (check.notContains !== undefined) {
    const unwanted = check.notContains;
    const hit = (list ?? []).find((v) => partialMatch(unwanted, v) === null);
    if (hit !== undefined) return `${at}: expected no element matching ${describe(unwanted)}, found ${describe(hit)}`;
  }
  return null;
}

function checkType(check: PathCheck, { at, value }: Selection): string | null {
  if (check.type === undefined) return null;
  if (value === undefined) return `${at}: expected a ${check.type}, found nothing`;
  const t = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return t === check.type ? null : `${at}: expected a ${check.type}, found a ${t}: ${describe(value)}`;
}

function checkRange(check: PathCheck, { at, value }: Selection): string | null {
  if (check.gte === undefined && check.lte === undefined) return null;
  if (typeof value !== 'number') return `${at}: expected a number, found ${describe(value)}`;
  if (check.gte !== undefined && value < check.gte) return `${at}: expected at least ${check.gte}, found ${value}`;
  if (check.lte !== undefined && value > check.lte) return `${at}: expected at most ${check.lte}, found ${value}`;
  return null;
}

/** In this order: the first failing kind of check is the one reported. */
const PATH_CHECKERS: readonly PathChecker[] = [
  checkPresence,
  checkEmpty,
  checkEquality,
  checkMatches,
  checkSize,
  checkEvery,
  checkMembers,
  checkType,
  checkRange,
];

/** Checks one JSONPath expectation against a document. */
export function checkPath(doc: Json | undefined, check: PathCheck): string | null {
  const values = select(doc, check.path);
  const many = selectsMany(check.path);
  const selection: Selection = { at: check.path, values, many, value: many ? values : values[0] };
  for (const checker of PATH_CHECKERS) {
    const problem = checker(check, selection);
    if (problem) return problem;
  }
  return null;
}

/** Splits a header's values into items at commas outside double quotes (Warning texts hold commas). */
export function headerItems(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const items: string[] = [];
  for (const line of Array.isArray(value) ? value : [value]) {
    let current = '';
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i] ?? '';
      if (c === '\\' && quoted) {
        current += c + (line[i + 1] ?? '');
        i++;
        continue;
      }
      if (c === '"') quoted = !quoted;
      if (c === ',' && !quoted) {
        if (current.trim()) items.push(current.trim());
        current = '';
      } else current += c;
    }
    if (current.trim()) items.push(current.trim());
  }
  return items;
}

export function checkHeader(headers: Record<string, string | string[]>, name: string, exp: HeaderExpectation): string | null {
  const value = headers[name.toLowerCase()];
  const spec = exp === 'present' ? { present: true } : exp === 'absent' ? { absent: true } : exp;
  const joined = value === undefined ? undefined : Array.isArray(value) ? value.join(', ') : value;
  // An optional header is only judged when the server sent it.
  if (typeof exp === 'object' && exp.optional && joined === undefined) return null;
  if (spec.present && joined === undefined) return `header ${name}: expected present, it is absent`;
  if (spec.absent && joined !== undefined) return `header ${name}: expected absent, found "${joined}"`;
  if (spec.equals !== undefined && joined?.toLowerCase() !== spec.equals.toLowerCase()) {
    return `header ${name}: expected "${spec.equals}", found ${joined === undefined ? 'no header' : `"${joined}"`}`;
  }
  if (spec.matches !== undefined) {
    if (joined === undefined) return `header ${name}: expected a value matching /${spec.matches}/, found no header`;
    const re = new RegExp(spec.matches, 'i');
    const items = headerItems(value);
    if (!re.test(joined) && !items.some((i) => re.test(i))) return `header ${name}: "${joined}" does not match /${spec.matches}/`;
  }
  if (spec.count !== undefined) {
    const n = headerItems(value).length;
    if (n !== spec.count) return `header ${name}: expected ${spec.count} items, found ${n}${joined ? `: "${joined}"` : ''}`;
  }
  return null;
}

export function checkHeaders(
  headers: Record<string, string | string[]>,
  spec: Record<string, HeaderExpectation> | undefined,
): string | null {
  for (const [name, exp] of Object.entries(spec ?? {})) {
    const problem = checkHeader(headers, name, exp);
    if (problem) return problem;
  }
  return null;
}

export function checkError(body: Json | undefined, exp: ErrorExpectation): string | null {
  if (!isObject(body) || body.kind !== 'Status') return `expected a Status error body, found ${describe(body)}`;
  if (exp.code !== undefined && body.code !== exp.code) return `Status code: expected ${exp.code}, found ${describe(body.code)}`;
  if (exp.reason !== undefined && body.reason !== exp.reason)
    return `Status reason: expected "${exp.reason}", found ${describe(body.reason)}`;
  const message = typeof body.message === 'string' ? body.message : '';
  if (exp.message !== undefined && !new RegExp(exp.message, 'i').test(message))
    return `Status message: "${message}" does not match /${exp.message}/`;
  if (exp.notMessage !== undefined && new RegExp(exp.notMessage, 'i').test(message))
    return `Status message: "${message}" should not match /${exp.notMessage}/`;
  if (exp.details !== undefined) {
    const problem = partialMatch(exp.details, body.details, '$.details');
    if (problem) return `Status ${problem}`;
  }
  if (exp.causes) {
    const details = body.details;
    const causes = isObject(details) && Array.isArray(details.causes) ? details.causes : [];
    for (const cause of exp.causes) {
      if (!causes.some((c) => partialMatch(cause, c) === null))
        return `Status causes: none matches ${describe(cause)}; causes are ${describe(causes, 400)}`;
    }
  }
  return null;
}

export function checkProtobuf(raw: Buffer, exp: ProtobufExpectation): string | null {
  try {
    const env = decodeEnvelope(raw);
    if (exp.apiVersion !== undefined && env.apiVersion !== exp.apiVersion)
      return `Protobuf typeMeta.apiVersion: expected "${exp.apiVersion}", found "${env.apiVersion ?? ''}"`;
    if (exp.kind !== undefined && env.kind !== exp.kind) return `Protobuf typeMeta.kind: expected "${exp.kind}", found "${env.kind ?? ''}"`;
    if (exp.contentType !== undefined && (env.contentType ?? '') !== exp.contentType)
      return `Protobuf contentType: expected "${exp.contentType}", found "${env.contentType ?? ''}"`;
    if (!env.raw || env.raw.length === 0) return 'Protobuf envelope: the raw field (2) is empty';
    return null;
  } catch (e) {
    if (e instanceof EnvelopeError) return `Protobuf envelope: ${e.message}`;
    throw e;
  }
}

/** Checks a whole HTTP response against a step's expectations, in the order the report reads best. */
export function checkResponse(res: HttpResult, exp: ResponseExpectation): string | null {
  if (exp.status && !exp.status.includes(res.status)) {
    const reason =
      isObject(res.json) && res.json.kind === 'Status' ? ` (${String(res.json.reason ?? '')}: ${String(res.json.message ?? '')})` : '';
    return `status: expected ${exp.status.join(' or ')}, got ${res.status}${reason}`;
  }
  const headerProblem = checkHeaders(res.headers, exp.headers);
  if (headerProblem) return headerProblem;
  if (exp.protobuf) {
    const problem = checkProtobuf(res.raw, exp.protobuf);
    if (problem) return problem;
  }
  if (exp.text) {
    if (exp.text.matches !== undefined && !new RegExp(exp.text.matches).test(res.text))
      return `body text does not match /${exp.text.matches}/`;
    if (exp.text.notMatches !== undefined && new RegExp(exp.text.notMatches).test(res.text))
      return `body text should not match /${exp.text.notMatches}/`;
  }
  const needsJson = exp.body !== undefined || (exp.at?.length ?? 0) > 0 || exp.error !== undefined;
  if (needsJson && res.json === undefined)
    return `expected a JSON body, got ${res.text.length === 0 ? 'an empty body' : `"${res.text.slice(0, 120)}"`}`;
  if (exp.error) {
    const problem = checkError(res.json, exp.error);
    if (problem) return problem;
  }
  if (exp.body !== undefined) {
    const problem = partialMatch(exp.body, res.json);
    if (problem) return `body ${problem}`;
  }
  for (const check of exp.at ?? []) {
    const problem = checkPath(res.json, check);
    if (problem) return problem;
  }
  return null;
}

type SingleEvent = { type: string; object?: Json };

function matchEvent(exp: SingleEvent, got: WatchEvent, at: string): string | null {
  if (got.type !== exp.type) return `${at}: expected type ${exp.type}, got ${got.type} ${describe(got.object, 200)}`;
  if (exp.object !== undefined) {
    const problem = partialMatch(exp.object, got.object, `${at}.object`);
    if (problem) return problem;
  }
  return null;
}

/** How many received events the expectation list consumes. */
export function expectedEventCount(expected: readonly EventExpectation[]): number {
  return expected.reduce((n, e) => n + ('anyOrder' in e ? e.anyOrder.length : 1), 0);
}

/**
 * Matches received events against the expected list in order; an `anyOrder` group matches the next
 * events as a set. Received events must be exactly the expected ones (after skipped types are
 * dropped by the caller); extra events after them are judged by the caller's quiet period.
 */
export function matchEvents(expected: readonly EventExpectation[], received: readonly WatchEvent[]): string | null {
  let pos = 0;
  for (const [i, exp] of expected.entries()) {
    if ('anyOrder' in exp) {
      const group = received.slice(pos, pos + exp.anyOrder.length);
      if (group.length < exp.anyOrder.length) {
        return `events ${pos}..${pos + exp.anyOrder.length - 1}: expected ${exp.anyOrder.length} events in any order (${exp.anyOrder.map((e) => e.type).join(', ')}), received only ${group.length}`;
      }
      const unused = [...group];
      for (const want of exp.anyOrder) {
        const idx = unused.findIndex((got) => matchEvent(want, got, '') === null);
        if (idx < 0) {
          return `events ${pos}..${pos + exp.anyOrder.length - 1} (any order): nothing matches ${want.type} ${describe(want.object ?? null)}; received ${unused.map((e) => `${e.type} ${describe(e.object, 120)}`).join('; ')}`;
        }
        unused.splice(idx, 1);
      }
      pos += exp.anyOrder.length;
    } else {
      const got = received[pos];
      if (!got)
        return `event ${pos} (expectation ${i}): expected ${exp.type}${exp.object === undefined ? '' : ` ${describe(exp.object)}`}, received nothing more (${received.length} events in all)`;
      const problem = matchEvent(exp, got, `event ${pos}`);
      if (problem) return problem;
      pos++;
    }
  }
  return null;
}
