import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from './http.js';
import { parseKnownFailing } from './known-failing.js';
import { checkCodeScenarios, parseSuite, type LoadContext } from './load.js';
import { parseResources } from './resources.js';
import { runScenarios, type RunOptions, type RunReport } from './runner.js';
import { type Script, type Scripted, type ScriptedServer, startScriptedServer } from './scripted-server.testing.js';
import { FEATURES, type Scenario, type ScenarioContext } from './types.js';

const ctx: LoadContext = {
  resources: parseResources(
    `
configmaps: { group: "", version: v1, plural: configmaps, kind: ConfigMap, namespaced: true, sample: { data: { a: b } } }
crontabs: { group: stable.example.svc.io, version: v1, plural: crontabs, kind: CronTab, namespaced: true, custom: true }
`,
    'resources.yaml',
  ),
};

function scenarios(yaml: string): Scenario[] {
  return parseSuite(`scenarios:\n${yaml}`, 'test.yaml', ctx);
}

let server: ScriptedServer | undefined;
let client: HttpClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  server = undefined;
  client = undefined;
});

async function run(script: Script, list: Scenario[], options: Partial<RunOptions> = {}): Promise<RunReport> {
  server = await startScriptedServer(script);
  client = new HttpClient({ baseUrl: server.url, timeoutMs: 5000 });
  return runScenarios({ client, scenarios: list, features: new Set(FEATURES), prefix: 'svckit-conf-test01-', parallel: 2, ...options });
}

const configMap = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', resourceVersion: '5', uid: 'u1' } };

