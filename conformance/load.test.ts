import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCodeScenarios, loadScenarios, parseSuite, type LoadContext } from './load.js';
import { parseResources, readResources } from './resources.js';
import { parseRules, readRules } from './rules.js';

const rules = parseRules(
  `
- section: "core-protocol.md#Verbs"
  rules:
    - { key: get, text: GET answers the object. }
    - { key: list, text: GET on a collection answers a list. }
`,
  'rules.yaml',
);
const resources = parseResources(
  `
configmaps: { group: "", version: v1, plural: configmaps, kind: ConfigMap, namespaced: true, sample: { data: { a: b } } }
nodes: { group: "", version: v1, plural: nodes, kind: Node, namespaced: false }
`,
  'resources.yaml',
);
const ctx: LoadContext = { rules, resources };

function suite(body: string): string {
  return `scenarios:\n${body}`;
}

const ok = `
  - id: core/verbs/get-one
    rule: "core-protocol.md#Verbs: get"
    steps:
      - request: GET /api/v1/namespaces/\${ns}/configmaps/x
        expect: { status: 200 }
`;

describe('parseSuite', () => {
  it('reads a scenario with its defaults', () => {
    const [s] = parseSuite(suite(ok), 'verbs.yaml', ctx, 'verbs');
    expect(s).toMatchObject({
      id: 'core/verbs/get-one',
      rules: ['core-protocol.md#Verbs: get'],
      tags: [],
      needs: [],
      namespaces: 1,
      kind: 'yaml',
    });
    expect(s?.kind === 'yaml' && s.steps[0]).toMatchObject({ kind: 'request', request: { method: 'GET' }, expect: { status: [200] } });
  });

  it('expands status classes such as 4xx', () => {
    const [s] = parseSuite(suite(ok.replace('status: 200', 'status: 4xx')), 'verbs.yaml', ctx);
    const step = s?.kind === 'yaml' ? s.steps[0] : undefined;
    expect(step?.kind === 'request' && step.expect?.status).toHaveLength(100);
  });

  it('names file, line, scenario and step in errors', () => {
    const bad = ok.replace('expect: { status: 200 }', 'expect: { stauts: 200 }');
    expect(() => parseSuite(suite(bad), 'verbs.yaml', ctx)).toThrow(
      /^verbs\.yaml:\d+: scenario core\/verbs\/get-one: step 0: expect: unknown key "stauts"/,
    );
  });

  it('rejects a rule reference that is not in the catalogue', () => {
    expect(() => parseSuite(suite(ok.replace('Verbs: get', 'Verbs: fetch')), 'v.yaml', ctx)).toThrow(
      /rule "core-protocol\.md#Verbs: fetch" is not in the rule catalogue/,
    );
  });

  it('rejects unknown tags, features and resource profiles', () => {
    expect(() => parseSuite(suite(`${ok}    tags: [quick]\n`), 'v.yaml', ctx)).toThrow(/unknown tag "quick"/);
    expect(() => parseSuite(suite(`${ok}    needs: [telepathy]\n`), 'v.yaml', ctx)).toThrow(/unknown feature "telepathy"/);
    expect(() => parseSuite(suite(`${ok}    resource: [widgets]\n`), 'v.yaml', ctx)).toThrow(/unknown resource profile "widgets"/);
  });

  it('checks the id shape and the area directory', () => {
    expect(() => parseSuite(suite(ok.replace('core/verbs/get-one', 'GetOne')), 'v.yaml', ctx)).toThrow(/id: expected a slash-separated id/);
    expect(() => parseSuite(suite(ok), 'v.yaml', ctx, 'watch')).toThrow(/the second segment must be the area directory "watch"/);
  });

  it('rejects duplicate ids in a file', () => {
    expect(() => parseSuite(suite(ok + ok), 'v.yaml', ctx)).toThrow(/duplicate id/);
  });

  it('reports YAML syntax errors with the line', () => {
    expect(() => parseSuite('scenarios:\n  - id: [unclosed\n', 'v.yaml', ctx)).toThrow(/^v\.yaml:\d+: YAML:/);
  });

  it('expands a parameterised scenario per resource type', () => {
    const text = suite(`
  - id: core/verbs/list-any
    rule: "core-protocol.md#Verbs: list"
    resource: [configmaps, nodes]
    steps:
      - request: GET \${r.collection}
`);
    expect(parseSuite(text, 'v.yaml', ctx).map((s) => [s.id, s.resource?.name])).toEqual([
      ['core/verbs/list-any[configmaps]', 'configmaps'],
      ['core/verbs/list-any[nodes]', 'nodes'],
    ]);
  });

  it('rejects resource variables in a scenario that is not parameterised', () => {
    expect(() => parseSuite(suite(ok.replace('/api/v1/namespaces/${ns}/configmaps/x', '${r.collection}')), 'v.yaml', ctx)).toThrow(
      /uses \$\{r\.\*\} variables/,
    );
  });

  it('splices an alias of a list of steps', () => {
    const text = `
x-history: &history
  - request: POST /a
  - request: POST /b
scenarios:
  - id: core/verbs/spliced
    rule: "core-protocol.md#Verbs: get"
    steps:
      - *history
      - request: GET /c
`;
    const [s] = parseSuite(text, 'v.yaml', ctx);
    expect(s?.kind === 'yaml' && s.steps.map((st) => (st.kind === 'request' ? st.request.path : ''))).toEqual(['/a', '/b', '/c']);
  });

  it('parses watch steps with actions, event groups and durations', () => {
    const text = suite(`
  - id: core/verbs/watch-it
    rule: "core-protocol.md#Verbs: get"
    steps:
      - watch: { path: '/api/v1/namespaces/\${ns}/configmaps', query: { resourceVersion: "1" } }
        actions:
          - request: POST /api/v1/namespaces/\${ns}/configmaps
        expect:
          events:
            - ADDED
            - anyOrder: [{ type: MODIFIED }, { type: DELETED, object: { metadata: { name: x } } }]
          within: 2s
          quiet: 250ms
`);
    const [s] = parseSuite(text, 'v.yaml', ctx);
    const step = s?.kind === 'yaml' ? s.steps[0] : undefined;
    expect(step).toMatchObject({
      kind: 'watch',
      request: { method: 'GET' },
      actions: [{ kind: 'request', request: { method: 'POST' } }],
      expect: { withinMs: 2000, quietMs: 250, events: [{ type: 'ADDED' }, { anyOrder: [{ type: 'MODIFIED' }, { type: 'DELETED' }] }] },
    });
  });

  it('requires the needs-history-expiry tag on a scenario that waits for a server window', () => {
    const text = suite(`
  - id: core/verbs/waits
    rule: "core-protocol.md#Verbs: get"
    steps:
      - wait: { for: continue-ttl, plus: 1s }
`);
    expect(() => parseSuite(text, 'v.yaml', ctx)).toThrow(/tag it needs-history-expiry/);
    const [s] = parseSuite(text.replace('steps:', 'tags: [needs-history-expiry]\n    steps:'), 'v.yaml', ctx);
    expect(s?.kind === 'yaml' && s.steps[0]).toEqual({ kind: 'wait', for: 'continue-ttl', ms: 1000 });
  });

  it('rejects an invalid regular expression', () => {
    expect(() => parseSuite(suite(ok.replace('status: 200', "status: 200, text: { matches: '(' }")), 'v.yaml', ctx)).toThrow(
      /invalid regular expression/,
    );
  });

  it('reads the mapping form of path checks', () => {
    const [s] = parseSuite(suite(ok.replace('status: 200', 'at: { $.kind: ConfigMap, $.items: { length: 2 } }')), 'v.yaml', ctx);
    const step = s?.kind === 'yaml' ? s.steps[0] : undefined;
    expect(step?.kind === 'request' && step.expect?.at).toEqual([
      { path: '$.kind', equals: 'ConfigMap' },
      { path: '$.items', length: 2 },
    ]);
  });
});

