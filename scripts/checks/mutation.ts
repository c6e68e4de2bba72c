/**
 * The mutation check: proves the conformance kit catches faults. For every mutation in
 * conformance/mutation/mutations.ts it starts a fresh reference server (memory store) behind the
 * mutation proxy, runs the scenarios the mutation names plus a few others through the proxy, and
 * reads the JSON report: the mutation is caught when the run failed on one of its scenarios. A control
 * run through the proxy without a mutation first shows the proxy itself breaks nothing.
 *
 *   npx tsx scripts/checks/mutation.ts [--only <glob>] [--jobs <n>] [--verbose]
 *
 * Exit 0 when every mutation is caught, 1 otherwise, 2 on a catalogue or usage error.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  formatDuration,
  loadScenarios,
  matchesGlob,
  readResources,
  readRules,
  runConformanceCli,
  type Scenario,
} from '../../conformance/index.js';
import {
  MUTATIONS,
  type Mutation,
  type ScenarioOutcome,
  type Verdict,
  catalogueProblems,
  compactIds,
  judge,
  readReportResults,
  sampleOthers,
  startMutationProxy,
} from '../../conformance/mutation/index.js';
import { startConformanceServer } from '../../reference/index.js';

/** The in-process defaults of `svckit conformance`: expiry scenarios wait seconds. */
const HISTORY_WINDOW_MS = 8000;
const CONTINUE_TTL_MS = 5000;
const SAMPLE_SIZE = 3;

interface RunResult {
  exitCode: number;
  results: ScenarioOutcome[];
  applied: number;
  millis: number;
  errors: string;
}

async function runThroughProxy(mutation: Mutation | undefined, focus: readonly string[], reportFile: string): Promise<RunResult> {
  const started = Date.now();
  // As `svckit conformance` runs in-process: RBAC on, the kit an administrator (authz scenarios judge it).
  const server = await startConformanceServer({
    store: 'memory',
    port: 0,
    historyWindowMs: HISTORY_WINDOW_MS,
    continueTtlMs: CONTINUE_TTL_MS,
    featureGates: 'WatchList=true', // as the in-process conformance run: the initial-events scenarios run
  });
  const proxy = await startMutationProxy({ target: server.url, ...(mutation ? { mutation } : {}) });
  let errors = '';
  try {
    const exitCode = await runConformanceCli(
      [
        '--server',
        proxy.url,
        `--token=${server.token}`,
        '--history-window',
        formatDuration(HISTORY_WINDOW_MS),
        '--continue-ttl',
        formatDuration(CONTINUE_TTL_MS),
        ...focus.flatMap((f) => ['--focus', f]),
        '--report',
        `json:${reportFile}`,
      ],
      {
        stdout: () => undefined,
        stderr: {
          write: (text: string) => {
            errors += text;
            return true;
          },
          isTTY: false,
        },
      },
    );
    const results = exitCode === 0 || exitCode === 1 ? readReportResults(readFileSync(reportFile, 'utf8')) : [];
    return { exitCode, results, applied: proxy.applied, millis: Date.now() - started, errors };
  } finally {
    await proxy.close();
    await server.close();
  }
}

async function pool<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(size, items.length)) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i] as T);
      }
    }),
  );
  return out;
}

function line(verdict: Verdict, mutation: Mutation, run: RunResult): string {
  const time = formatDuration(run.millis).padStart(6);
  if (verdict.caught) {
    const others = verdict.failedOthers.length ? ` (+${verdict.failedOthers.length} other failing)` : '';
    return `caught  ${mutation.id.padEnd(38)} ${time}  ${compactIds(verdict.failedExpected)}${others}`;
  }
  return `MISSED  ${mutation.id.padEnd(38)} ${time}  ${verdict.reason ?? ''}; expected ${mutation.caughtBy.join(' ')}`;
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { only: { type: 'string', multiple: true }, jobs: { type: 'string' }, verbose: { type: 'boolean' } },
    strict: true,
  });
  const jobs = values.jobs === undefined ? 6 : Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) {
    process.stderr.write(`mutation: --jobs expects a positive integer, found "${values.jobs}"\n`);
    return 2;
  }
  const rules = readRules();
  const scenarios: Scenario[] = await loadScenarios({ rules, resources: readResources() });
  const problems = catalogueProblems(MUTATIONS, rules, scenarios);
  if (problems.length) {
    for (const p of problems) process.stderr.write(`mutation: ${p}\n`);
    return 2;
  }
  const only = values.only ?? [];
  const selected = MUTATIONS.filter((m) => only.length === 0 || only.some((g) => matchesGlob(m.id, g)));
  if (selected.length === 0) {
    process.stderr.write(`mutation: --only ${only.join(' ')} matches no mutation\n`);
    return 2;
  }
  const plans = selected.map((m) => ({ mutation: m, focus: [...m.caughtBy, ...sampleOthers(m, scenarios, SAMPLE_SIZE)] }));
  const controlFocus = [...new Set(plans.flatMap((p) => p.focus))];

  const dir = mkdtempSync(join(tmpdir(), 'svckit-mutation-'));
  const started = Date.now();
  try {
    process.stdout.write(
      `mutation check: ${selected.length} mutations, ${jobs} at a time, each on a fresh reference server behind the proxy\n`,
    );
    type Job = { kind: 'control' } | { kind: 'mutation'; index: number };
    const jobList: Job[] = [{ kind: 'control' }, ...plans.map((_, index) => ({ kind: 'mutation' as const, index }))];
    let controlOk = true;
    let caught = 0;
    await pool(jobList, jobs, async (job) => {
      if (job.kind === 'control') {
        const run = await runThroughProxy(undefined, controlFocus, join(dir, 'control.json'));
        const failed = run.results.filter((r) => r.outcome === 'failed');
        const passed = run.results.filter((r) => r.outcome === 'passed').length;
        controlOk = run.exitCode === 0 && failed.length === 0;
        process.stdout.write(
          `${controlOk ? 'control' : 'CONTROL FAILED'}  proxy without a mutation: ${passed} passed, ${failed.length} failed (${formatDuration(run.millis)})\n`,
        );
        for (const f of failed) process.stdout.write(`          ${f.id}: ${f.message ?? ''}\n`);
        if (run.exitCode > 1) process.stdout.write(run.errors);
        return;
      }
      const plan = plans[job.index];
      if (!plan) return;
      const run = await runThroughProxy(plan.mutation, plan.focus, join(dir, `${plan.mutation.id}.json`));
      const verdict = judge(plan.mutation, run.exitCode, run.results, run.applied);
      if (verdict.caught) caught++;
      process.stdout.write(`${line(verdict, plan.mutation, run)}\n`);
      if (run.exitCode > 1) process.stdout.write(run.errors);
      if (values.verbose || !verdict.caught) {
        for (const r of run.results.filter((x) => x.outcome === 'failed'))
          process.stdout.write(`          ${r.id}: ${(r.message ?? '').slice(0, 200)}\n`);
      }
    });
    process.stdout.write(`mutation score: ${caught}/${selected.length} caught (${formatDuration(Date.now() - started)})\n`);
    return caught === selected.length && controlOk ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2));