describe('runScenarios', () => {
  it('passes and fails scenarios, naming the step, the expectation and the trace', async () => {
    const report = await run(
      (req) => (req.path.endsWith('/configmaps/x') ? { status: 200, body: configMap } : undefined),
      scenarios(`
  - id: core/verbs/passes
    rule: "core-protocol.md#Verbs: get"
    steps:
      - request: GET /api/v1/namespaces/\${ns}/configmaps/x
        expect: { status: 200, body: { kind: ConfigMap } }
  - id: core/verbs/fails
    rule: "core-protocol.md#Verbs: get"
    steps:
      - request: GET /api/v1/namespaces/\${ns}/configmaps/x
        expect: { status: 200 }
      - name: wrong kind
        request: GET /api/v1/namespaces/\${ns}/configmaps/x
        expect: { body: { kind: Secret } }
`),
    );
    expect(report.summary).toEqual({ passed: 1, failed: 1, skipped: 0, knownFailing: 0 });
    const failed = report.results.find((r) => r.outcome === 'failed');
    expect(failed).toMatchObject({
      id: 'core/verbs/fails',
      step: '1 (wrong kind)',
      message: 'body $.kind: expected "Secret", found "ConfigMap"',
      area: 'core/verbs',
    });
    const last = failed?.trace.at(-1);
    expect(last).toMatchObject({ method: 'GET', status: 200, step: '1 (wrong kind)' });
    expect(last?.responseBody).toContain('"kind":"ConfigMap"');
  });

  it('creates a namespace per scenario with the run prefix and removes it even when the scenario fails', async () => {
    const report = await run(
      () => undefined,
      scenarios(`
  - id: core/verbs/fails-in-namespace
    rule: "core-protocol.md#Verbs: get"
    namespaces: 2
    steps:
      - request: GET /api/v1/namespaces/\${ns2}/configmaps/missing
        expect: { status: 200 }
`),
    );
    expect(report.summary.failed).toBe(1);
    const created = server?.requests
      .filter((r) => r.method === 'POST' && r.path === '/api/v1/namespaces')
      .map((r) => JSON.parse(r.body).metadata.name);
    expect(created).toEqual(['svckit-conf-test01-0', 'svckit-conf-test01-0-b']);
    const deleted = server?.requests.filter((r) => r.method === 'DELETE').map((r) => r.path);
    expect(deleted).toEqual(
      expect.arrayContaining(['/api/v1/namespaces/svckit-conf-test01-0', '/api/v1/namespaces/svckit-conf-test01-0-b']),
    );
    expect(report.leftovers).toEqual([]);
  });

  it('captures values and substitutes them into later requests', async () => {
    const report = await run(
      (req): Scripted | undefined => {
        if (req.method === 'GET' && req.path.endsWith('/configmaps') && !req.query.has('continue'))
          return { status: 200, body: { kind: 'ConfigMapList', metadata: { resourceVersion: '77', continue: 'token-1' }, items: [] } };
        if (req.query.get('continue') === 'token-1' && req.query.get('limit') === '1')
          return { status: 200, body: { kind: 'ConfigMapList', metadata: { resourceVersion: '77' }, items: [] } };
        return undefined;
      },
      scenarios(`
  - id: core/list/follows-token
    rule: "core-protocol.md#Verbs: get"
    steps:
      - request: GET /api/v1/namespaces/\${ns}/configmaps
        capture: { rv: $.metadata.resourceVersion, continue: $.metadata.continue }
      - request: { method: GET, path: '/api/v1/namespaces/\${ns}/configmaps', query: { limit: 1, continue: '\${continue}' } }
        expect: { status: 200, at: { $.metadata.resourceVersion: '\${rv}' } }
`),
    );
    expect(report.results[0]?.outcome, report.results[0]?.message).toBe('passed');
  });

  it('removes finalizers from objects it created, then deletes them; it never deletes what it did not create', async () => {
    let finalizers = ['example.com/hold'];
    const report = await run(
      (req): Scripted | undefined => {
        if (req.method === 'POST' && req.path === '/api/v1/nodes')
          return { status: 201, body: { kind: 'Node', metadata: { name: 'svckit-conf-test01-s0-a', finalizers } } };
        if (req.path === '/api/v1/nodes/svckit-conf-test01-s0-a') {
          if (req.method === 'GET')
            return { status: 200, body: { kind: 'Node', metadata: { name: 'svckit-conf-test01-s0-a', finalizers } } };
          if (req.method === 'PUT') {
            finalizers = JSON.parse(req.body).metadata.finalizers;
            return { status: 200, body: { kind: 'Node' } };
          }
          if (req.method === 'DELETE') return { status: 200, body: { kind: 'Node' } };
        }
        return undefined;
      },
      scenarios(`
  - id: core/delete/leaves-a-finalizer
    rule: "core-protocol.md#Verbs: get"
    namespaces: 0
    steps:
      - request: { method: POST, path: /api/v1/nodes, body: { metadata: { name: '\${n}-a', finalizers: [example.com/hold] } } }
        expect: { status: 201 }
      - request: { method: POST, path: /api/v1/nodes, query: { dryRun: All }, body: { metadata: { name: 'not-tracked' } } }
`),
    );
    expect(report.results[0]?.outcome).toBe('passed');
    expect(finalizers).toEqual([]);
    const writes = server?.requests.filter((r) => r.method === 'PUT' || r.method === 'DELETE').map((r) => `${r.method} ${r.path}`);
    expect(writes).toEqual(['PUT /api/v1/nodes/svckit-conf-test01-s0-a', 'DELETE /api/v1/nodes/svckit-conf-test01-s0-a']);
  });

  it('refuses a write that names nothing of the run', async () => {
    const report = await run(
      () => ({ status: 200, body: {} }),
      scenarios(`
  - id: core/verbs/unsafe
    rule: "core-protocol.md#Verbs: get"
    namespaces: 0
    steps:
      - request: DELETE /api/v1/nodes/somebody-elses
`),
    );
    expect(report.results[0]?.message).toMatch(/^UnsafeRequestError: refusing DELETE \/api\/v1\/nodes\/somebody-elses/);
    expect(server?.requests.some((r) => r.method === 'DELETE' && r.path.includes('somebody-elses'))).toBe(false);
  });

  it('reads a watch stream and matches its events; a 410 ERROR event satisfies gone', async () => {
    const report = await run(
      (req) => {
        if (req.query.get('watch') !== '1') return undefined;
        if (req.query.get('resourceVersion') === 'old')
          return { status: 200, events: [{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } }] };
        return {
          status: 200,
          events: [
            { type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'b', resourceVersion: '2' } } },
            { type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '3' } } },
            { type: 'MODIFIED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '4' } } },
          ],
        };
      },
      scenarios(`
  - id: core/watch/events
    rule: "core-protocol.md#Verbs: get"
    steps:
      - watch: { path: '/api/v1/namespaces/\${ns}/configmaps' }
        expect:
          events:
            - anyOrder: [{ type: ADDED, object: { metadata: { name: a } } }, { type: ADDED, object: { metadata: { name: b } } }]
            - { type: MODIFIED, object: { metadata: { name: a } } }
          quiet: 200ms
        capture: { last: '$.events[-1].object.metadata.resourceVersion' }
      - request: GET /api/v1/namespaces/\${ns}/configmaps/a?rv=\${last}
        expect: { status: 404 }
  - id: core/watch/gone
    rule: "core-protocol.md#Verbs: get"
    steps:
      - watch: { path: '/api/v1/namespaces/\${ns}/configmaps', query: { resourceVersion: old } }
        expect: { gone: true, within: 2s }
  - id: core/watch/missing-event
    rule: "core-protocol.md#Verbs: get"
    steps:
      - watch: { path: '/api/v1/namespaces/\${ns}/configmaps' }
        expect: { events: [ADDED, ADDED, MODIFIED, DELETED], within: 300ms }
`),
    );
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
    expect(byId['core/watch/events']?.outcome, byId['core/watch/events']?.message).toBe('passed');
    expect(server?.requests.find((r) => r.path.endsWith('/configmaps/a'))?.query.get('rv')).toBe('4');
    expect(byId['core/watch/gone']?.outcome, byId['core/watch/gone']?.message).toBe('passed');
    expect(byId['core/watch/missing-event']?.message).toMatch(/event 3 .*expected DELETED, received nothing more .*waited 300 ms/);
    expect(byId['core/watch/missing-event']?.trace.at(-1)?.events).toHaveLength(3);
  });

  it('goes on with the actions when a server sends the watch headers only with the first event', async () => {
    let created: () => void = () => undefined;
    const posted = new Promise<void>((resolve) => (created = resolve));
    const report = await run(
      (req): Scripted | undefined => {
        if (req.method === 'POST' && req.path.endsWith('/configmaps')) {
          created();
          return { status: 201, body: { kind: 'ConfigMap', metadata: { name: 'a' } } };
        }
        if (req.query.get('watch') === '1')
          return { status: 200, holdUntil: posted, events: [{ type: 'ADDED', object: { metadata: { name: 'a' } } }] };
        return undefined;
      },
      scenarios(`
  - id: core/watch/late-headers
    rule: "core-protocol.md#Verbs: get"
    steps:
      - watch: { path: '/api/v1/namespaces/\${ns}/configmaps' }
        actions:
          - request: { method: POST, path: '/api/v1/namespaces/\${ns}/configmaps', body: { metadata: { name: a } } }
        expect: { events: [{ type: ADDED, object: { metadata: { name: a } } }], within: 5s }
`),
    );
    expect(report.results[0]?.outcome, report.results[0]?.message).toBe('passed');
    expect(report.results[0]?.millis).toBeLessThan(4500);
  });

  it('skips scenarios whose feature, resource or server window is missing', async () => {
    const report = await run(
      () => undefined,
      scenarios(`
  - id: core/media/needs-protobuf
    rule: "core-protocol.md#Verbs: get"
    needs: [protobuf]
    steps: [{ request: GET /x }]
  - id: core/media/custom-resource
    rule: "core-protocol.md#Verbs: get"
    resource: [crontabs]
    steps: [{ request: 'GET \${r.collection}' }]
  - id: core/list/expiry
    rule: "core-protocol.md#Verbs: get"
    tags: [needs-history-expiry]
    steps: [{ wait: { for: continue-ttl } }]
`),
      { features: new Set(FEATURES.filter((f) => f !== 'protobuf')) },
    );
    expect(report.results.map((r) => [r.id, r.outcome, r.message])).toEqual([
      ['core/media/needs-protobuf', 'skipped', 'the server does not offer protobuf (--without)'],
      ['core/media/custom-resource[crontabs]', 'skipped', 'the server does not serve stable.example.svc.io/v1/crontabs (per discovery)'],
      ['core/list/expiry', 'skipped', "the server's continue-token lifetime is unknown: pass --continue-ttl"],
    ]);
  });

  it('asks the server for what discovery cannot say: no authorization policy and no initial events skip their scenarios, saying why', async () => {
    const both = `
  - id: core/authz/needs-authz
    rule: "core-protocol.md#Verbs: get"
    needs: [authz]
    steps: [{ request: GET /x }]
  - id: core/watch/needs-initial-events
    rule: "core-protocol.md#Verbs: get"
    needs: [send-initial-events]
    steps: [{ request: GET /x }]
`;
    const permissive: Script = (req): Scripted | undefined => {
      if (req.method === 'POST' && req.path.endsWith('/subjectaccessreviews'))
        return { status: 201, body: { kind: 'SubjectAccessReview', status: { allowed: true, reason: 'no policy' } } };
      if (req.path === '/api/v1/namespaces' && req.query.get('sendInitialEvents') === 'true')
        return { status: 422, body: { kind: 'Status', code: 422, message: 'sendInitialEvents is forbidden' } };
      if (req.path === '/x') return { status: 200, body: {} };
      return undefined;
    };
    const report = await run(permissive, scenarios(both));
    expect(report.results.map((r) => [r.id, r.outcome, r.message])).toEqual([
      [
        'core/authz/needs-authz',
        'skipped',
        'the server does not offer authz: authorization allows everything: an unknown user may read Secrets (no policy)',
      ],
      [
        'core/watch/needs-initial-events',
        'skipped',
        'the server does not offer send-initial-events: the server refuses sendInitialEvents (422: sendInitialEvents is forbidden); is the WatchList feature gate off?',
      ],
    ]);
    await server?.close();
    await client?.close();
    // A server that refuses the unknown user and streams initial events runs both.
    const strict: Script = (req): Scripted | undefined => {
      if (req.method === 'POST' && req.path.endsWith('/subjectaccessreviews'))
        return { status: 201, body: { kind: 'SubjectAccessReview', status: { allowed: false } } };
      if (req.path === '/api/v1/namespaces' && req.query.get('sendInitialEvents') === 'true') return { status: 200, body: '' };
      if (req.path === '/x') return { status: 200, body: {} };
      return undefined;
    };
    const ran = await run(strict, scenarios(both));
    expect(ran.results.map((r) => r.outcome)).toEqual(['passed', 'passed']);
  });

  it('applies the known-failing list: listed failures are skipped, listed passes and unused patterns fail', async () => {
    const list = parseKnownFailing('# known\ncore/verbs/broken\ncore/verbs/fixed  # now passes\ncore/verbs/gone-away\n', 'known.txt');
    const report = await run(
      (req) => (req.path === '/ok' ? { status: 200, body: {} } : undefined),
      scenarios(`
  - id: core/verbs/broken
    rule: "core-protocol.md#Verbs: get"
    namespaces: 0
    steps: [{ request: GET /missing, expect: { status: 200 } }]
  - id: core/verbs/fixed
    rule: "core-protocol.md#Verbs: get"
    namespaces: 0
    steps: [{ request: GET /ok, expect: { status: 200 } }]
`),
      { knownFailing: list },
    );
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
    expect(byId['core/verbs/broken']).toMatchObject({ outcome: 'skipped', knownFailing: true });
    expect(byId['core/verbs/fixed']).toMatchObject({ outcome: 'failed', knownFailing: true });
    expect(byId['core/verbs/fixed']?.message).toMatch(/stale/);
    expect(byId['known-failing/core/verbs/gone-away']).toMatchObject({ outcome: 'failed', file: 'known.txt:4' });
    expect(report.summary).toEqual({ passed: 0, failed: 2, skipped: 1, knownFailing: 1 });
  });

  it('filters by focus, skip and tags', async () => {
    const list = scenarios(`
  - { id: core/verbs/a, rule: "core-protocol.md#Verbs: get", namespaces: 0, steps: [{ request: GET /a }] }
  - { id: core/verbs/b, rule: "core-protocol.md#Verbs: get", namespaces: 0, tags: [slow], steps: [{ request: GET /b }] }
  - { id: core/list/c, rule: "core-protocol.md#Verbs: get", namespaces: 0, tags: [serial], steps: [{ request: GET /c }] }
`);
    const ids = async (o: Partial<RunOptions>): Promise<string[]> => {
      const report = await runScenarios({ client: client as HttpClient, scenarios: list, features: new Set(FEATURES), ...o });
      return report.results.map((r) => r.id);
    };
    server = await startScriptedServer(() => ({ status: 200, body: {} }));
    client = new HttpClient({ baseUrl: server.url });
    expect(await ids({ focus: ['core/verbs'] })).toEqual(['core/verbs/a', 'core/verbs/b']);
    expect(await ids({ skip: ['core/verbs/*'] })).toEqual(['core/list/c']);
    expect(await ids({ tags: ['!slow'] })).toEqual(['core/verbs/a', 'core/list/c']);
    expect(await ids({ tags: ['slow,serial'] })).toEqual(['core/verbs/b', 'core/list/c']);
  });

  it('rewrites the group suffix in paths, bodies and expectations', async () => {
    const report = await run(
      (req) =>
        req.path === '/apis/stable.example.k8s.io/v1/things' && req.method === 'POST'
          ? { status: 201, body: JSON.parse(req.body) }
          : undefined,
      scenarios(`
  - id: core/versions/suffix
    rule: "core-protocol.md#Verbs: get"
    namespaces: 0
    steps:
      - request: { method: POST, path: /apis/stable.example.svc.io/v1/things, headers: { accept: 'application/json;as=Table;g=meta.svc.io;v=v1, application/json' }, body: { apiVersion: stable.example.svc.io/v1, metadata: { labels: { svc.io/role: x } } } }
        expect: { status: 201, body: { apiVersion: stable.example.svc.io/v1, metadata: { labels: { svc.io/role: x } } } }
`),
      { groupSuffix: 'k8s.io' },
    );
    expect(report.results[0]?.outcome, report.results[0]?.message).toBe('passed');
    const sent = server?.requests.find((r) => r.method === 'POST' && r.path.startsWith('/apis/'));
    expect(sent?.headers.accept).toBe('application/json;as=Table;g=meta.k8s.io;v=v1, application/json');
    expect(JSON.parse(sent?.body ?? '{}')).toEqual({
      apiVersion: 'stable.example.k8s.io/v1',
      metadata: { labels: { 'k8s.io/role': 'x' } },
    });
  });

  it('runs TypeScript scenarios with the same report shape', async () => {
    const [code] = checkCodeScenarios(
      [
        {
          id: 'core/verbs/code',
          rule: 'core-protocol.md#Verbs: get',
          resource: ['configmaps'],
          async run(c: ScenarioContext) {
            const res = await c.request('POST', c.collection(), { body: c.sample(c.sub('${n}-a')) });
            c.check(res, { status: [201] });
            c.fail('stopped on purpose');
          },
        },
      ],
      'code.ts',
      ctx,
    );
    const report = await run(
      (req) => (req.method === 'POST' && req.path.endsWith('/configmaps') ? { status: 201, body: JSON.parse(req.body) } : undefined),
      code ? [code] : [],
    );
    expect(report.results[0]).toMatchObject({ id: 'core/verbs/code[configmaps]', outcome: 'failed', message: 'stopped on purpose' });
    const posted = JSON.parse(server?.requests.find((r) => r.path.endsWith('/configmaps'))?.body ?? '{}');
    expect(posted).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      data: { a: 'b' },
      metadata: {
        name: 'svckit-conf-test01-s0-a',
        namespace: 'svckit-conf-test01-0',
        labels: { 'conformance.svckit/run': 'svckit-conf-test01', 'conformance.svckit/scenario': 'svckit-conf-test01-s0' },
      },
    });
  });
});
