import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import {
  type KindRegistration,
  type ListSchema,
  type MapSchema,
  type NodeCommon,
  type ObjectSchema,
  type SchemaNode,
  deref,
  validatorOf,
} from '../schema/index.js';
import type { FieldError } from '../api/index.js';
import { compileRegex } from '../regex/index.js';
import { Collector } from './index.js';

/**
 * Property-style check of every generated validator against its own schema descriptor: for every
 * field (and list item and map value) of every kind that carries a keyword constraint, build the
 * smallest document that is valid except for one value violating exactly that constraint, and
 * require that the validator reports it at exactly that field's path, and nothing anywhere else.
 * Required fields (left out) and JSON types (a value of another type) are exercised the same way.
 */

type Node = Exclude<SchemaNode, { type: 'ref' }>;
type Step = { field: string } | { item: true } | { entry: true };

/** A place in a kind's documents: the steps from the root and the node found there. */
interface Site {
  kind: KindRegistration;
  steps: Step[];
  node: Node;
  /** The constraints at this place: the node's, and those written on a reference to it. */
  c: NodeCommon & { format?: string };
  required: boolean;
  /** Where the constraint is written: `core.v1.ContainerPort.containerPort`, `...ServiceSpec.ipFamilies[]`. */
  definition: string;
}

interface Case {
  site: Site;
  keyword: string;
  value: unknown;
  type: FieldError['type'];
  message?: string;
}

const ENTRY_KEY = 'k0';
/** Marks a field to leave out rather than set. */
const ABSENT = Symbol('absent');

function sitesOf(kind: KindRegistration): Site[] {
  const out: Site[] = [];
  const walk = (node: SchemaNode, steps: Step[], required: boolean, definition: string, seen: readonly string[]): void => {
    const n = deref(node);
    const ref = node.type === 'ref' ? node : undefined;
    if (steps.length > 0) out.push({ kind, steps, node: n, c: { ...n, ...pickCommon(ref) }, required, definition });
    if (n.type === 'object') {
      if (n.typeName && seen.includes(n.typeName)) return;
      const inner = n.typeName ? [...seen, n.typeName] : seen;
      for (const f of n.fields)
        walk(f.schema, [...steps, { field: f.name }], f.required === true, `${n.typeName ?? definition}.${f.name}`, inner);
    } else if (n.type === 'list') walk(n.items, [...steps, { item: true }], false, `${definition}[]`, seen);
    else if (n.type === 'map') walk(n.values, [...steps, { entry: true }], false, `${definition}{}`, seen);
  };
  walk(kind.schema, [], false, kind.schema.typeName ?? kind.kind, []);
  return out;
}

/** Constraints written on a reference node itself (they apply besides the target's). */
function pickCommon(ref: SchemaNode | undefined): NodeCommon {
  if (!ref) return {};
  const { enum: e, minimum, maximum, minLength, maxLength, pattern, minItems, maxItems, nullable } = ref;
  return Object.fromEntries(
    Object.entries({ enum: e, minimum, maximum, minLength, maxLength, pattern, minItems, maxItems, nullable }).filter(
      ([, v]) => v !== undefined,
    ),
  );
}

/** A map entry is `[key]` in svckit's own kinds' paths and `.key` in a custom resource's (kube-openapi's). */
function pathOf(steps: Step[], custom = false): string {
  let p = '';
  for (const s of steps)
    p += 'field' in s ? (p === '' ? s.field : `.${s.field}`) : 'item' in s ? '[0]' : custom ? `.${ENTRY_KEY}` : `[${ENTRY_KEY}]`;
  return p;
}

// Values that satisfy each pattern of the built-in schemas (the first that fits is used).
const STRING_CANDIDATES = [
  'a',
  'abc',
  'a.b',
  'a.b.c',
  'example.com/a',
  'https://example.com',
  'https://example.com:6443',
  'abcdef.0123456789abcdef',
  'registry.example/image:v1',
  'YWJj',
  'a_b',
  'A',
  '0 2 * * *',
  '*/5 * * * *',
  'Etc/UTC',
];
// Values that break patterns: the first one the pattern rejects is used.
const PATTERN_BREAKERS = ['Not Valid!', '', ' ', '-', '/', '\u0000', 'a b', 'a//b'];

function satisfies(s: string, c: NodeCommon): boolean {
  const len = [...s].length;
  if (c.minLength !== undefined && len < c.minLength) return false;
  if (c.maxLength !== undefined && len > c.maxLength) return false;
  if (c.pattern !== undefined && !compileRegex(c.pattern).test(s)) return false;
  return c.enum === undefined || c.enum.includes(s);
}

