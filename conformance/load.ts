import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { DurationError, parseDuration } from './duration.js';
import type { RuleCatalogue } from './rules.js';
import {
  BODY_FORMATS,
  BOUNDARIES,
  type CodeScenario,
  type ErrorExpectation,
  type Exercises,
  type EventExpectation,
  FEATURES,
  type Feature,
  type HeaderExpectation,
  type Json,
  type PathCheck,
  type RequestSpec,
  type RequestStep,
  type ResourceProfile,
  type ResponseExpectation,
  type Scenario,
  type ScenarioContext,
  type ScenarioHeader,
  type Step,
  TAGS,
  type Tag,
  type WaitStep,
  type WatchExpectation,
  type WatchStep,
  WRITE_VERBS,
  type YamlScenario,
} from './types.js';
import { isObject } from './json.js';

/** The fields every scenario has, written in YAML (with `steps`) or TypeScript (with `run`, `exercises`). */
const SCENARIO_KEYS = ['id', 'rule', 'description', 'tags', 'needs', 'serves', 'namespaces', 'resource'];

/** A YAML mapping: an object that is not a list, nor the bytes of a `!!binary` value. */
function isMapping(v: unknown): v is Record<string, unknown> {
  return isObject(v) && !Buffer.isBuffer(v);
}

/**
 * Loads and validates scenario suites: YAML files (`scenarios/<area>/*.yaml`, a list under
 * `scenarios:` with optional suite `defaults:`) and TypeScript modules (`scenarios/<area>/*.ts`
 * exporting `scenarios`). Every error names the file (and line), the scenario id and the step index.
 * Parameterised scenarios are expanded here into one instance per resource type. The suites' shape
 * is also declared in `scenario.schema.json` for editors (each suite names it in its first line);
 * this loader stays the authority, and `scenario-schema.test.ts` keeps the two in step.
 */

export class ScenarioLoadError extends Error {
  override readonly name = 'ScenarioLoadError';
}

export function isScenarioLoadError(e: unknown): e is ScenarioLoadError {
  return e instanceof Error && e.name === 'ScenarioLoadError';
}

export const DEFAULT_SCENARIO_DIR = fileURLToPath(new URL('./scenarios/', import.meta.url));

export interface LoadContext {
  /** When given, every rule reference must be in it. */
  rules?: RuleCatalogue;
  resources: Map<string, ResourceProfile>;
}

const ID = /^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9.-]*){2,}$/;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const DEFAULT_WATCH_WITHIN_MS = 5000;

/** Where an error happened, rendered as `file:line: scenario <id>: step <i>: ...`. */
interface Where {
  file: string;
  id?: string;
  step?: string;
  line?: number;
}

function fail(where: Where, message: string): never {
  const parts = [`${where.file}${where.line ? `:${where.line}` : ''}`];
  if (where.id) parts.push(`scenario ${where.id}`);
  if (where.step !== undefined) parts.push(`step ${where.step}`);
  throw new ScenarioLoadError(`${parts.join(': ')}: ${message}`);
}

function onlyKeys(where: Where, what: string, v: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(v)) {
    if (!allowed.includes(k)) fail(where, `${what}: unknown key "${k}" (allowed: ${allowed.join(', ')})`);
  }
}

function duration(where: Where, what: string, v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') fail(where, `${what}: expected a duration such as 500ms or 5s, found ${JSON.stringify(v)}`);
  try {
    return parseDuration(v);
  } catch (e) {
    if (e instanceof DurationError) fail(where, `${what}: ${e.message}`);
    throw e;
  }
}

function stringList(where: Where, what: string, v: unknown): string[] {
  if (v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  for (const item of list) if (typeof item !== 'string') fail(where, `${what}: expected strings, found ${JSON.stringify(item)}`);
  return list as string[];
}

function statusList(where: Where, v: unknown): number[] | undefined {
  if (v === undefined) return undefined;
  // "4xx" stands for every status of the class.
  const list = (Array.isArray(v) ? v : [v]).flatMap((s: unknown) =>
    typeof s === 'string' && /^[1-5]xx$/.test(s) ? Array.from({ length: 100 }, (_, i) => Number(s[0]) * 100 + i) : [s],
  );
  for (const s of list) {
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 100 || s > 599)
      fail(where, `expect.status: expected an HTTP status code or a list of them, found ${JSON.stringify(s)}`);
  }
  return list as number[];
}

