import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../load.js';
import { readResources } from '../resources.js';
import { readRules } from '../rules.js';
import { swapWithNext } from './edits.js';
import { MUTATIONS } from './mutations.js';
import { matchesExchange } from './proxy.js';
import type { Mutation, WatchEventDocument } from './types.js';
import { catalogueProblems, compactIds, judge, sampleOthers } from './verdict.js';
import { ONE_PATH_MUTATIONS, PAST_DEFECT_MUTATIONS } from './write-paths.js';

const rules = readRules();
const scenarios = await loadScenarios({ rules, resources: readResources() });

const probe: Mutation = {
  id: 'probe',
  description: 'a probe',
  rule: 'core-protocol.md#Field validation: 3',
  caughtBy: ['core/validation/warn-*'],
  match: {},
  response: () => undefined,
};

describe('the mutation catalogue', () => {
  it('holds at least 60 mutations, each with a known rule and scenarios that exist', () => {
    expect(MUTATIONS.length).toBeGreaterThanOrEqual(60);
    expect(catalogueProblems(MUTATIONS, rules, scenarios)).toEqual([]);
  });

  it('reports unknown rules, globs that name nothing, repeated ids and mutations that change nothing', () => {
    const broken: Mutation[] = [
      { ...probe, rule: 'core-protocol.md#No such: rule' },
      { ...probe, id: 'probe', caughtBy: ['core/nothing/here'] },
      { id: 'inert', description: '', rule: probe.rule, caughtBy: probe.caughtBy, match: {} },
    ];
    expect(catalogueProblems(broken, rules, scenarios)).toEqual([
      'probe: rule "core-protocol.md#No such: rule" is not in conformance/rules.yaml',
      'probe: id used twice',
      'probe: "core/nothing/here" matches no scenario',
      'inert: changes nothing (no request, response or events transform)',
    ]);
  });
});

describe('judging a run', () => {
  const results = [
    { id: 'core/validation/warn-unknown[configmaps]', outcome: 'failed' as const },
    { id: 'core/list/collection-fields[nodes]', outcome: 'failed' as const },
    { id: 'core/validation/warn-nested-unknown[nodes]', outcome: 'passed' as const },
  ];

  it('is caught when the run failed on a scenario the mutation names', () => {
    expect(judge(probe, 1, results, 3)).toEqual({
      caught: true,
      failedExpected: ['core/validation/warn-unknown[configmaps]'],
      failedOthers: ['core/list/collection-fields[nodes]'],
    });
  });

  it('is missed when only other scenarios failed, when the run passed, or when the mutation never fired', () => {
    expect(judge(probe, 1, results.slice(1), 3)).toMatchObject({ caught: false, reason: 'none of its scenarios failed' });
    expect(judge(probe, 0, [], 3)).toMatchObject({ caught: false, reason: 'the run did not fail (exit 0)' });
    expect(judge(probe, 1, results, 0)).toMatchObject({ caught: false, reason: 'never applied: no exchange of the run matched it' });
  });
});

describe('the sample of other scenarios', () => {
  it('is stable per mutation and leaves out the named and the slow scenarios', () => {
    const sample = sampleOthers(probe, scenarios, 3);
    expect(sample).toHaveLength(3);
    expect(new Set(sample).size).toBe(3);
    expect(sampleOthers(probe, scenarios, 3)).toEqual(sample);
    for (const id of sample) {
      expect(id.startsWith('core/validation/warn-')).toBe(false);
      expect(scenarios.find((s) => s.id === id)?.tags).not.toContain('slow');
    }
  });
});

describe('helpers', () => {
  it('compacts parameterised ids', () => {
    expect(compactIds(['a/b/c[x]', 'a/b/c[y]', 'a/b/d'])).toBe('a/b/c[x, y] a/b/d');
  });

  it('swaps the first matching event with the one after it, once', () => {
    const t = swapWithNext((e) => e.type !== 'BOOKMARK')();
    const ev = (type: string, name: string): WatchEventDocument => ({ type, object: { metadata: { name } } });
    expect(t.next(ev('BOOKMARK', 'b'))).toBeUndefined();
    expect(t.next(ev('ADDED', 'a'))).toEqual([]);
    expect(t.next(ev('MODIFIED', 'a'))).toEqual([ev('MODIFIED', 'a'), ev('ADDED', 'a')]);
    expect(t.next(ev('DELETED', 'a'))).toBeUndefined();
    expect(t.end?.()).toEqual([]);
  });
});

describe('mutations that break a rule on one write path', () => {
  const plainJsonWrites = [
    { method: 'POST', path: '/api/v1/namespaces/ns/configmaps' },
    { method: 'PUT', path: '/api/v1/namespaces/ns/configmaps/a' },
    { method: 'POST', path: '/apis/flowcontrol.apiserver.svc.io/v1/flowschemas' },
    { method: 'PATCH', path: '/api/v1/namespaces/ns/configmaps/a', type: 'application/merge-patch+json' },
  ].map((r) => ({
    method: r.method,
    path: r.path,
    query: new URLSearchParams('fieldValidation=Strict'),
    headers: { 'content-type': [r.type ?? 'application/json'] },
  }));

  it('leave plain JSON writes through v1 alone, so only a scenario on their path can catch them', () => {
    expect(ONE_PATH_MUTATIONS.length).toBeGreaterThanOrEqual(10);
    for (const m of ONE_PATH_MUTATIONS) {
      const matched = plainJsonWrites.filter((req) => matchesExchange(m.match, req));
      expect(matched.map((req) => `${m.id}: ${req.method} ${req.path}`)).toEqual([]);
    }
  });

  it('each name scenarios that exist and a rule of the catalogue, as do the past defects', () => {
    expect(catalogueProblems([...ONE_PATH_MUTATIONS, ...PAST_DEFECT_MUTATIONS], rules, scenarios)).toEqual([]);
    expect(PAST_DEFECT_MUTATIONS.map((m) => m.id)).toEqual([
      'namespace-change-by-apply',
      'identity-change-by-patch',
      'metadata-not-an-object-500',
      'required-spec-dropped-by-merge-patch',
      'apply-unknown-field-owned',
      'stale-apply-accepted',
      'force-on-non-apply-accepted',
      'duplicate-keys-refused-under-warn',
      'strict-names-first-duplicate-only',
    ]);
  });
});
