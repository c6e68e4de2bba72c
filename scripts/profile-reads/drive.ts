/**
 * One-off: per-GET server CPU and watch fan-out of the reference server against a bare node:http
 * server, each in its own process (bundled serve.mjs, optionally under --cpu-prof).
 *   npx tsx scripts/profile-reads/drive.ts get|fanout ours-memory|ours-sqlite|bare [--prof DIR]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'undici';

/** Runs `task` `total` times, `width` at a time. */
async function inParallel(total: number, width: number, task: () => Promise<unknown>): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started++;
      await task();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
}

async function get(agent: Agent, base: string, path: string): Promise<void> {
  const res = await request(base + path, { dispatcher: agent });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
}

async function post(agent: Agent, base: string, path: string, body: unknown): Promise<void> {
  const res = await request(base + path, {
    method: 'POST',
    dispatcher: agent,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`POST ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
}

const [what = 'get', mode = 'ours-memory'] = process.argv.slice(2);
const profIdx = process.argv.indexOf('--prof');
const profDir = profIdx > 0 ? process.argv[profIdx + 1] : undefined;
const N = Number(process.env.N ?? 20_000);
const WATCHERS = Number(process.env.WATCHERS ?? 500);

function ask<T>(child: ChildProcess, op: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { op: string }) => {
      if (m.op === op) {
        child.off('message', on);
        resolve(m as T);
      }
    };
    child.on('message', on);
    child.send({ op });
  });
}

const cm = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'bench', labels: { app: 'bench' } },
  data: { key: 'x'.repeat(200) },
});

async function main(): Promise<void> {
  const child = fork(new URL(`./dist/${process.env.BUNDLE ?? 'serve.mjs'}`, import.meta.url).pathname, [mode], {
    execArgv: profDir ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${profDir}`] : [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url } = await new Promise<{ url: string }>((resolve) => child.once('message', (m) => resolve(m as { url: string })));
  const agent = new Agent({ connections: 16, pipelining: 1 });
  const path = '/api/v1/namespaces/bench/configmaps/target';
  if (mode !== 'bare') await post(agent, url, '/api/v1/namespaces', { metadata: { name: 'bench' } });
  await post(agent, url, '/api/v1/namespaces/bench/configmaps', cm('target'));
  if (what === 'get') {
    await inParallel(3000, 16, () => get(agent, url, path));
    const before = await ask<{ usage: NodeJS.CpuUsage }>(child, 'cpu');
    const t0 = performance.now();
    await inParallel(N, 16, () => get(agent, url, path));
    const wall = performance.now() - t0;
    const after = await ask<{ usage: NodeJS.CpuUsage }>(child, 'cpu');
    const cpu = (after.usage.user - before.usage.user + after.usage.system - before.usage.system) / 1000;
    console.log(
      `${mode} get x${N}: wall ${wall.toFixed(0)} ms, ${(N / (wall / 1000)).toFixed(0)} req/s, server CPU ${((cpu / N) * 1000).toFixed(1)} us/GET (user ${((after.usage.user - before.usage.user) / N).toFixed(1)} us)`,
    );
  } else {
    const runs = Number(process.env.RUNS ?? 5);
    const times: number[] = [];
    const cpus: number[] = [];
    for (let run = 0; run < runs; run++) {
      const wagent = new Agent({ connections: WATCHERS + 4 });
      const rv =
        mode === 'bare'
          ? ''
          : (
              (await (await request(`${url}/api/v1/namespaces/bench/configmaps?limit=1`, { dispatcher: agent })).body.json()) as {
                metadata: { resourceVersion: string };
              }
            ).metadata.resourceVersion;
      const name = `fanout${run}`;
      const wurl =
        mode === 'bare'
          ? `${url}/api/v1/namespaces/bench/configmaps?watch=1`
          : `${url}/api/v1/namespaces/bench/configmaps?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3D${name}`;
      const streams = await Promise.all(Array.from({ length: WATCHERS }, () => request(wurl, { dispatcher: wagent })));
      if (mode === 'bare') while ((await ask<{ n: number }>(child, 'watchers')).n < WATCHERS) await new Promise((r) => setTimeout(r, 5));
      const seen = streams.map(
        (s) => new Promise<void>((resolve) => s.body.on('data', (c: Buffer) => c.toString().includes(`"${name}"`) && resolve())),
      );
      await new Promise((r) => setTimeout(r, 50));
      const before = await ask<{ usage: NodeJS.CpuUsage }>(child, 'cpu');
      const t0 = performance.now();
      await post(agent, url, '/api/v1/namespaces/bench/configmaps', cm(name));
      await Promise.all(seen);
      times.push(performance.now() - t0);
      // The server's work after the last delivery (its own bookkeeping) belongs to the write too.
      await new Promise((r) => setTimeout(r, 100));
      const after = await ask<{ usage: NodeJS.CpuUsage }>(child, 'cpu');
      cpus.push((after.usage.user - before.usage.user + after.usage.system - before.usage.system) / 1000);
      for (const s of streams) s.body.destroy();
      await wagent.destroy();
      await new Promise((r) => setTimeout(r, 100));
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `${mode} fan-out ${WATCHERS}: median ${med(times).toFixed(1)} ms (runs ${times.map((t) => t.toFixed(1)).join(' ')}), server CPU median ${med(cpus).toFixed(1)} ms`,
    );
  }
  await agent.close();
  child.send({ op: 'stop' });
  await new Promise((r) => child.once('exit', r));
}
void main();
