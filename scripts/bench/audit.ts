import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { AuditPolicy, Auditor, LogFileAuditBackend, type Level } from '../../runtime/audit/index.js';
import { allKinds } from '../../generated/kinds.js';
import { ApiServer, celRuleChecker } from '../../runtime/server/index.js';
import { builtinHandlers } from '../../reference/kinds/index.js';
import { createStore } from '../../runtime/store/index.js';
import { type RunningServer, startReferenceServer } from '../../reference/index.js';
import { type BenchCase, runCases } from './harness.js';
import { inParallel } from './requests.js';

/**
 * What the audit log costs: the reference server (in memory, so the log is not hidden behind
 * storage) recording every request to a log file at Metadata and at RequestResponse, beside the
 * same server without an audit policy (every request at level None).
 */
export async function benchAudit(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-bench-audit-'));
  const servers: Partial<Record<Level, RunningServer>> = {};
  const logs: Partial<Record<Level, string>> = {};
  const agent = new Agent({ connections: 16, pipelining: 1 });
  try {
    for (const level of ['None', 'Metadata', 'RequestResponse'] as const) {
      const log = join(dir, `${level}.log`);
      logs[level] = log;
      const audit = level === 'None' ? undefined : new Auditor(AuditPolicy.everything(level), new LogFileAuditBackend(log));
      const s = await startReferenceServer({ store: 'memory', ...(audit ? { audit } : {}) });
      servers[level] = s;
      await post(agent, `${s.url}/api/v1/namespaces`, { metadata: { name: 'bench' } });
      await post(agent, `${s.url}/api/v1/namespaces/bench/configmaps`, cm('target'));
    }
    const created: Record<string, number> = {};
    const get = (level: Level) => () =>
      inParallel(2000, 16, () => read(agent, `${servers[level]!.url}/api/v1/namespaces/bench/configmaps/target`));
    const create = (level: Level) => () =>
      inParallel(500, 8, () => {
        created[level] = (created[level] ?? 0) + 1;
        return post(agent, `${servers[level]!.url}/api/v1/namespaces/bench/configmaps`, cm(`c${created[level]}`));
      });
    const none = { name: 'no audit (level None)' };
    const cases: BenchCase[] = [];
    for (const level of ['Metadata', 'RequestResponse'] as const) {
      cases.push({ name: `get x2000, ${level}`, ours: get(level), peer: { ...none, run: get('None') } });
      cases.push({ name: `create x500, ${level}`, ours: create(level), peer: { ...none, run: create('None') }, runs: 3 });
    }
    await runCases('Audit log to a file: every request recorded, vs no audit (ratio below 1 is the cost)', cases);

    // The metrics every request observes (on by default) against the same server without them.
    const bare = new ApiServer({
      kinds: allKinds,
      store: await createStore('memory'),
      handlers: builtinHandlers,
      rules: celRuleChecker(),
      metrics: false,
    });
    const bareUrl = await bare.listen(0);
    try {
      await post(agent, `${bareUrl}/api/v1/namespaces`, { metadata: { name: 'bench' } });
      await post(agent, `${bareUrl}/api/v1/namespaces/bench/configmaps`, cm('target'));
      const getFrom = (url: string) => () => inParallel(2000, 16, () => read(agent, `${url}/api/v1/namespaces/bench/configmaps/target`));
      await runCases('Metrics: request counter and latency histogram on every request, vs none', [
        { name: 'get x2000, metrics on', ours: getFrom(servers.None!.url), peer: { name: 'metrics off', run: getFrom(bareUrl) } },
      ]);
    } finally {
      await bare.close();
    }
    for (const level of ['Metadata', 'RequestResponse'] as const) {
      const events = (2000 * 6 + (created[level] ?? 0)) * 2;
      process.stdout.write(
        `  ${level}: ${(statSync(logs[level]!).size / 1024 / 1024).toFixed(1)} MB of log, about ${Math.round(statSync(logs[level]!).size / events)} bytes an event\n`,
      );
    }
  } finally {
    await agent.close();
    for (const s of Object.values(servers)) await s?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const cm = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'bench', labels: { app: 'bench' } },
  data: { key: 'x'.repeat(200) },
});

async function read(agent: Agent, url: string): Promise<void> {
  const res = await request(url, { dispatcher: agent });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode}`);
}

async function post(agent: Agent, url: string, body: unknown): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.body.text();
  if (res.statusCode !== 201) throw new Error(`POST ${url}: ${res.statusCode}`);
}
