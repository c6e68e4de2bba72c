import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { allKinds } from '../../generated/kinds.js';
import { defaulterOf, deref, type KindRegistration, type SchemaNode } from '../schema/index.js';
import { type DocumentResult, DocumentValidator } from './validate-documents.js';

/**
 * Every rule of the `server-config` and `components` sections of `schemas/RULES.md` that a document
 * can break (CEL rules, required fields) has a valid and an invalid test document, and every default
 * has a document showing the value defaulting writes. The cases live in
 * `schemas/testdata/rules/{server-config,components}/*.yaml`:
 *
 *   cases:
 *     - rule: "<CEL rule as in the schema>" | "required: Type.field" | "default: Type.field"
 *       valid: <document text>             # valid, no error
 *       invalid: <document text>           # CEL and required rows: invalid, with an error that
 *       expect: <message substring>        #   contains `expect`, at `field`, and (CEL) whose rule
 *       field: <field path>                #   is the case's rule
 *       defaults: {<path>: <value>}        # default rows: the values after defaulting
 *
 * Coverage: every CEL rule reachable from the kinds of these groups has a case, and every
 * `required`/`default` row of the two sections of RULES.md has a case (per apiVersion holding it).
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const SECTIONS = ['server-config', 'components'] as const;

/** The groups of the two sections (schemas/<group>/...). */
const GROUPS = new Set([
  'client.authentication.svc.io',
  'eventratelimit.admission.svc.io',
  'imagepolicy.svc.io',
  'authentication.svc.io',
  'admission.svc.io',
  'audit.svc.io',
  'apiserver.config.svc.io',
  'apiserver.svc.io',
  'config.svc.io',
  'svccontrollermanager.config.svc.io',
  'cloudcontrollermanager.config.svc.io',
  'controllermanager.config.svc.io',
  'svcproxy.config.svc.io',
  'svcscheduler.config.svc.io',
  'bootstraptoken.svc.io',
  'svcadm.svc.io',
]);

interface RuleCase {
  rule: string;
  valid: string;
  invalid?: string;
  expect?: string;
  field?: string;
  defaults?: Record<string, unknown>;
}

interface LoadedCase extends RuleCase {
  file: string;
  index: number;
}

function loadCases(): LoadedCase[] {
  const out: LoadedCase[] = [];
  for (const section of SECTIONS) {
    const dir = join(root, 'schemas/testdata/rules', section);
    for (const name of readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .sort()) {
      const file = `${section}/${name}`;
      const data = parse(readFileSync(join(dir, name), 'utf8')) as { cases?: RuleCase[] } | null;
      if (!data || !Array.isArray(data.cases)) throw new Error(`${file}: no "cases" list`);
      data.cases.forEach((c, index) => out.push({ ...c, file, index }));
    }
  }
  return out;
}

const cases = loadCases();
const validator = new DocumentValidator(allKinds);
const kindsByKey = new Map(allKinds.map((k) => [`${k.apiVersion} ${k.kind}`, k]));

const isDefaultRow = (c: RuleCase): boolean => c.rule.startsWith('default: ');
const isRequiredRow = (c: RuleCase): boolean => c.rule.startsWith('required: ');
const isCelRow = (c: RuleCase): boolean => !isDefaultRow(c) && !isRequiredRow(c);

function validate(name: string, text: string): DocumentResult {
  const results = validator.validateText(name, text, { strict: true });
  expect(results, `${name}: exactly one document`).toHaveLength(1);
  return results[0]!;
}

function describeFindings(r: DocumentResult): string {
  return (
    r.findings.map((f) => `  [${f.severity}] ${f.field || '<root>'}: ${f.message}${f.rule ? `\n      rule: ${f.rule}` : ''}`).join('\n') ||
    '  (no findings)'
  );
}

/** Reads `a.b[0].c` out of a value. */
function at(value: unknown, path: string): unknown {
  let v = value;
  for (const step of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (v === null || typeof v !== 'object') return undefined;
    v = step.startsWith('[') ? (v as unknown[])[Number(step.slice(1, -1))] : (v as Record<string, unknown>)[step];
  }
  return v;
}

function title(c: LoadedCase): string {
  const rule = c.rule.replace(/\s+/g, ' ');
  return `${c.file} #${c.index + 1}: ${rule.length > 110 ? `${rule.slice(0, 107)}...` : rule}`;
}