function stringMap(where: Where, what: string, v: unknown): Record<string, string> | undefined {
  if (v === undefined) return undefined;
  if (!isMapping(v)) fail(where, `${what}: expected a mapping of strings`);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string' && typeof val !== 'number' && typeof val !== 'boolean') fail(where, `${what}.${k}: expected a string`);
    out[k] = String(val);
  }
  return out;
}

function parseRequest(where: Where, v: unknown, defaultMethod?: string): RequestSpec {
  if (typeof v === 'string') {
    const m = /^([A-Z]+)\s+(\S+)$/.exec(v.trim());
    if (!m || !METHODS.includes(m[1] ?? '')) fail(where, `request: expected "METHOD /path" or a mapping, found "${v}"`);
    return { method: m[1] ?? 'GET', path: m[2] ?? '/' };
  }
  if (!isMapping(v)) fail(where, 'request: expected a mapping with method and path');
  onlyKeys(where, 'request', v, ['method', 'path', 'query', 'headers', 'body', 'bodyText', 'bodyFrom', 'contentType', 'as']);
  const method = v.method ?? defaultMethod;
  if (typeof method !== 'string' || !METHODS.includes(method))
    fail(where, `request.method: expected one of ${METHODS.join(', ')}, found ${JSON.stringify(method)}`);
  if (typeof v.path !== 'string' || !(v.path.startsWith('/') || v.path.startsWith('${')))
    fail(where, `request.path: expected a path starting with "/", found ${JSON.stringify(v.path)}`);
  const bodies = ['body', 'bodyText', 'bodyFrom'].filter((k) => v[k] !== undefined);
  if (bodies.length > 1) fail(where, `request: give only one of body, bodyText, bodyFrom (found ${bodies.join(', ')})`);
  if (v.query !== undefined && !isMapping(v.query)) fail(where, 'request.query: expected a mapping');
  if (v.bodyText !== undefined && typeof v.bodyText !== 'string') fail(where, 'request.bodyText: expected a string');
  if (v.bodyFrom !== undefined && typeof v.bodyFrom !== 'string') fail(where, 'request.bodyFrom: expected a variable name');
  if (v.contentType !== undefined && typeof v.contentType !== 'string') fail(where, 'request.contentType: expected a media type');
  if (v.as !== undefined && v.as !== 'restricted') fail(where, `request.as: expected restricted, found ${JSON.stringify(v.as)}`);
  const spec: RequestSpec = { method, path: v.path };
  if (v.as === 'restricted') spec.as = 'restricted';
  if (v.query !== undefined) spec.query = v.query as Record<string, Json>;
  const headers = stringMap(where, 'request.headers', v.headers);
  if (headers) spec.headers = headers;
  if (v.body !== undefined) spec.body = v.body as Json;
  if (typeof v.bodyText === 'string') spec.bodyText = v.bodyText;
  if (typeof v.bodyFrom === 'string') spec.bodyFrom = v.bodyFrom;
  if (typeof v.contentType === 'string') spec.contentType = v.contentType;
  return spec;
}

function parseHeaders(where: Where, v: unknown): Record<string, HeaderExpectation> | undefined {
  if (v === undefined) return undefined;
  if (!isMapping(v)) fail(where, 'expect.headers: expected a mapping of header names');
  const out: Record<string, HeaderExpectation> = {};
  for (const [name, exp] of Object.entries(v)) {
    if (exp === 'present' || exp === 'absent') out[name.toLowerCase()] = exp;
    else if (isMapping(exp)) {
      onlyKeys(where, `expect.headers.${name}`, exp, ['present', 'absent', 'equals', 'matches', 'count', 'optional']);
      if (typeof exp.matches === 'string') checkRegex(where, `expect.headers.${name}.matches`, exp.matches);
      out[name.toLowerCase()] = exp as HeaderExpectation;
    } else fail(where, `expect.headers.${name}: expected present, absent or {present, absent, equals, matches, count}`);
  }
  return out;
}