/** A valid value of a node; `seed` varies strings and numbers so list items stay distinct. */
function validValue(node: SchemaNode, seed: number, seen: readonly string[] = []): unknown {
  const n = deref(node);
  const c: NodeCommon = { ...n, ...pickCommon(node.type === 'ref' ? node : undefined) };
  if (c.enum !== undefined && c.enum.length > 0) return c.enum[seed % c.enum.length];
  switch (n.type) {
    case 'object': {
      const o: Record<string, unknown> = {};
      if (n.typeName && seen.includes(n.typeName)) return o;
      const inner = n.typeName ? [...seen, n.typeName] : seen;
      for (const f of n.fields) if (f.required) o[f.name] = validValue(f.schema, seed, inner);
      return o;
    }
    case 'list': {
      const count = Math.max(n.minItems ?? 0, 0);
      return Array.from({ length: count }, (_, i) => validValue(n.items, seed + i, seen));
    }
    case 'map': {
      const count = Math.max(n.minProperties ?? 0, 0);
      return Object.fromEntries(Array.from({ length: count }, (_, i) => [`v${i}`, validValue(n.values, seed + i, seen)]));
    }
    case 'string': {
      const variants =
        seed === 0 ? STRING_CANDIDATES : [`a${seed}`, `abc${seed}`, ...STRING_CANDIDATES.map((s) => `${s}${seed}`), ...STRING_CANDIDATES];
      const found = [...variants, 'a'.repeat(c.minLength ?? 1)].find((s) => satisfies(s, c));
      if (found === undefined) throw new Error(`no valid string for ${JSON.stringify(c)}`);
      return found;
    }
    case 'integer':
    case 'number': {
      const low = c.minimum === undefined ? 0 : c.exclusiveMinimum ? c.minimum + 1 : c.minimum;
      const v = low + seed;
      return c.maximum !== undefined && v > c.maximum ? c.maximum : v;
    }
    case 'boolean':
      return seed % 2 === 0;
    case 'bytes':
      return 'YWJj';
    case 'date':
      return '2024-01-01';
    case 'date-time':
      return '2024-01-01T00:00:00Z';
    case 'duration':
      return `${seed + 1}s`;
    case 'quantity':
      return `${seed + 1}`;
    case 'int-or-string':
      return seed + 1;
    case 'raw':
      return {};
  }
}

/** The document with the site's ancestors (each otherwise minimal and valid) and `leaf` at the site. */
function documentAt(site: Site, leaf: unknown): unknown {
  const build = (node: SchemaNode, steps: Step[], seen: readonly string[]): unknown => {
    if (steps.length === 0) return leaf;
    const n = deref(node);
    const [step, ...rest] = steps as [Step, ...Step[]];
    if ('field' in step) {
      const o = n as ObjectSchema;
      const inner = o.typeName ? [...seen, o.typeName] : seen;
      const obj = validValue(o, 0, seen) as Record<string, unknown>;
      const f = o.fields.find((x) => x.name === step.field)!;
      const value = build(f.schema, rest, inner);
      if (value === ABSENT) delete obj[step.field];
      else obj[step.field] = value;
      return obj;
    }
    if ('item' in step) {
      const l = n as ListSchema;
      const others = Array.from({ length: Math.max((l.minItems ?? 0) - 1, 0) }, (_, i) => validValue(l.items, i + 1, seen));
      return [build(l.items, rest, seen), ...others];
    }
    const m = n as MapSchema;
    const others = Array.from({ length: Math.max((m.minProperties ?? 0) - 1, 0) }, (_, i) => [
      `v${i + 1}`,
      validValue(m.values, i + 1, seen),
    ]);
    return { [ENTRY_KEY]: build(m.values, rest, seen), ...Object.fromEntries(others) };
  };
  return build(site.kind.schema, site.steps, []);
}

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

