/**
 * CI step: the official clients, unmodified, against `svckit serve --secure --group-suffix k8s.io
 * --store memory` (a fresh server per suite, on a free loopback port, each client configured by
 * the admin kubeconfig the server writes): Debian's Python client and Ruby kubeclient, kubectl
 * 1.30 and 1.32, and @kubernetes/client-node. Per suite: each failure and skip named with its
 * reason, then `<suite>: N passed, N failed, N skipped`. Exit code 1 when a case failed, unless
 * --report-only (prints the same figures, exits 0).
 *
 *   npx tsx scripts/checks/real-clients.ts [python|ruby|kubectl|client-node ...] [--report-only]
 */
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientNode } from './real-clients/client-node.js';
import { kubectl } from './real-clients/kubectl.js';
import { type CaseOutcome, type ClientSuite, excerpt, tally } from './real-clients/outcome.js';
import { python } from './real-clients/python.js';
import { ruby } from './real-clients/ruby.js';
import { startSecureServe } from './secure-serve.js';

const SUITES: readonly ClientSuite[] = [python, ruby, kubectl, clientNode];
const SERVE_ARGS = ['--group-suffix', 'k8s.io', '--store', 'memory'];

function indent(text: string): string {
  return text.replace(/\n/g, '\n      ');
}

/** Runs one suite on its own server; a client that cannot run counts as one failed case. */
async function runSuite(suite: ClientSuite): Promise<CaseOutcome[]> {
  const log = join(tmpdir(), `svckit-real-clients-${suite.name}-${process.pid}.log`);
  const fd = openSync(log, 'w');
  const started = Date.now();
  try {
    const server = await startSecureServe(SERVE_ARGS, fd);
    try {
      return await suite.run(server);
    } finally {
      await server.close();
    }
  } catch (e) {
    const serverLog = readFileSync(log, 'utf8');
    const reason = `${(e as Error).message}${serverLog ? `\nserver log: ${excerpt(serverLog)}` : ''}`;
    return [{ name: `${suite.name} (did not run)`, status: 'failed', reason }];
  } finally {
    closeSync(fd);
    rmSync(log, { force: true });
    process.stdout.write(`${suite.name}: ran in ${Math.round((Date.now() - started) / 1000)} s\n`);
  }
}

async function main(args: string[]): Promise<number> {
  const reportOnly = args.includes('--report-only');
  // Reported only: the figures carry a note, so no reader of CI output takes them for its verdict.
  const mark = reportOnly ? ' (report only: not judged)' : '';
  const names = args.filter((a) => !a.startsWith('--'));
  const unknown = names.filter((n) => !SUITES.some((s) => s.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`unknown suite ${unknown.join(', ')}; the suites: ${SUITES.map((s) => s.name).join(', ')}\n`);
    return 2;
  }
  const chosen = names.length > 0 ? SUITES.filter((s) => names.includes(s.name)) : SUITES;
  const all: CaseOutcome[] = [];
  for (const suite of chosen) {
    process.stdout.write(`== ${suite.name}\n`);
    const cases = await runSuite(suite);
    for (const c of cases.filter((c) => c.status !== 'passed')) {
      const word = c.status === 'failed' ? 'FAIL' : 'skip';
      process.stdout.write(`  ${word} ${c.name}${c.reason ? `\n      ${indent(c.reason)}` : ''}\n`);
    }
    process.stdout.write(`${suite.name}: ${tally(cases)}${mark}\n`);
    all.push(...cases);
  }
  if (chosen.length > 1) process.stdout.write(`real-clients: ${tally(all)}${mark}\n`);
  const failed = all.some((c) => c.status === 'failed');
  if (failed && reportOnly) process.stdout.write('real-clients: --report-only, so exit 0 despite the failures above\n');
  return failed && !reportOnly ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