function checkRegex(where: Where, what: string, pattern: string): void {
  try {
    new RegExp(pattern);
  } catch (e) {
    fail(where, `${what}: invalid regular expression /${pattern}/: ${e instanceof Error ? e.message : String(e)}`);
  }
}

const CHECK_KEYS = [
  'equals',
  'notEquals',
  'matches',
  'exists',
  'absent',
  'empty',
  'length',
  'minLength',
  'every',
  'contains',
  'notContains',
  'gte',
  'lte',
  'type',
];

function parseChecks(where: Where, what: string, v: unknown): PathCheck[] | undefined {
  if (v === undefined) return undefined;
  const entries: [string, unknown][] = Array.isArray(v)
    ? v.map((c, i): [string, unknown] => {
        if (!isMapping(c) || typeof c.path !== 'string') fail(where, `${what}[${i}]: expected {path, ...checks}`);
        const { path, ...rest } = c;
        return [path as string, rest];
      })
    : isMapping(v)
      ? Object.entries(v)
      : fail(where, `${what}: expected a list of {path, ...} or a mapping of paths`);
  return entries.map(([path, spec]) => {
    if (!path.startsWith('$')) fail(where, `${what}: path "${path}" must start with $`);
    const isCheck = isMapping(spec) && Object.keys(spec).length > 0 && Object.keys(spec).every((k) => CHECK_KEYS.includes(k));
    if (!isCheck) return { path, equals: spec as Json };
    if (typeof spec.matches === 'string') checkRegex(where, `${what} ${path}.matches`, spec.matches);
    return { path, ...(spec as Omit<PathCheck, 'path'>) };
  });
}

function parseError(where: Where, v: unknown): ErrorExpectation | undefined {
  if (v === undefined) return undefined;
  if (!isMapping(v)) fail(where, 'expect.error: expected {reason, code, message, causes, details}');
  onlyKeys(where, 'expect.error', v, ['reason', 'code', 'message', 'notMessage', 'causes', 'details']);
  if (v.causes !== undefined && (!Array.isArray(v.causes) || !v.causes.every(isObject)))
    fail(where, 'expect.error.causes: expected a list of mappings');
  for (const key of ['message', 'notMessage'] as const) if (typeof v[key] === 'string') checkRegex(where, `expect.error.${key}`, v[key]);
  return v as ErrorExpectation;
}

function parseExpect(where: Where, v: unknown): ResponseExpectation | undefined {
  if (v === undefined) return undefined;
  if (!isMapping(v)) fail(where, 'expect: expected a mapping');
  onlyKeys(where, 'expect', v, ['status', 'headers', 'body', 'at', 'error', 'text', 'protobuf']);
  const out: ResponseExpectation = {};
  const status = statusList(where, v.status);
  if (status) out.status = status;
  const headers = parseHeaders(where, v.headers);
  if (headers) out.headers = headers;
  if (v.body !== undefined) out.body = v.body as Json;
  const at = parseChecks(where, 'expect.at', v.at);
  if (at) out.at = at;
  const error = parseError(where, v.error);
  if (error) out.error = error;
  if (v.text !== undefined) {
    if (!isMapping(v.text)) fail(where, 'expect.text: expected {matches, notMatches}');
    onlyKeys(where, 'expect.text', v.text, ['matches', 'notMatches']);
    for (const key of ['matches', 'notMatches'] as const)
      if (typeof v.text[key] === 'string') checkRegex(where, `expect.text.${key}`, v.text[key]);
    out.text = v.text as { matches?: string; notMatches?: string };
  }
  if (v.protobuf !== undefined) {
    if (!isMapping(v.protobuf)) fail(where, 'expect.protobuf: expected {apiVersion, kind, contentType}');
    onlyKeys(where, 'expect.protobuf', v.protobuf, ['apiVersion', 'kind', 'contentType']);
    out.protobuf = v.protobuf as ResponseExpectation['protobuf'] & object;
  }
  return out;
}