describe('checkCodeScenarios', () => {
  it('validates TypeScript scenarios like YAML ones', () => {
    const run = async (): Promise<void> => undefined;
    const [s] = checkCodeScenarios(
      [{ id: 'core/verbs/code', rule: 'core-protocol.md#Verbs: get', tags: ['slow'], run }],
      'code.ts',
      ctx,
      'verbs',
    );
    expect(s).toMatchObject({ id: 'core/verbs/code', kind: 'code', tags: ['slow'] });
    expect(() => checkCodeScenarios([{ id: 'core/verbs/code', rule: 'core-protocol.md#Verbs: get' }], 'code.ts', ctx)).toThrow(
      /code\.ts: scenario core\/verbs\/code: run: expected an async function/,
    );
    expect(() => checkCodeScenarios({}, 'code.ts', ctx)).toThrow(/export const scenarios/);
  });
});

describe('loadScenarios', () => {
  it('rejects an id used in two files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-load-'));
    mkdirSync(join(dir, 'verbs'));
    writeFileSync(join(dir, 'verbs', 'a.yaml'), suite(ok));
    writeFileSync(join(dir, 'verbs', 'b.yaml'), suite(ok));
    await expect(loadScenarios(ctx, dir)).rejects.toThrow(/duplicate id, also in/);
  });

  it("loads the kit's own scenarios against its rule catalogue", async () => {
    const all = await loadScenarios({ rules: readRules(), resources: readResources() });
    expect(all.length).toBeGreaterThan(300);
    expect(new Set(all.map((s) => s.id)).size).toBe(all.length);
  });
});
