import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { cliArgs } from '../commands/cli.testing.js';
import { type TestServer, startTestServer } from '../../reference/testing/index.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const STARTS = 20;
const RESETS = 30;
const OBJECTS = 100;
const DEFINITIONS = 20;
const CERT_MANAGER = '/work/shared/testdata/crds/cert-manager';

/**
 * `npm run bench -- test-server`: what a test pays for svckit/testing. Start-to-ready of
 * `startTestServer()` in-process (plain, and with users under RBAC), the memory each server adds,
 * beside starting `svckit serve --store memory` as a process (until its "listening on" line, and
 * that process's resident memory); then the time of `reset()` after a test wrote objects, and of
 * restoring a snapshot.
 */
export async function benchTestServer(): Promise<void> {
  process.stdout.write('\n## svckit/testing: start, memory, reset\n');
  await startTestServer().then((s) => s.close()); // warm-up: module loading is not a start

  const plain = await timedStarts(() => startTestServer());
  report(`startTestServer() start-to-ready (${STARTS} runs)`, plain.ms);
  const rbac = await timedStarts(() => startTestServer({ users: { alice: ['devs'] } }));
  report(`startTestServer({ users }) with RBAC (${STARTS} runs)`, rbac.ms);

  const memory = await memoryPerServer(STARTS);
  process.stdout.write(`memory per in-process server (${STARTS} open at once): heap +${mb(memory.heap)} MB, rss +${mb(memory.rss)} MB\n`);

  const serve = existsSync(join(ROOT, 'dist/scripts/cli.js'))
    ? { label: 'compiled bin', args: [join(ROOT, 'bin/svckit.js'), 'serve', '--port', '0', '--store', 'memory'] }
    : { label: 'sources via tsx; npm run build for the compiled bin', args: cliArgs('serve', '--port', '0', '--store', 'memory') };
  const processes: { ms: number; rssKb: number }[] = [];
  for (let i = 0; i < 5; i++) processes.push(await serveProcess(serve.args));
  report(
    `svckit serve as a process (${serve.label}, 5 runs)`,
    processes.map((p) => p.ms),
  );
  process.stdout.write(`svckit serve process resident memory: ${mb(median(processes.map((p) => p.rssKb * 1024)))} MB\n`);

  const s = await startTestServer();
  try {
    const resets: number[] = [];
    for (let i = 0; i < RESETS; i++) {
      await writeObjects(s, OBJECTS);
      const t = performance.now();
      await s.reset();
      resets.push(performance.now() - t);
    }
    report(`reset() after ${OBJECTS} objects written (${RESETS} runs)`, resets);
    await writeObjects(s, OBJECTS);
    const snapshot = await s.snapshot();
    const restores: number[] = [];
    for (let i = 0; i < RESETS; i++) {
      await s.reset();
      const t = performance.now();
      await s.restore(snapshot);
      restores.push(performance.now() - t);
    }
    report(`restore(snapshot of ${OBJECTS} objects) from empty (${RESETS} runs)`, restores);
  } finally {
    await s.close();
  }
  await benchDefinitions();
}

/**
 * What serving a CustomResourceDefinition costs: from its POST to the first 200 list of its
 * resource (each definition new), and `install()` of the cert-manager CRDs into a fresh server
 * (when /work/shared/testdata holds them).
 */
export async function benchDefinitions(): Promise<void> {
  const s = await startTestServer();
  try {
    const served: number[] = [];
    for (let i = 0; i < DEFINITIONS; i++) served.push(await firstList(s.url, `bench${i}.example.io`));
    report(`CustomResourceDefinition POST to its first 200 list (${DEFINITIONS} new definitions)`, served);
  } finally {
    await s.close();
  }
  if (!existsSync(CERT_MANAGER)) {
    process.stdout.write(`install() of the cert-manager CRDs: skipped (no ${CERT_MANAGER})\n`);
    return;
  }
  const installs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const fresh = await startTestServer();
    try {
      const t = performance.now();
      await fresh.install(CERT_MANAGER);
      installs.push(performance.now() - t);
    } finally {
      await fresh.close();
    }
  }
  report('install() of the 6 cert-manager CRDs into a fresh test server (5 runs)', installs);
}

async function firstList(url: string, group: string): Promise<number> {
  const schema = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 10 } } } } };
  const crd = {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
  const t = performance.now();
  const created = await fetch(`${url}/apis/apiextensions.svc.io/v1/customresourcedefinitions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(crd),
  });
  if (created.status !== 201) throw new Error(`creating ${crd.metadata.name}: ${created.status} ${await created.text()}`);
  for (;;) {
    const list = await fetch(`${url}/apis/${group}/v1/namespaces/default/widgets`);
    await list.body?.cancel();
    if (list.status === 200) return performance.now() - t;
    await new Promise((r) => setTimeout(r, 1));
  }
}

async function timedStarts(start: () => Promise<TestServer>): Promise<{ ms: number[] }> {
  const ms: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const t = performance.now();
    const s = await start();
    ms.push(performance.now() - t);
    await s.close();
  }
  return { ms };
}

async function memoryPerServer(n: number): Promise<{ heap: number; rss: number }> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage();
  const servers = await Promise.all(Array.from({ length: n }, () => startTestServer()));
  gc();
  const after = process.memoryUsage();
  await Promise.all(servers.map((s) => s.close()));
  return { heap: (after.heapUsed - before.heapUsed) / n, rss: (after.rss - before.rss) / n };
}

function serveProcess(args: string[]): Promise<{ ms: number; rssKb: number }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('listening on')) return;
      const ms = performance.now() - t;
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      child.once('exit', () => resolve({ ms, rssKb }));
      child.kill('SIGTERM');
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!out.includes('listening on')) reject(new Error(`svckit serve exited ${code} before listening`));
    });
  });
}

async function writeObjects(s: TestServer, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { i: String(i) } }),
    });
    await res.body?.cancel();
  }
}

function report(what: string, ms: number[]): void {
  const sorted = [...ms].sort((a, b) => a - b);
  const p90 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))]!;
  process.stdout.write(`${what}: median ${median(ms).toFixed(1)} ms, p90 ${p90.toFixed(1)} ms\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