function parseRequestStep(where: Where, v: Record<string, unknown>): RequestStep {
  onlyKeys(where, 'step', v, ['name', 'request', 'expect', 'capture', 'retry']);
  const step: RequestStep = { kind: 'request', request: parseRequest(where, v.request) };
  if (typeof v.name === 'string') step.name = v.name;
  const expect = parseExpect(where, v.expect);
  if (expect) step.expect = expect;
  const capture = stringMap(where, 'capture', v.capture);
  if (capture) step.capture = capture;
  if (v.retry !== undefined) {
    if (!isMapping(v.retry)) fail(where, 'retry: expected {within, every}');
    onlyKeys(where, 'retry', v.retry, ['within', 'every']);
    step.retry = {
      withinMs: duration(where, 'retry.within', v.retry.within ?? '10s'),
      everyMs: duration(where, 'retry.every', v.retry.every ?? '200ms'),
    };
  }
  return step;
}

function parseEvent(where: Where, v: unknown, i: number): EventExpectation {
  if (typeof v === 'string') return { type: v };
  if (!isMapping(v)) fail(where, `expect.events[${i}]: expected a type, {type, object} or {anyOrder: [...]}`);
  if (v.anyOrder !== undefined) {
    onlyKeys(where, `expect.events[${i}]`, v, ['anyOrder']);
    if (!Array.isArray(v.anyOrder)) fail(where, `expect.events[${i}].anyOrder: expected a list`);
    return {
      anyOrder: v.anyOrder.map((e, j) => {
        const parsed = parseEvent(where, e, j);
        if ('anyOrder' in parsed) fail(where, `expect.events[${i}].anyOrder[${j}]: groups do not nest`);
        return parsed;
      }),
    };
  }
  onlyKeys(where, `expect.events[${i}]`, v, ['type', 'object']);
  if (typeof v.type !== 'string') fail(where, `expect.events[${i}].type: expected an event type such as ADDED`);
  return v.object === undefined ? { type: v.type } : { type: v.type, object: v.object as Json };
}

function parseWatchStep(where: Where, v: Record<string, unknown>): WatchStep {
  onlyKeys(where, 'watch step', v, ['name', 'watch', 'actions', 'expect', 'capture']);
  const request = parseRequest(where, v.watch, 'GET');
  const actions = v.actions === undefined ? [] : v.actions;
  if (!Array.isArray(actions)) fail(where, 'actions: expected a list of request steps');
  const parsedActions = actions.map((a, i) => {
    const w = { ...where, step: `${where.step ?? '?'}.actions[${i}]` };
    if (!isMapping(a) || a.request === undefined) fail(w, 'expected a request step');
    return parseRequestStep(w, a);
  });
  const e = v.expect;
  if (!isMapping(e)) fail(where, 'watch step: expect is required ({events, within, quiet, skip, gone, status, headers, at})');
  onlyKeys(where, 'watch expect', e, ['status', 'headers', 'events', 'within', 'quiet', 'skip', 'gone', 'at']);
  const expect: WatchExpectation = {
    withinMs: e.within === undefined ? DEFAULT_WATCH_WITHIN_MS : duration(where, 'expect.within', e.within),
  };
  const status = statusList(where, e.status);
  if (status) expect.status = status;
  const headers = parseHeaders(where, e.headers);
  if (headers) expect.headers = headers;
  if (e.events !== undefined) {
    if (!Array.isArray(e.events)) fail(where, 'expect.events: expected a list');
    expect.events = e.events.map((ev, i) => parseEvent(where, ev, i));
  }
  if (e.quiet !== undefined) expect.quietMs = duration(where, 'expect.quiet', e.quiet);
  if (e.skip !== undefined) expect.skip = stringList(where, 'expect.skip', e.skip);
  if (e.gone !== undefined) {
    if (typeof e.gone !== 'boolean') fail(where, 'expect.gone: expected true or false');
    expect.gone = e.gone;
  }
  if (expect.gone && expect.events) fail(where, 'expect: gone and events exclude each other');
  const at = parseChecks(where, 'expect.at', e.at);
  if (at) expect.at = at;
  const step: WatchStep = { kind: 'watch', request, actions: parsedActions, expect };
  if (typeof v.name === 'string') step.name = v.name;
  const capture = stringMap(where, 'capture', v.capture);
  if (capture) step.capture = capture;
  return step;
}

