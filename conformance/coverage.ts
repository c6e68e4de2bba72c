/**
 * What the scenarios of a write-path rule exercise: the write verbs, body formats, API versions
 * and boundary values their requests use. A rule is covered on the write path only when its
 * scenarios use every verb, format and boundary it applies to (rules.yaml `writePath`, with a
 * reason for each one that does not apply), so the kit cannot pass a server that breaks the rule
 * on one path while a scenario checks another.
 */
import { parseAllDocuments } from 'yaml';
import { isObject } from './json.js';
import type { SpecRule } from './rules.js';
import {
  BODY_FORMATS,
  type BodyFormat,
  BOUNDARIES,
  type Boundary,
  type Exercises,
  type RequestSpec,
  type Scenario,
  type Step,
  WRITE_VERBS,
  type WriteVerb,
} from './types.js';

const PATCH_VERBS: Readonly<Record<string, WriteVerb>> = {
  'application/merge-patch+json': 'merge-patch',
  'application/json-patch+json': 'json-patch',
  'application/strategic-merge-patch+json': 'strategic-merge-patch',
  'application/apply-patch+yaml': 'apply',
};

function formatOf(contentType: string | undefined): BodyFormat | undefined {
  const type = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/yaml') return 'yaml';
  if (type.endsWith('protobuf')) return 'protobuf';
  return undefined;
}

function verbOf(request: RequestSpec): WriteVerb | undefined {
  switch (request.method.toUpperCase()) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return PATCH_VERBS[(request.contentType ?? '').split(';')[0]!.trim().toLowerCase()];
    default:
      return undefined;
  }
}

function versionOf(path: string, scenario: Scenario): string | undefined {
  if (path.includes('${r.') && scenario.resource) {
    const r = scenario.resource;
    return r.group ? `${r.group}/${r.version}` : r.version;
  }
  const core = /^\/api\/([^/]+)/.exec(path);
  if (core) return core[1];
  const named = /^\/apis\/([^/]+)\/([^/]+)/.exec(path);
  return named ? `${named[1]}/${named[2]}` : undefined;
}

/** The boundary values a write body holds: a 0, an empty string or list, a null. */
function boundariesIn(value: unknown, out: Set<Boundary>): void {
  if (value === null) out.add('null');
  else if (value === 0) out.add('zero');
  else if (value === '') out.add('empty');
  else if (Array.isArray(value)) {
    if (value.length === 0) out.add('empty');
    for (const v of value) boundariesIn(v, out);
  } else if (isObject(value)) for (const v of Object.values(value)) boundariesIn(v, out);
}

function bodyOf(request: RequestSpec): unknown {
  if (request.body !== undefined) return request.body;
  if (request.bodyText === undefined) return undefined;
  try {
    return parseAllDocuments(request.bodyText).map((d) => d.toJS() as unknown);
  } catch {
    return undefined;
  }
}

/** A request that leaves a required field out: the scenario expects a Required value error. */
function expectsRequired(step: Extract<Step, { kind: 'request' }>): boolean {
  const error = step.expect?.error;
  if (!error) return false;
  if (error.causes?.some((c) => c.reason === 'FieldValueRequired')) return true;
  return typeof error.message === 'string' && /Required value/.test(error.message);
}

function requestSteps(steps: readonly Step[]): Extract<Step, { kind: 'request' }>[] {
  return steps.flatMap((s) => (s.kind === 'request' ? [s] : s.kind === 'watch' ? s.actions : []));
}

/**
 * A write the scenario judges, not one that sets the stage: it expects an error status or checks
 * more of the answer than a success code (setup steps create objects and capture versions).
 */
function isChecked(step: Extract<Step, { kind: 'request' }>): boolean {
  const e = step.expect;
  if (!e) return false;
  if (e.error || e.body !== undefined || e.at || e.headers || e.text || e.protobuf) return true;
  return (e.status ?? []).some((s) => s >= 300);
}

/** What one scenario exercises on the write path. */
export function exercisesOf(scenario: Scenario): Exercises {
  if (scenario.kind === 'code') return scenario.exercises ?? { verbs: [], formats: [], versions: [], boundaries: [] };
  const verbs = new Set<WriteVerb>();
  const formats = new Set<BodyFormat>();
  const versions = new Set<string>();
  const boundaries = new Set<Boundary>();
  for (const step of requestSteps(scenario.steps)) {
    const verb = verbOf(step.request);
    if (!verb || !isChecked(step)) continue;
    verbs.add(verb);
    if (verb === 'create' || verb === 'update') {
      const format = formatOf(step.request.contentType);
      if (format) formats.add(format);
    }
    const version = versionOf(step.request.path, scenario);
    if (version) versions.add(version);
    boundariesIn(bodyOf(step.request), boundaries);
    if (expectsRequired(step)) boundaries.add('absent');
  }
  return { verbs: [...verbs], formats: [...formats], versions: [...versions], boundaries: [...boundaries] };
}

/** The union of what several scenarios exercise, in the catalogue's order. */
export function unionOf(all: readonly Exercises[]): Exercises {
  const pick = <T extends string>(order: readonly T[], key: keyof Exercises) =>
    order.filter((x) => all.some((e) => (e[key] as readonly string[]).includes(x)));
  const versions = [...new Set(all.flatMap((e) => e.versions))].sort();
  return {
    verbs: pick(WRITE_VERBS, 'verbs'),
    formats: pick(BODY_FORMATS, 'formats'),
    versions,
    boundaries: pick(BOUNDARIES, 'boundaries'),
  };
}

/** What a write-path rule applies to and its scenarios leave out, as `verb:apply`, `format:yaml`, ... */
export function writePathGaps(rule: SpecRule, exercised: Exercises): string[] {
  const w = rule.writePath;
  if (!w) return [];
  const exempt = w.exempt ?? {};
  const missing = (dimension: string, wanted: readonly string[], got: readonly string[]) =>
    wanted.filter((x) => !(x in exempt) && !got.includes(x)).map((x) => `${dimension}:${x}`);
  // Body formats are those of create and update; a patch body is in its patch type's format.
  const sendsObjects = !('create' in exempt && 'update' in exempt);
  return [
    ...missing('verb', WRITE_VERBS, exercised.verbs),
    ...(sendsObjects ? missing('format', BODY_FORMATS, exercised.formats) : []),
    ...missing('version', w.versions ?? [], exercised.versions),
    ...missing('boundary', w.boundaries ?? [], exercised.boundaries),
  ];
}

/** Catalogue problems: exemptions that name nothing the check knows, or carry no reason. */
export function writePathProblems(rule: SpecRule): string[] {
  const known = new Set<string>([...WRITE_VERBS, ...BODY_FORMATS, ...BOUNDARIES]);
  return Object.entries(rule.writePath?.exempt ?? {}).flatMap(([k, reason]) => [
    ...(known.has(k) ? [] : [`${rule.ref}: writePath.exempt names "${k}", not a verb, format or boundary`]),
    ...(reason.trim() ? [] : [`${rule.ref}: writePath.exempt.${k} needs a reason`]),
  ]);
}
