/**
 * Judging one mutation run from its JSON report: caught when the run failed and a scenario the
 * mutation names failed. Also what is run for it (its scenarios plus a few others) and the checks
 * that keep the catalogue honest.
 */
import { matchesAny } from '../glob.js';
import type { RuleCatalogue } from '../rules.js';
import type { Json, Scenario } from '../types.js';
import type { Mutation } from './types.js';
import { isObject } from '../json.js';

export interface ScenarioOutcome {
  id: string;
  outcome: 'passed' | 'failed' | 'skipped';
  message?: string;
}

export interface Verdict {
  caught: boolean;
  /** Expected scenarios that failed. */
  failedExpected: string[];
  /** Other scenarios that failed (the mutation's side effects, or noise). */
  failedOthers: string[];
  /** Why it was missed; undefined when caught. */
  reason?: string;
}

/** The results of a JSON report written by `--report json:<file>`. */
export function readReportResults(text: string): ScenarioOutcome[] {
  const doc = JSON.parse(text) as Json;
  if (!isObject(doc) || !Array.isArray(doc.results)) throw new Error('JSON report: no results list');
  return doc.results.flatMap((r) => {
    if (!isObject(r) || typeof r.id !== 'string') return [];
    const outcome = r.outcome === 'passed' || r.outcome === 'failed' || r.outcome === 'skipped' ? r.outcome : 'failed';
    return [{ id: r.id, outcome, ...(typeof r.message === 'string' ? { message: r.message } : {}) }];
  });
}

export function judge(mutation: Mutation, exitCode: number, results: readonly ScenarioOutcome[], applied: number): Verdict {
  const failed = results.filter((r) => r.outcome === 'failed').map((r) => r.id);
  const failedExpected = failed.filter((id) => matchesAny(id, mutation.caughtBy));
  const failedOthers = failed.filter((id) => !matchesAny(id, mutation.caughtBy));
  if (applied === 0) return { caught: false, failedExpected, failedOthers, reason: 'never applied: no exchange of the run matched it' };
  if (exitCode !== 1) return { caught: false, failedExpected, failedOthers, reason: `the run did not fail (exit ${exitCode})` };
  if (failedExpected.length === 0) return { caught: false, failedExpected, failedOthers, reason: 'none of its scenarios failed' };
  return { caught: true, failedExpected, failedOthers };
}

function hash(text: string): number {
  // FNV-1a: a stable pick per mutation, so reruns judge the same scenarios.
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** A few scenarios the mutation does not name, picked by its id; slow ones are left out. */
export function sampleOthers(mutation: Mutation, scenarios: readonly Scenario[], count: number): string[] {
  const pool = scenarios.filter((s) => !s.tags.includes('slow') && !matchesAny(s.id, mutation.caughtBy)).map((s) => s.id);
  const picked: string[] = [];
  let h = hash(mutation.id);
  while (picked.length < count && picked.length < pool.length) {
    const id = pool[h % pool.length] ?? '';
    if (!picked.includes(id)) picked.push(id);
    h = hash(`${h}`);
  }
  return picked;
}

/** What is wrong with the catalogue: unknown rules, globs that name no scenario, repeated ids. */
export function catalogueProblems(mutations: readonly Mutation[], rules: RuleCatalogue, scenarios: readonly Scenario[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const m of mutations) {
    if (seen.has(m.id)) problems.push(`${m.id}: id used twice`);
    seen.add(m.id);
    if (!rules.has(m.rule)) problems.push(`${m.id}: rule "${m.rule}" is not in conformance/rules.yaml`);
    if (m.caughtBy.length === 0) problems.push(`${m.id}: names no scenario`);
    for (const glob of m.caughtBy)
      if (!scenarios.some((s) => matchesAny(s.id, [glob]))) problems.push(`${m.id}: "${glob}" matches no scenario`);
    if (!m.request && !m.response && !m.events) problems.push(`${m.id}: changes nothing (no request, response or events transform)`);
  }
  return problems;
}

/** `core/x/y[configmaps, nodes]` for the instances of one scenario, in first-seen order. */
export function compactIds(ids: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const m = /^(.*)\[([^\]]+)\]$/.exec(id);
    const base = m?.[1] ?? id;
    const params = groups.get(base) ?? [];
    if (m?.[2]) params.push(m[2]);
    groups.set(base, params);
  }
  return [...groups.entries()].map(([base, params]) => (params.length ? `${base}[${params.join(', ')}]` : base)).join(' ');
}