function parseWaitStep(where: Where, v: Record<string, unknown>): WaitStep {
  onlyKeys(where, 'wait step', v, ['name', 'wait']);
  const w = v.wait;
  const step: WaitStep = isMapping(w)
    ? (() => {
        onlyKeys(where, 'wait', w, ['for', 'plus']);
        if (w.for !== 'history-window' && w.for !== 'continue-ttl')
          fail(where, `wait.for: expected history-window or continue-ttl, found ${JSON.stringify(w.for)}`);
        return { kind: 'wait', ms: w.plus === undefined ? 0 : duration(where, 'wait.plus', w.plus), for: w.for } satisfies WaitStep;
      })()
    : { kind: 'wait', ms: duration(where, 'wait', w) };
  if (typeof v.name === 'string') step.name = v.name;
  return step;
}

function parseStep(where: Where, v: unknown): Step {
  if (!isMapping(v)) fail(where, 'expected a mapping with request, watch or wait');
  if (v.watch !== undefined) return parseWatchStep(where, v);
  if (v.wait !== undefined) return parseWaitStep(where, v);
  if (v.request !== undefined) return parseRequestStep(where, v);
  return fail(where, `expected one of request, watch, wait (keys: ${Object.keys(v).join(', ')})`);
}

/** The fields shared by YAML and TypeScript scenarios, validated alike. */
export interface HeaderInput {
  id?: unknown;
  rule?: unknown;
  tags?: unknown;
  needs?: unknown;
  serves?: unknown;
  namespaces?: unknown;
  resource?: unknown;
  description?: unknown;
}

