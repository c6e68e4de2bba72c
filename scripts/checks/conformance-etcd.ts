/**
 * The whole conformance suite against the reference server on a real etcd, twice: one `svckit
 * serve --store etcd://...`, then two replicas on one etcd with the kit's requests alternating
 * between them through a round-robin proxy (the proxy is the kit's; the replicas know nothing of
 * each other). Prints each run's summary and time; exits 1 when either fails.
 *
 *   npx tsx scripts/checks/conformance-etcd.ts [--only single|replicas] [-- <conformance options>]
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { startEtcd } from '../../runtime/store/etcd.testing.js';
import { cliArgs } from '../commands/cli.testing.js';
import { type ServeProcess, sharedSigningKeyFlags, startRoundRobinProxy, startServeProcess } from './replicas.js';

// The in-process run's settings, so that the expiry scenarios wait seconds, not minutes.
// WatchList on, as the in-process run: the initial-events scenarios run too.
// Replicas on one etcd sign service-account tokens with one key, given by flag as upstream.
const SERVER_FLAGS = ['--history-window', '8s', '--continue-ttl', '5s', '--feature-gates', 'WatchList=true', ...sharedSigningKeyFlags()];
// The servers here run without access control (the secure run covers it), so the authorization
// scenarios, which need RBAC, are left out.
const WINDOWS = ['--history-window', '8s', '--continue-ttl', '5s', '--without', 'authz'];
// The servers are the compiled bin, as users run it: the etcd store's code comes from the bundle's lazy part.
const COMPILED = { compiled: true };

const { values, positionals } = parseArgs({
  options: { only: { type: 'string' } },
  allowPositionals: true,
});
if (values.only !== undefined && values.only !== 'single' && values.only !== 'replicas') {
  process.stderr.write(`conformance-etcd: --only takes single or replicas, not ${values.only}\n`);
  process.exit(2);
}

const etcd = await startEtcd({ unsafeNoFsync: true });
const results: { name: string; code: number; seconds: number }[] = [];
try {
  if (values.only !== 'replicas') {
    const server = await startServeProcess(['--store', `etcd://${etcd.endpoint}?prefix=/single`, ...SERVER_FLAGS], COMPILED);
    results.push(await runKit('one server on etcd', server.url, [server]));
  }
  if (values.only !== 'single') {
    const store = `etcd://${etcd.endpoint}?prefix=/replicas`;
    const a = await startServeProcess(['--store', store, ...SERVER_FLAGS], COMPILED);
    const b = await startServeProcess(['--store', store, ...SERVER_FLAGS], COMPILED);
    const proxy = await startRoundRobinProxy([a.url, b.url]);
    try {
      results.push(await runKit('two replicas on one etcd, requests alternating', proxy.url, [a, b]));
      process.stdout.write(`requests per replica: ${proxy.counts.join(' / ')}\n`);
    } finally {
      await proxy.close();
    }
  }
} finally {
  await etcd.dispose();
}
for (const r of results) process.stdout.write(`${r.code === 0 ? 'passed' : 'FAILED'}  ${r.name}  (${r.seconds.toFixed(0)} s)\n`);
process.exitCode = results.every((r) => r.code === 0) ? 0 : 1;

/** Runs `svckit conformance --server <url>`, then stops the servers; the kit's exit code and time. */
async function runKit(name: string, url: string, servers: ServeProcess[]): Promise<{ name: string; code: number; seconds: number }> {
  process.stdout.write(`== conformance: ${name}\n`);
  const started = performance.now();
  const kit = spawn(process.execPath, cliArgs('conformance', '--server', url, ...WINDOWS, ...positionals), { stdio: 'inherit' });
  const code = await new Promise<number>((resolve) => kit.once('exit', (c) => resolve(c ?? 1)));
  const seconds = (performance.now() - started) / 1000;
  for (const s of servers) {
    if (s.process.exitCode !== null) process.stdout.write(`a server exited during the run:\n${s.stderr()}\n`);
    await s.stop();
  }
  return { name, code, seconds };
}
