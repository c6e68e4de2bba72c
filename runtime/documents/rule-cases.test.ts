import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '../api/index.js';
import { parse } from 'yaml';
import { allKinds } from '../../generated/kinds.js';
import { WatchEventSchema } from '../../generated/meta.svc.io/v1/index.js';
import { RuleSet } from '../cel/index.js';
import { type KindRegistration, type SchemaNode, defaulterOf, deref, validatorOf } from '../schema/index.js';
import { Collector } from '../validate/index.js';
import { DocumentValidator } from './index.js';

/**
 * The rule cases of `schemas/testdata/rules/<area>/*.yaml`: for every rule of schemas/RULES.md
 * (CEL rules, required fields, defaults) a valid and an invalid document, run through the document
 * validator. Every file under the directory runs, whoever wrote it; the coverage checks at the end
 * are per RULES.md section, for the sections whose kinds are listed in SECTIONS.
 *
 * A case:
 *   rule:     the CEL rule exactly as in the schema, or `required: Type.field`, `default: Type.field`
 *   valid:    a document that must be valid (no error)
 *   invalid:  a document that must be invalid, with an error at `field` whose message contains
 *             `expect` (and, for a CEL rule, whose rule is `rule`); omitted for default rows, and
 *             for a row no document can break (then `note` says why)
 *   defaults: for default rows, `{path: value}` that defaulting the valid document must produce
 *   old:      for transition rules (`oldSelf`), the object before the update: `valid` and `invalid`
 *             are then checked as updates of it, since a transition rule never runs on create
 *   note:     free text
 */

const ROOT = new URL('../../', import.meta.url).pathname;
const RULES_DIR = join(ROOT, 'schemas/testdata/rules');

interface RuleCase {
  rule: string;
  valid: string;
  invalid?: string;
  expect?: string;
  field?: string;
  defaults?: Record<string, unknown>;
  old?: string;
  note?: string;
}

type Obj = Record<string, unknown>;

/**
 * WatchEvent is contained by no kind of the schemas (it is the frame of a watch stream), but the
 * real system registers it as a kind of meta/v1, so its rows are checked as documents of that kind.
 */
const watchEventKind: KindRegistration = {
  group: 'meta.svc.io',
  version: 'v1',
  kind: 'WatchEvent',
  apiVersion: 'meta.svc.io/v1',
  // The frame's own fields, plus the apiVersion and kind a document of it carries.
  schema: {
    ...WatchEventSchema,
    fields: [{ name: 'apiVersion', schema: { type: 'string' } }, { name: 'kind', schema: { type: 'string' } }, ...WatchEventSchema.fields],
  },
};

const kinds: readonly KindRegistration[] = allKinds.some((k) => k.apiVersion === watchEventKind.apiVersion && k.kind === 'WatchEvent')
  ? allKinds
  : [...allKinds, watchEventKind];
const validator = new DocumentValidator(kinds);

function kindOf(doc: Obj): KindRegistration {
  const k = kinds.find((x) => x.apiVersion === doc.apiVersion && x.kind === doc.kind);
  if (!k) throw new Error(`no kind ${String(doc.kind)} in ${String(doc.apiVersion)}`);
  return k;
}

/** Required-field and default rows are named so; anything else is a CEL rule. */
const isCel = (rule: string): boolean => !/^(required|default):/.test(rule);

// ---------------------------------------------------------------------------------------- loading

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) return yamlFiles(full);
      return /\.ya?ml$/.test(name) ? [full] : [];
    });
}

interface CaseFile {
  /** Relative to schemas/testdata/rules: `core/core-v1-pod.yaml`. */
  name: string;
  cases: RuleCase[];
  /** Shape errors of the file itself. */
  errors: string[];
}