function parseHeader(
  where: Where,
  v: HeaderInput,
  area: string | undefined,
  ctx: LoadContext,
): { header: ScenarioHeader; resources: ResourceProfile[] } {
  if (typeof v.id !== 'string' || !ID.test(v.id)) {
    fail(
      where,
      `id: expected a slash-separated id of at least three lowercase segments (core/list/continue-expired-410), found ${JSON.stringify(v.id)}`,
    );
  }
  const w = { ...where, id: v.id };
  if (area !== undefined && v.id.split('/')[1] !== area) fail(w, `id: the second segment must be the area directory "${area}"`);
  const rules = stringList(w, 'rule', v.rule);
  if (rules.length === 0) fail(w, 'rule: expected the spec rule it checks, for example "core-protocol.md#Chunked list procedure: 4"');
  for (const r of rules) {
    if (!/^[\w.-]+\.md#[^:]+: .+$/.test(r)) fail(w, `rule "${r}": expected "<doc>.md#<section>: <rule>"`);
    if (ctx.rules && !ctx.rules.has(r)) fail(w, `rule "${r}" is not in the rule catalogue (conformance/rules.yaml)`);
  }
  const tags = stringList(w, 'tags', v.tags);
  for (const t of tags) if (!(TAGS as readonly string[]).includes(t)) fail(w, `tags: unknown tag "${t}" (known: ${TAGS.join(', ')})`);
  const needs = stringList(w, 'needs', v.needs);
  for (const f of needs)
    if (!(FEATURES as readonly string[]).includes(f)) fail(w, `needs: unknown feature "${f}" (known: ${FEATURES.join(', ')})`);
  const serves = stringList(w, 'serves', v.serves);
  for (const s of serves)
    if (!/^([\w.-]+\/)?v[\w]+\/[a-z0-9]+$/.test(s)) fail(w, `serves: "${s}" is not group/version/resource (v1/configmaps, batch/v1/jobs)`);
  const namespaces = v.namespaces ?? 1;
  if (typeof namespaces !== 'number' || !Number.isInteger(namespaces) || namespaces < 0 || namespaces > 5)
    fail(w, 'namespaces: expected 0 to 5');
  const resourceNames = stringList(w, 'resource', v.resource);
  const resources = resourceNames.map((name) => {
    const r = ctx.resources.get(name);
    if (!r) fail(w, `resource: unknown resource profile "${name}" (known: ${[...ctx.resources.keys()].join(', ')})`);
    return r;
  });
  const header: ScenarioHeader = { id: v.id, rules, tags: tags as Tag[], needs: needs as Feature[], serves, file: where.file, namespaces };
  if (typeof v.description === 'string') header.description = v.description;
  return { header, resources };
}

/** One instance per resource type (`id[configmaps]`), or the scenario itself when not parameterised. */
function expand<T extends Scenario>(base: T, resources: ResourceProfile[]): T[] {
  if (resources.length === 0) return [base];
  return resources.map((r) => ({ ...base, id: `${base.id}[${r.name}]`, resource: r }));
}

function lineOf(doc: ReturnType<typeof parseDocument>, counter: LineCounter, path: (string | number)[]): number | undefined {
  const node = doc.getIn(path, true) as YamlNode | undefined;
  const offset = node?.range?.[0];
  return offset === undefined ? undefined : counter.linePos(offset).line;
}

function mergeDefaults(defaults: Record<string, unknown>, scenario: Record<string, unknown>): Record<string, unknown> {
  const out = { ...defaults, ...scenario };
  for (const key of ['tags', 'needs', 'serves'] as const) {
    if (Array.isArray(defaults[key]) && Array.isArray(scenario[key]))
      out[key] = [...new Set([...(defaults[key] as unknown[]), ...(scenario[key] as unknown[])])];
  }
  return out;
}

/** Parses one YAML suite. `area` (the directory) is checked against each id when given. */
export function parseSuite(text: string, file: string, ctx: LoadContext, area?: string): YamlScenario[] {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const line = e?.pos ? counter.linePos(e.pos[0]).line : undefined;
    fail({ file, ...(line ? { line } : {}) }, `YAML: ${e?.message ?? 'parse error'}`);
  }
  const root: unknown = doc.toJS();
  if (!isMapping(root) || !Array.isArray(root.scenarios))
    fail({ file }, 'expected a mapping with a "scenarios:" list (and optional "defaults:")');
  // Keys starting with x- hold YAML anchors shared by the suite's scenarios.
  onlyKeys({ file }, 'suite', Object.fromEntries(Object.entries(root).filter(([k]) => !k.startsWith('x-'))), ['defaults', 'scenarios']);
  const defaults = root.defaults ?? {};
  if (!isMapping(defaults)) fail({ file }, 'defaults: expected a mapping');
  onlyKeys({ file }, 'defaults', defaults, ['tags', 'needs', 'serves', 'resource', 'namespaces']);
  const out: YamlScenario[] = [];
  const seen = new Set<string>();
  root.scenarios.forEach((raw: unknown, i: number) => {
    const line = lineOf(doc, counter, ['scenarios', i]);
    const where: Where = { file, ...(line ? { line } : {}) };
    if (!isMapping(raw)) fail(where, `scenario ${i}: expected a mapping`);
    const merged = mergeDefaults(defaults, raw);
    onlyKeys({ ...where, id: String(raw.id ?? i) }, 'scenario', merged, [...SCENARIO_KEYS, 'steps']);
    const { header, resources } = parseHeader(where, merged, area, ctx);
    if (seen.has(header.id)) fail({ ...where, id: header.id }, 'duplicate id in this file');
    seen.add(header.id);
    if (!Array.isArray(raw.steps) || raw.steps.length === 0) fail({ ...where, id: header.id }, 'steps: expected a non-empty list');
    // A step may be an alias of a list of steps (a shared history): it is spliced in place.
    const flat: { value: unknown; path: (string | number)[] }[] = [];
    raw.steps.forEach((s: unknown, j: number) => {
      if (Array.isArray(s)) s.forEach((inner: unknown, k: number) => flat.push({ value: inner, path: ['scenarios', i, 'steps', j, k] }));
      else flat.push({ value: s, path: ['scenarios', i, 'steps', j] });
    });
    const steps = flat.map(({ value, path }, j) => {
      const stepLine = lineOf(doc, counter, path);
      return parseStep({ file, id: header.id, step: String(j), ...(stepLine ? { line: stepLine } : {}) }, value);
    });
    const waitsForWindow = steps.some((s) => s.kind === 'wait' && s.for !== undefined);
    if (waitsForWindow && !header.tags.includes('needs-history-expiry')) {
      fail(
        { ...where, id: header.id },
        'waits for a server window: tag it needs-history-expiry so runs without the window can leave it out',
      );
    }
    if (resources.length === 0 && JSON.stringify(steps).includes('${r.')) {
      fail({ ...where, id: header.id }, 'uses ${r.*} variables but lists no resource types under resource:');
    }
    out.push(...expand<YamlScenario>({ ...header, kind: 'yaml', steps }, resources));
  });
  return out;
}

