import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TypeNode } from '../model/index.js';
import { loadSchemas } from './index.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Every CEL rule of a node tree, with where it sits. */
function rulesOf(node: TypeNode, at: string, out: { at: string; rule: string }[]): void {
  for (const v of node.validations ?? []) out.push({ at, rule: v.rule });
  if (node.kind === 'object') for (const f of node.fields) if (!f.embeddedVia) rulesOf(f.type, `${at}.${f.name}`, out);
  if (node.kind === 'list') rulesOf(node.items, `${at}[]`, out);
  if (node.kind === 'map') rulesOf(node.values, `${at}{}`, out);
}

const squash = (s: string) => s.replace(/\\\|/g, '|').replace(/\s+/g, ' ').trim();

describe('schemas/RULES.md', () => {
  it('has a row for every CEL rule in the built-in schemas', () => {
    const table = squash(readFileSync(`${ROOT}schemas/RULES.md`, 'utf8'));
    const model = loadSchemas({ inputs: ['schemas'], cwd: ROOT });
    const rules: { at: string; rule: string }[] = [];
    for (const gv of model.groupVersions) for (const t of gv.types) rulesOf(t.node, `${gv.sources.join(', ')} ${t.id.name}`, rules);
    expect(rules.length).toBeGreaterThan(100);
    const missing = rules.filter((r) => !table.includes(squash(r.rule)));
    expect(missing).toEqual([]);
  });
});