function loadFile(file: string): CaseFile {
  const name = relative(RULES_DIR, file);
  const errors: string[] = [];
  let data: unknown;
  try {
    data = parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return { name, cases: [], errors: [`not valid YAML: ${(e as Error).message}`] };
  }
  const list = (data as { cases?: unknown } | null)?.cases;
  if (!Array.isArray(list)) return { name, cases: [], errors: ['no `cases` list'] };
  const cases: RuleCase[] = [];
  list.forEach((raw: unknown, i) => {
    const c = raw as Partial<RuleCase> | null;
    const at = `case ${i + 1}${typeof c?.rule === 'string' ? ` (${c.rule})` : ''}`;
    if (typeof c?.rule !== 'string' || typeof c.valid !== 'string') return errors.push(`${at}: needs a rule and a valid document`);
    if (c.invalid !== undefined && (typeof c.invalid !== 'string' || typeof c.expect !== 'string' || typeof c.field !== 'string')) {
      return errors.push(`${at}: an invalid document needs expect and field`);
    }
    if (c.invalid === undefined && c.defaults === undefined && c.note === undefined) {
      return errors.push(`${at}: needs an invalid document (or defaults for a default row, or a note saying why there is none)`);
    }
    if (c.rule.startsWith('default:') && (typeof c.defaults !== 'object' || c.defaults === null))
      return errors.push(`${at}: a default row needs defaults`);
    if (c.old !== undefined && (typeof c.old !== 'string' || c.invalid === undefined))
      return errors.push(`${at}: old needs an invalid document`);
    cases.push(c as RuleCase);
    return undefined;
  });
  return { name, cases, errors };
}

const files = yamlFiles(RULES_DIR).map(loadFile);

// ---------------------------------------------------------------------------------------- checks

function readPath(value: unknown, path: string): unknown {
  let cur = value;
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = m[1] !== undefined ? (cur as Obj)[m[1]] : (cur as unknown[])[Number(m[2])];
  }
  return cur;
}

function validateOne(file: string, text: string) {
  const results = validator.validateText(file, text);
  expect(results, 'one document per case').toHaveLength(1);
  return results[0]!;
}

function expectValid(file: string, text: string): void {
  const r = validateOne(file, text);
  const errors = r.findings.filter((f) => f.severity === 'error').map((f) => f.message);
  expect(errors, 'the valid document has errors').toEqual([]);
  expect(r.status).toBe('valid');
}

/** The rule failures of `text` as an update of `oldText` (structure first, as the server does). */
function updateErrors(text: string, oldText: string): { field: string; message: string; rule?: string }[] {
  const value = parse(text) as Obj;
  const old = parse(oldText) as Obj;
  const kind = kindOf(value);
  defaulterOf(kind.schema)(value);
  defaulterOf(kind.schema)(old);
  const collector = new Collector();
  validatorOf(kind.schema)(value, '', collector);
  if (!collector.ok) return collector.errors.map((e) => ({ field: e.field, message: fieldErrorMessage(e) }));
  // The limits DocumentValidator uses: built-in kinds run unbounded, custom resources are estimated.
  const rules = new RuleSet(kind.schema, kind.resource?.custom ? {} : { costLimits: { estimated: Number.POSITIVE_INFINITY } });
  return rules.validate(value, old).map((e) => ({ field: e.field, message: fieldErrorMessage(e), rule: e.rule }));
}

function check(file: string, c: RuleCase): void {
  expectValid(file, c.valid);
  if (c.old !== undefined) expect(updateErrors(c.valid, c.old), 'the valid document as an update of old').toEqual([]);

  if (c.invalid !== undefined) {
    const findings =
      c.old !== undefined
        ? updateErrors(c.invalid, c.old)
        : (() => {
            const r = validateOne(file, c.invalid!);
            expect(r.status, `the invalid document is ${r.status}: ${r.findings.map((f) => f.message).join('; ')}`).toBe('invalid');
            return r.findings.filter((f) => f.severity === 'error');
          })();
    const hit = findings.find((f) => f.field === c.field && f.message.includes(c.expect!) && (!isCel(c.rule) || f.rule === c.rule));
    expect(
      hit,
      `no error at "${c.field}" containing "${c.expect}"${isCel(c.rule) ? ' from this rule' : ''}; errors: ${JSON.stringify(findings)}`,
    ).toBeDefined();
  }

  if (c.defaults !== undefined) {
    const value = parse(c.valid) as Obj;
    defaulterOf(kindOf(value).schema)(value);
    for (const [path, want] of Object.entries(c.defaults)) expect(readPath(value, path), `default at ${path}`).toEqual(want);
  }
}