/** What a TypeScript scenario module exports (`export const scenarios: CodeScenarioDefinition[]`). */
export interface CodeScenarioDefinition {
  id: string;
  rule: string | string[];
  description?: string;
  tags?: Tag[];
  needs?: Feature[];
  serves?: string[];
  namespaces?: number;
  resource?: string[];
  /** The write verbs, body formats, versions and boundary values its requests use. */
  exercises?: Partial<Exercises>;
  run: (ctx: ScenarioContext) => Promise<void>;
}

export function checkCodeScenarios(exported: unknown, file: string, ctx: LoadContext, area?: string): CodeScenario[] {
  if (!Array.isArray(exported)) fail({ file }, 'expected `export const scenarios = [...]`');
  const out: CodeScenario[] = [];
  exported.forEach((raw: unknown, i: number) => {
    if (!isMapping(raw)) fail({ file }, `scenarios[${i}]: expected an object`);
    const id = typeof raw.id === 'string' ? raw.id : String(i);
    onlyKeys({ file, id }, 'scenario', raw, [...SCENARIO_KEYS, 'exercises', 'run']);
    if (typeof raw.run !== 'function') fail({ file, id }, 'run: expected an async function (ctx) => void');
    const { header, resources } = parseHeader({ file }, raw, area, ctx);
    const run = raw.run as CodeScenario['run'];
    const exercises = raw.exercises === undefined ? {} : { exercises: checkExercises({ file, id }, raw.exercises) };
    out.push(...expand<CodeScenario>({ ...header, kind: 'code', run, ...exercises }, resources));
  });
  return out;
}

function checkExercises(where: Where, raw: unknown): Exercises {
  if (!isMapping(raw)) fail(where, 'exercises: expected {verbs, formats, versions, boundaries}');
  onlyKeys(where, 'exercises', raw, ['verbs', 'formats', 'versions', 'boundaries']);
  const list = <T extends string>(key: string, allowed: readonly T[] | undefined): T[] => {
    const v = raw[key];
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && (!allowed || (allowed as readonly string[]).includes(x)))) {
      fail(where, `exercises.${key}: expected a list${allowed ? ` of ${allowed.join(', ')}` : ' of strings'}`);
    }
    return v as T[];
  };
  return {
    verbs: list('verbs', WRITE_VERBS),
    formats: list('formats', BODY_FORMATS),
    versions: list<string>('versions', undefined),
    boundaries: list('boundaries', BOUNDARIES),
  };
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(full));
    // Code scenarios are .ts in the sources and .js once compiled (dist/); declaration files are not scenarios.
    else if (/\.ya?ml$/.test(name) || (/\.[jt]s$/.test(name) && !/\.(test|d)\.ts$/.test(name))) out.push(full);
  }
  return out;
}

/** Loads every suite under `dir`; ids must be unique across all of them. */
export async function loadScenarios(ctx: LoadContext, dir = DEFAULT_SCENARIO_DIR): Promise<Scenario[]> {
  const all: Scenario[] = [];
  for (const full of listFiles(dir)) {
    const file = relative(process.cwd(), full) || full;
    const area = basename(dirname(full)) === basename(dir) ? undefined : basename(dirname(full));
    if (/\.ya?ml$/.test(full)) {
      all.push(...parseSuite(readFileSync(full, 'utf8'), file, ctx, area));
    } else {
      const mod: unknown = await import(pathToFileURL(full).href);
      const exported = isMapping(mod) ? mod.scenarios : undefined;
      all.push(...checkCodeScenarios(exported, file, ctx, area));
    }
  }
  const byId = new Map<string, Scenario>();
  for (const s of all) {
    const other = byId.get(s.id);
    if (other) fail({ file: s.file, id: s.id }, `duplicate id, also in ${other.file}`);
    byId.set(s.id, s);
  }
  return all;
}