describe('config rule cases (server-config, components)', () => {
  it('has cases', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases.map((c) => [title(c), c] as const))('%s', (_, c) => {
    expect(typeof c.rule, 'rule').toBe('string');
    expect(typeof c.valid, 'valid document').toBe('string');

    const valid = validate(`${c.file} #${c.index + 1} valid`, c.valid);
    expect(valid.status, `valid document must be valid:\n${describeFindings(valid)}`).toBe('valid');
    expect(
      valid.findings.filter((f) => f.severity === 'error'),
      'valid document: no error',
    ).toEqual([]);

    if (isDefaultRow(c)) {
      expect(c.defaults, 'default rows list the defaulted values').toBeTypeOf('object');
      expect(c.invalid, 'default rows have no invalid document').toBeUndefined();
      const value = parse(c.valid) as Record<string, unknown>;
      const kind = kindsByKey.get(`${String(value.apiVersion)} ${String(value.kind)}`);
      expect(kind, 'the valid document is of a known kind').toBeDefined();
      defaulterOf(kind!.schema)(value);
      for (const [path, want] of Object.entries(c.defaults!)) {
        expect(at(value, path), `after defaulting, ${path}`).toEqual(want);
      }
      return;
    }

    expect(typeof c.invalid, 'invalid document').toBe('string');
    expect(typeof c.expect, 'expect').toBe('string');
    expect(typeof c.field, 'field').toBe('string');
    const invalid = validate(`${c.file} #${c.index + 1} invalid`, c.invalid!);
    expect(invalid.status, `invalid document must be invalid:\n${describeFindings(invalid)}`).toBe('invalid');
    const hit = invalid.findings.find(
      (f) => f.severity === 'error' && f.field === c.field && f.message.includes(c.expect!) && (!isCelRow(c) || f.rule === c.rule),
    );
    expect(
      hit,
      `invalid document: no error at "${c.field}" containing "${c.expect}"${isCelRow(c) ? " from the case's rule" : ''}; got:\n${describeFindings(invalid)}`,
    ).toBeDefined();
  });
});

/** Every CEL rule of a kind's schema tree, following references, lists and maps. */
function celRulesOf(kind: KindRegistration): string[] {
  const out: string[] = [];
  const seen = new Set<SchemaNode>();
  const walk = (node: SchemaNode): void => {
    for (let n: SchemaNode = node; ; n = n.ref()) {
      for (const r of n.rules ?? []) out.push(r.rule);
      if (n.type !== 'ref') break;
    }
    const d = deref(node);
    if (seen.has(d)) return;
    seen.add(d);
    if (d.type === 'object') for (const f of d.fields) walk(f.schema);
    else if (d.type === 'list') walk(d.items);
    else if (d.type === 'map') walk(d.values);
  };
  walk(kind.schema);
  return out;
}

/** `required` and `default` rows of the server-config and components sections of RULES.md. */
function requiredAndDefaultRows(): { label: string; file: string }[] {
  const text = readFileSync(join(root, 'schemas/RULES.md'), 'utf8');
  const start = text.indexOf('<a id="server-config"></a>');
  const end = text.indexOf('<a id="custom-resource"></a>');
  expect(start, 'RULES.md has the server-config section').toBeGreaterThan(0);
  expect(end, 'RULES.md has a section after components').toBeGreaterThan(start);
  const rows: { label: string; file: string }[] = [];
  for (const line of text.slice(start, end).split('\n')) {
    if (!line.startsWith('| ')) continue;
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((s) => s.trim().replace(/`/g, ''));
    if (cells.length < 4) continue;
    const [file, typeField, mechanism] = cells.slice(-3) as [string, string, string];
    const m = /^(required|default)\b/.exec(mechanism);
    if (m) rows.push({ label: `${m[1]}: ${typeField}`, file });
  }
  return rows;
}

describe('config rule case coverage', () => {
  it('every CEL rule of the server-config and components kinds has a case', () => {
    const covered = new Set(cases.filter(isCelRow).map((c) => c.rule));
    const uncovered = new Map<string, string>();
    for (const kind of allKinds.filter((k) => GROUPS.has(k.group))) {
      for (const rule of celRulesOf(kind))
        if (!covered.has(rule) && !uncovered.has(rule)) uncovered.set(rule, `${kind.apiVersion} ${kind.kind}`);
    }
    const list = [...uncovered].map(([rule, where]) => `  ${where}: ${JSON.stringify(rule)}`);
    expect(list, `CEL rules without a case:\n${list.join('\n')}`).toEqual([]);
  });

  it('every CEL case names a rule of these kinds', () => {
    const known = new Set(allKinds.filter((k) => GROUPS.has(k.group)).flatMap(celRulesOf));
    const stale = cases
      .filter(isCelRow)
      .filter((c) => !known.has(c.rule))
      .map(title);
    expect(stale, `cases whose rule is not in the schemas:\n${stale.join('\n')}`).toEqual([]);
  });

  it('every required and default row of the two sections of RULES.md has a case', () => {
    const rows = requiredAndDefaultRows();
    expect(rows.length).toBeGreaterThan(0);
    // A row is identified by its label and schema file; the cases name only the label, so each
    // label needs cases in as many apiVersions as there are rows carrying it.
    const rowsByLabel = new Map<string, string[]>();
    for (const r of rows) rowsByLabel.set(r.label, [...(rowsByLabel.get(r.label) ?? []), r.file]);
    const versionsByLabel = new Map<string, Set<string>>();
    for (const c of cases.filter((x) => !isCelRow(x))) {
      const apiVersion = String((parse(c.valid) as { apiVersion?: unknown } | null)?.apiVersion);
      versionsByLabel.set(c.rule, (versionsByLabel.get(c.rule) ?? new Set()).add(apiVersion));
    }
    const missing = [...rowsByLabel]
      .filter(([label, files]) => (versionsByLabel.get(label)?.size ?? 0) < files.length)
      .map(([label, files]) => `  ${label} (${files.join(', ')})`);
    expect(missing, `rows without a case:\n${missing.join('\n')}`).toEqual([]);
  });
});