for (const f of files) {
  describe(f.name, () => {
    if (f.errors.length > 0) it('is a well-formed case file', () => expect(f.errors).toEqual([]));
    f.cases.forEach((c, i) => {
      const label = `#${i + 1} ${c.rule}${c.field ? ` @ ${c.field}` : ''}`;
      it(label.length > 180 ? `${label.slice(0, 177)}...` : label, () => check(f.name, c));
    });
  });
}

// ---------------------------------------------------------------------------------------- coverage

/**
 * The RULES.md sections covered here: their anchors, their case directories under
 * schemas/testdata/rules, and the group/versions of their kinds (`core` is the core group).
 */
const SECTIONS = [
  {
    name: 'core and versions',
    anchors: ['core', 'versions', 'custom-resource'],
    dirs: ['core', 'versions'],
    groupVersions: [
      'meta.svc.io/v1',
      'core/v1',
      'authorization.svc.io/v1',
      'policy/v1',
      'flowcontrol.apiserver.svc.io/v1beta1',
      'flowcontrol.apiserver.svc.io/v1beta2',
      'flowcontrol.apiserver.svc.io/v1beta3',
      'flowcontrol.apiserver.svc.io/v1',
      'storage.svc.io/v1beta1',
      'storage.svc.io/v1',
      'autoscaling/v2beta2',
      'autoscaling/v2',
      'batch/v1beta1',
      'batch/v1',
      'discovery.svc.io/v1beta1',
      'discovery.svc.io/v1',
      'stable.example.svc.io/v1',
    ],
  },
];

const groupVersionOf = (k: KindRegistration): string => `${k.group === '' ? 'core' : k.group}/${k.version}`;

/** The nodes a (possibly referencing) node stands for: the references, then the concrete node. */
function chain(node: SchemaNode): SchemaNode[] {
  const out = [node];
  for (let n = node; n.type === 'ref'; ) out.push((n = n.ref()));
  return out;
}

/**
 * Where a rule sits: the named type that carries it (`core.v1.PodSpec`), or the place of a node that
 * is not a named type, as the named type around it and the steps from there (`...ResourcePolicyRule.verbs`,
 * `...ConfigMap.data`, `X.items[]`, `X.labels{}`).
 */
function ownerOf(holder: SchemaNode, place: string): string {
  return holder.type === 'object' && holder.typeName ? holder.typeName : place;
}

/** The place of the children of a node at `place`. */
function baseOf(node: SchemaNode, place: string): string {
  const n = deref(node);
  return n.type === 'object' && n.typeName ? n.typeName : place;
}

/** Every CEL rule of a kind's schema as `owner: rule`. */
function rulesOf(kind: KindRegistration, out: Set<string>): void {
  const visit = (node: SchemaNode, place: string, seen: readonly string[]): void => {
    for (const h of chain(node)) for (const r of h.rules ?? []) out.add(`${ownerOf(h, place)}: ${r.rule}`);
    const n = deref(node);
    if (n.type === 'object') {
      if (n.typeName && seen.includes(n.typeName)) return;
      const inner = n.typeName ? [...seen, n.typeName] : seen;
      for (const f of n.fields) visit(f.schema, `${baseOf(n, place)}.${f.name}`, inner);
    } else if (n.type === 'list') visit(n.items, `${place}[]`, seen);
    else if (n.type === 'map') visit(n.values, `${place}{}`, seen);
  };
  visit(kind.schema, kind.schema.typeName ?? `${kind.apiVersion}.${kind.kind}`, []);
}

/** `spec.rules[0].verbs`, `spec.rules[0]`, `spec.rules`, `spec`, `` (the root). */
function fieldAndAncestors(field: string): string[] {
  const out = [field];
  for (let f = field; f !== ''; ) {
    f = f.replace(/(\.[^.[\]]+|\[[^\]]*\])$|^[^.[\]]+$/, '');
    out.push(f);
  }
  return out;
}