/** The cases of one site: one per constraint it carries, each with the value that breaks it. */
function casesOf(site: Site): { cases: Case[]; skipped: { site: Site; keyword: string; reason: string }[] } {
  const { c, node } = site;
  const cases: Case[] = [];
  const skipped: { site: Site; keyword: string; reason: string }[] = [];
  const add = (keyword: string, value: unknown, type: FieldError['type'], message?: string) =>
    cases.push({ site, keyword, value, type, message });
  const skip = (keyword: string, reason: string) => skipped.push({ site, keyword, reason });
  const integer = node.type === 'integer';

  if (site.required) add('required', ABSENT, 'FieldValueRequired');
  const wrongType = wrongTypeValue(node);
  if (wrongType !== undefined) add('type', wrongType, 'FieldValueTypeInvalid', 'must be of type ');

  if (c.enum !== undefined) {
    const outside =
      node.type === 'boolean'
        ? [true, false].find((b) => !c.enum!.includes(b))
        : typeof c.enum[0] === 'number' || integer
          ? Math.max(...(c.enum as number[])) + 1
          : 'not-a-supported-value';
    if (outside === undefined) skip('enum', 'every boolean is allowed');
    else add('enum', outside, 'FieldValueNotSupported', 'supported values: ');
  }
  if (c.minimum !== undefined) {
    const v = c.exclusiveMinimum ? c.minimum : integer ? c.minimum - 1 : c.minimum - 0.5;
    if (integer && c.format === 'int32' && v < INT32_MIN) skip('minimum', 'below int32: the format is the bound');
    else add('minimum', v, 'FieldValueInvalid', 'must be greater than');
  }
  if (c.maximum !== undefined)
    add('maximum', c.exclusiveMaximum ? c.maximum : integer ? c.maximum + 1 : c.maximum + 0.5, 'FieldValueInvalid', 'must be less than');
  if (c.minLength !== undefined) {
    if (c.minLength === 0) skip('minLength', 'minLength 0 accepts every string');
    else add('minLength', 'a'.repeat(c.minLength - 1), 'FieldValueInvalid', 'must be at least ');
  }
  if (c.maxLength !== undefined) add('maxLength', 'a'.repeat(c.maxLength + 1), 'FieldValueTooLong', 'may not be more than ');
  if (c.pattern !== undefined) {
    const re = compileRegex(c.pattern);
    const breaker = PATTERN_BREAKERS.find((s) => !re.test(s));
    if (breaker === undefined) skip('pattern', `${c.pattern} accepts every candidate`);
    else add('pattern', breaker, 'FieldValueInvalid', 'must match ');
  }
  if (node.type === 'list') {
    if (node.minItems !== undefined) {
      if (node.minItems === 0) skip('minItems', 'minItems 0 accepts every list');
      else add('minItems', distinctItems(node, node.minItems - 1), 'FieldValueInvalid', 'must have at least ');
    }
    if (node.maxItems !== undefined) add('maxItems', distinctItems(node, node.maxItems + 1), 'FieldValueTooMany', 'must have at most ');
  }
  if (node.type === 'map') {
    if (node.minProperties !== undefined && node.minProperties > 0)
      add('minProperties', entries(node, node.minProperties - 1), 'FieldValueInvalid', 'must have at least ');
    if (node.maxProperties !== undefined)
      add('maxProperties', entries(node, node.maxProperties + 1), 'FieldValueTooMany', 'must have at most ');
  }
  // Beyond int32 (a maximum inside int32 reports too, at the same path: both are expected there).
  if (integer && c.format === 'int32') add('format int32', INT32_MAX + 1, 'FieldValueInvalid', 'out of range for int32');
  if (integer && c.format === 'int64') add('format int64', 2 ** 53, 'FieldValueInvalid', 'out of range for int64');
  const formats: Partial<Record<Node['type'], [string, FieldError['type'], string]>> = {
    'date-time': ['2024-02-30T00:00:00Z', 'FieldValueInvalid', 'must be an RFC 3339 timestamp'],
    date: ['2024-02-30', 'FieldValueInvalid', 'must be a date'],
    duration: ['5 minutes', 'FieldValueInvalid', 'must be a duration'],
    // Go decodes bytes before validating: a decoding error (a wrong type's kind), without the value.
    bytes: ['not base64!', 'FieldValueTypeInvalid', 'illegal base64 data at input byte 3'],
    quantity: ['lots', 'FieldValueInvalid', 'must be a quantity'],
  };
  const format = formats[node.type];
  if (format) add(`format ${node.type === 'bytes' ? 'byte' : node.type}`, format[0], format[1], format[2]);
  return { cases, skipped };
}

/** A value of another JSON type; none for nodes that take any JSON or report a format instead. */
function wrongTypeValue(node: Node): unknown {
  switch (node.type) {
    case 'string':
    case 'bytes':
    case 'date':
    case 'date-time':
    case 'duration':
      return 12345;
    case 'integer':
    case 'number':
    case 'boolean':
    case 'list':
    case 'map':
    case 'object':
      return 'wrong';
    case 'int-or-string':
      return true;
    default:
      return undefined;
  }
}

function distinctItems(list: ListSchema, count: number): unknown[] {
  return Array.from({ length: count }, (_, i) => validValue(list.items, i + 1));
}

function entries(map: MapSchema, count: number): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`v${i}`, validValue(map.values, i + 1)]));
}

/** Group/versions defined by CRDs: their validators word errors as kube-openapi does. */
const customVersions = new Set(allKinds.filter((k) => k.resource?.custom).map((k) => k.apiVersion));

