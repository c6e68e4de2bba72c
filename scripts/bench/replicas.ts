import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { startEtcd } from '../../runtime/store/etcd.testing.js';
import { sharedSigningKeyFlags } from '../checks/replicas.js';
import { fanOut } from './fan-out.js';
import { median } from './harness.js';
import { cpuMsOf, type ServerProcess, startSvckit } from './processes.js';
import { post } from './requests.js';
import { runWrk } from './wrk.js';

const SECONDS = Number(process.env.SVCKIT_BENCH_SECONDS ?? 3);
const RUNS = 5;
const WATCHERS = 500;

/**
 * `npm run bench -- replicas`: more than one core. One and two `svckit serve` processes on one
 * etcd (fsync on): GET throughput of one ConfigMap (wrk, 16 connections in all, split over the
 * replicas), the CPU each request cost the replicas and etcd, and a write's fan-out to 500
 * watchers spread over the replicas. On SQLite a second process cannot share the file: the store
 * takes an exclusive lock and feeds watches in-process (docs/decisions.md).
 */
export async function benchReplicas(): Promise<void> {
  const etcd = await startEtcd();
  const dir = mkdtempSync(join(tmpdir(), 'svckit-bench-replicas-'));
  const keyFile = join(dir, 'continue.key');
  writeFileSync(keyFile, `${randomBytes(48).toString('base64')}\n`, { mode: 0o600 });
  const args = ['--store', `etcd://${etcd.endpoint}?prefix=/bench`, ...sharedSigningKeyFlags(), '--continue-token-key-file', keyFile];
  const replicas: ServerProcess[] = [];
  try {
    replicas.push(await startSvckit('replica 1', args));
    const agent = new Agent({ connections: 4 });
    for (const name of ['bench', 'fanout']) await post(agent, replicas[0]!.url, '/api/v1/namespaces', { metadata: { name } });
    await post(agent, replicas[0]!.url, '/api/v1/namespaces/bench/configmaps', {
      metadata: { name: 'target' },
      data: { key: 'x'.repeat(200) },
    });
    await agent.close();
    process.stdout.write(
      `\n## Replicas on one etcd: GET of one ConfigMap (wrk, 16 connections in all, ${SECONDS}s x ${RUNS}), fan-out to ${WATCHERS} watchers\n`,
    );
    process.stdout.write('replicas | GET req/s | p50/p99 ms | CPU ms/req: svckit, etcd | fan-out: last / p99 ms\n');
    for (const count of [1, 2]) {
      while (replicas.length < count) replicas.push(await startSvckit(`replica ${replicas.length + 1}`, args));
      const runs: Awaited<ReturnType<typeof getAcross>>[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await getAcross(replicas, etcd.pid));
      const fanOuts = [];
      for (let i = 0; i < 3; i++)
        fanOuts.push(
          await fanOut(
            replicas.map((r) => r.url),
            replicas[0]!.url,
            WATCHERS,
          ),
        );
      const m = (pick: (r: (typeof runs)[number]) => number) => median(runs.map(pick));
      process.stdout.write(
        `${count} | ${Math.round(m((r) => r.perSecond))} | ${m((r) => r.p50Ms).toFixed(2)}/${m((r) => r.p99Ms).toFixed(2)} | ${m((r) => r.svckitCpu).toFixed(3)}, ${m((r) => r.etcdCpu).toFixed(3)} | ${median(fanOuts.map((f) => f.lastMs)).toFixed(1)} / ${median(fanOuts.map((f) => f.p99Ms)).toFixed(1)}\n`,
      );
    }
    process.stdout.write(`(${availableParallelism()} cores here: the replicas, etcd and wrk share them)\n`);
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    await etcd.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One wrk per replica at once, the 16 connections split between them; throughput summed. */
async function getAcross(replicas: ServerProcess[], etcdPid: number) {
  const cpu = () => replicas.reduce((sum, r) => sum + r.cpuMs(), 0);
  const [svckitBefore, etcdBefore] = [cpu(), cpuMsOf(etcdPid)];
  const results = await Promise.all(
    replicas.map((r) =>
      runWrk(`${r.url}/api/v1/namespaces/bench/configmaps/target`, { connections: 16 / replicas.length, seconds: SECONDS }),
    ),
  );
  const requests = results.reduce((sum, r) => sum + r.requests, 0);
  if (results.some((r) => r.failures > 0)) throw new Error('GET failed during the replicas bench');
  return {
    perSecond: results.reduce((sum, r) => sum + r.perSecond, 0),
    p50Ms: median(results.map((r) => r.p50Ms)),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    svckitCpu: (cpu() - svckitBefore) / requests,
    etcdCpu: (cpuMsOf(etcdPid) - etcdBefore) / requests,
  };
}