/** The owners a rule failing at `field` (`spec.rules[0].verbs`, `data[key]`) of a kind's document can have. */
function ownersAt(kind: KindRegistration, field: string): string[] {
  let node: SchemaNode = kind.schema;
  let place = kind.schema.typeName ?? `${kind.apiVersion}.${kind.kind}`;
  for (const m of field.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)) {
    const n = deref(node);
    if (m[1] !== undefined) {
      if (n.type !== 'object') return [];
      const f = n.fields.find((x) => x.name === m[1]);
      if (!f) return [];
      place = `${baseOf(n, place)}.${f.name}`;
      node = f.schema;
    } else if (n.type === 'list') {
      place = `${place}[]`;
      node = n.items;
    } else if (n.type === 'map') {
      place = `${place}{}`;
      node = n.values;
    } else return [];
  }
  return chain(node).map((h) => ownerOf(h, place));
}

/** RULES.md rows (`required: Type.field`, `default: Type.field`) of some sections, one entry per row. */
function requiredAndDefaultRows(anchors: readonly string[]): string[] {
  const out: string[] = [];
  let section = '';
  for (const line of readFileSync(join(ROOT, 'schemas/RULES.md'), 'utf8').split('\n')) {
    const anchor = /^<a id="([^"]+)"><\/a>/.exec(line);
    if (anchor) section = anchor[1]!;
    if (!anchors.includes(section) || !line.startsWith('|') || line.startsWith('|---')) continue;
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((s) => s.trim());
    const mechanism = cells[cells.length - 1]!;
    const where = cells[cells.length - 2]!.replace(/^`|`$/g, '');
    if (mechanism === 'required') out.push(`required: ${where}`);
    else if (mechanism.startsWith('default:')) out.push(`default: ${where}`);
  }
  return out;
}

describe('coverage of the rule cases', () => {
  for (const s of SECTIONS) {
    const mine = files.filter((f) => s.dirs.some((d) => f.name.startsWith(`${d}/`)));
    const cases = mine.flatMap((f) => f.cases);

    it(`every CEL rule of the ${s.name} kinds has a case`, () => {
      const rules = new Set<string>();
      for (const k of allKinds) if (s.groupVersions.includes(groupVersionOf(k))) rulesOf(k, rules);
      expect(rules.size).toBeGreaterThan(0);
      const covered = new Set<string>();
      for (const c of cases) {
        if (!isCel(c.rule) || c.invalid === undefined || c.field === undefined) continue;
        let kind: KindRegistration;
        try {
          kind = kindOf(parse(c.invalid) as Obj);
        } catch {
          continue;
        }
        // A rule with a fieldPath reports below the node that carries it: the rule may sit at the
        // field or at any node above it.
        for (const field of fieldAndAncestors(c.field)) for (const owner of ownersAt(kind, field)) covered.add(`${owner}: ${c.rule}`);
      }
      const uncovered = [...rules].filter((r) => !covered.has(r)).sort();
      expect(uncovered, `CEL rules of the ${s.name} kinds without a case (owner: rule)`).toEqual([]);
    });

    it(`every required and default row of the ${s.name} sections of RULES.md has a case`, () => {
      const rows = requiredAndDefaultRows(s.anchors);
      expect(rows.length).toBeGreaterThan(0);
      const count = new Map<string, number>();
      for (const c of cases) count.set(c.rule, (count.get(c.rule) ?? 0) + 1);
      const missing: string[] = [];
      for (const row of rows) {
        const n = count.get(row) ?? 0;
        if (n === 0) missing.push(row);
        else count.set(row, n - 1);
      }
      expect(missing, `RULES.md rows of ${s.name} without a case (one case per row)`).toEqual([]);
      const unknown = cases.filter((c) => !isCel(c.rule) && !rows.includes(c.rule)).map((c) => c.rule);
      expect(unknown, 'cases naming no RULES.md row').toEqual([]);
    });
  }
});