/** kube-openapi's phrase for each broken constraint (pkg/validation/errors), found inside the detail. */
const OPENAPI_PHRASES: Readonly<Record<string, string>> = {
  type: ' in body must be of type ',
  enum: 'supported values: ',
  minimum: ' in body should be greater than',
  maximum: ' in body should be less than',
  minLength: ' in body should be at least ',
  maxLength: 'may not be more than ',
  pattern: ' in body should match ',
  minItems: ' in body should have at least ',
  maxItems: 'must have at most ',
  minProperties: ' in body should have at least ',
  maxProperties: 'must have at most ',
  'format date-time': ' in body must be of type date-time: ',
  'format date': ' in body must be of type date: ',
  'format duration': ' in body must be of type duration: ',
};

/** Object metadata is checked by Go code upstream, custom resource or not. */
function detailMatches(k: Case, path: string, detail: string): boolean {
  if (k.message === undefined) return true;
  if (!customVersions.has(k.site.kind.apiVersion) || /(^|\.)metadata(\.|$)/.test(path)) return detail.startsWith(k.message);
  return detail.includes(OPENAPI_PHRASES[k.keyword] ?? k.message);
}

interface Outcome {
  label: string;
  problem?: string;
}

function run(k: Case): Outcome {
  const inMeta = k.site.steps.some((s) => 'field' in s && s.field === 'metadata');
  const path = pathOf(k.site.steps, customVersions.has(k.site.kind.apiVersion) && !inMeta);
  const label = `${k.site.kind.apiVersion} ${k.site.kind.kind} ${path} ${k.keyword}`;
  const c = new Collector();
  validatorOf(k.site.kind.schema)(documentAt(k.site, k.value), '', c);
  const elsewhere = c.errors.filter((e) => e.field !== path);
  const hit = c.errors.some((e) => e.field === path && e.type === k.type && detailMatches(k, path, e.detail));
  if (!hit) return { label, problem: `no ${k.type} at ${path}; got ${JSON.stringify(c.errors)}` };
  if (elsewhere.length > 0) return { label, problem: `errors elsewhere: ${JSON.stringify(elsewhere)}` };
  if (c.unknownFields.length > 0) return { label, problem: `unknown fields: ${c.unknownFields.join(', ')}` };
  return { label };
}

describe('constraint mutations over every kind', () => {
  const sites = allKinds.flatMap(sitesOf);
  const built = sites.map(casesOf);
  const cases = built.flatMap((b) => b.cases);
  const skipped = built.flatMap((b) => b.skipped);

  it('the minimal documents themselves are valid', () => {
    const problems: string[] = [];
    for (const k of allKinds) {
      const c = new Collector();
      validatorOf(k.schema)(validValue(k.schema, 0), '', c);
      if (!c.ok || c.unknownFields.length > 0) problems.push(`${k.apiVersion} ${k.kind}: ${JSON.stringify(c.errors)}`);
    }
    expect(problems).toEqual([]);
  });

  it('each violation is reported at exactly its field', () => {
    const failures = cases.map(run).filter((o) => o.problem !== undefined);
    expect(failures.map((f) => `${f.label}: ${f.problem}`)).toEqual([]);
  });

  it('exercises every keyword, above a floor', () => {
    const byKeyword: Record<string, number> = {};
    for (const k of cases) byKeyword[k.keyword] = (byKeyword[k.keyword] ?? 0) + 1;
    const keywordCases = cases.filter((k) => k.keyword !== 'required' && k.keyword !== 'type');
    // The same constraint is reached from many kinds (ObjectMeta, PodSpec): count where it is written.
    const distinct = new Set(keywordCases.map((k) => `${k.site.definition} ${k.keyword}`));
    // One line for the record: how much of the schemas this covers.
    console.info(
      `constraint mutations: ${keywordCases.length} keyword-constraint cases (${distinct.size} distinct constraints in the schemas), plus ${byKeyword.required ?? 0} required and ${byKeyword.type ?? 0} type cases, over ${allKinds.length} kinds; skipped ${skipped.length}${skipped.length ? ` (${[...new Set(skipped.map((s) => `${s.keyword}: ${s.reason}`))].join('; ')})` : ''}; by keyword ${JSON.stringify(byKeyword)}`,
    );
    for (const keyword of [
      'enum',
      'minimum',
      'maximum',
      'minLength',
      'maxLength',
      'pattern',
      'minItems',
      'maxItems',
      'format int32',
      'format int64',
      'format date-time',
      'format duration',
      'format byte',
      'format quantity',
      'required',
      'type',
    ]) {
      expect(byKeyword[keyword] ?? 0, keyword).toBeGreaterThan(0);
    }
    expect(keywordCases.length).toBeGreaterThanOrEqual(FLOOR);
  });
});

/** Keyword-constraint cases reached over the built-in kinds when this was written. */
const FLOOR = 3700;
