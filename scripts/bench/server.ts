import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { type FanOutObject, fanOut, smallConfigMap } from './fan-out.js';
import { median, runCases } from './harness.js';
import { printHeadroom } from './headroom.js';
import { type LoadCase, type LoadTarget, runLoadCases } from './load-cases.js';
import { topFrames } from './profile-frames.js';
import { type ServerProcess, startBarePeer, startCompiledSvckit, startNode, startSvckit } from './processes.js';
import { inParallel, pagedList, post } from './requests.js';
import { runWrk, type WrkRequest } from './wrk.js';

const SECONDS = Number(process.env.SVCKIT_BENCH_SECONDS ?? 3);
const CONFIGMAPS = '/api/v1/namespaces/bench/configmaps';
/** Creates go to a namespace of their own, so the listed collection is the same size on both sides. */
const CREATES = '/api/v1/namespaces/writes/configmaps';

/**
 * `npm run bench -- server`: `svckit serve` in its own process beside peers in theirs, driven by
 * wrk from outside (one thread; the server gets the other core): a bare node:http server serving
 * the same JSON from a Map, and, for durable creates, the same bare server writing to SQLite with
 * the reference server's settings and group commit. Each case alternates the two sides, five runs
 * each, and prints medians of throughput, latency p50/p99 and the server's CPU per request,
 * then what the GET and durable create ratios leave room for (headroom.ts). Then the paged list
 * of 10,000, watch fan-out to 500 and 5,000 watchers (p99 delivery), and start to listening,
 * timed the same way.
 */
export async function benchServer(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-bench-server-'));
  const servers: ServerProcess[] = [];
  const started = async (s: Promise<ServerProcess>) => {
    const server = await s;
    servers.push(server);
    return server;
  };
  try {
    const memory = await started(startSvckit('svckit serve --store memory', ['--store', 'memory']));
    const sqlite = await started(startSvckit('svckit serve --store sqlite', ['--store', `sqlite:${join(dir, 'svckit.db')}`]));
    const bare = await started(startBarePeer('bare node:http'));
    const durable = await started(startBarePeer('better-sqlite3', { durableFile: join(dir, 'peer.db') }));
    const agent = new Agent({ connections: 16 });
    for (const s of [memory, sqlite]) {
      for (const name of ['bench', 'writes', 'fanout']) await post(agent, s.url, '/api/v1/namespaces', { metadata: { name } });
    }
    // The peers serve the very bytes svckit serves: the objects as svckit created them.
    const target = JSON.parse(await post(agent, memory.url, CONFIGMAPS, configMap('target')));
    await post(agent, sqlite.url, CONFIGMAPS, configMap('target'));
    for (const s of [bare, durable]) await post(agent, s.url, CONFIGMAPS, target);
    // Eight Deployments, one per connection on average: the case measures a patch, not eight
    // writers racing on one object (each lost race is applied again: upstream's retry loop).
    for (let i = 0; i < DEPLOYMENTS; i++) await post(agent, memory.url, '/apis/apps/v1/namespaces/bench/deployments', deployment('0', i));

    const getOne = (server: ServerProcess, name = server.name): LoadTarget => ({
      name,
      server,
      run: () => runWrk(`${server.url}${CONFIGMAPS}/target`, { connections: 16, seconds: SECONDS }),
    });
    const create = (server: ServerProcess, name = server.name): LoadTarget => ({
      name,
      server,
      run: () => runWrk(`${server.url}${CREATES}`, { connections: 8, seconds: SECONDS, request: createRequest }),
    });
    const patchDeployment = (name: string, query: string, request: WrkRequest): LoadTarget => ({
      name,
      server: memory,
      run: () =>
        runWrk(`${memory.url}/apis/apps/v1/namespaces/bench/deployments/web-__D__?${query}`, {
          connections: 8,
          seconds: SECONDS,
          request: { ...request, spread: DEPLOYMENTS },
        }),
    });
    const leaves = countLeaves(deployment('0', 0));
    const getMemory: LoadCase = { name: 'GET one ConfigMap, memory (16 conns)', ours: getOne(memory), peer: getOne(bare) };
    const durableCreate: LoadCase = {
      name: 'durable create, SQLite (8 conns)',
      ours: create(sqlite),
      peer: create(durable, 'better-sqlite3, same pragmas + group commit'),
    };
    const cases: LoadCase[] = [
      getMemory,
      { name: 'GET one ConfigMap, SQLite (16 conns)', ours: getOne(sqlite), peer: getOne(bare) },
      { name: 'create ConfigMap, memory (8 conns)', ours: create(memory), peer: create(bare) },
      durableCreate,
      {
        name: `apply vs merge patch, ${leaves}-field Deployments (8 conns, ${DEPLOYMENTS} objects)`,
        // Forced: the first apply takes the fields the create's manager owned.
        ours: patchDeployment('server-side apply', 'fieldManager=bench&force=true', {
          method: 'PATCH',
          headers: { 'content-type': 'application/apply-patch+yaml' },
          body: JSON.stringify(deployment('__N__', '__D__')),
        }),
        peer: patchDeployment('merge patch, same change', 'fieldManager=bench', {
          method: 'PATCH',
          headers: { 'content-type': 'application/merge-patch+json' },
          body: JSON.stringify({ metadata: { annotations: { revision: '__N__' } } }),
        }),
      },
    ];
    const results = await runLoadCases(
      `svckit serve vs peers, each in its own process, wrk -t1 for ${SECONDS}s per run (5 runs, medians)`,
      cases,
      (c, run) => profiled(c.ours.server, c.ours.name === c.ours.server.name ? c.name : `${c.name}: ${c.ours.name}`, run),
    );
    // The peer of apply is svckit too: its profile is the merge patch's.
    const merge = cases[cases.length - 1]!;
    if (PROFILES) await profiled(merge.peer.server, `${merge.name}: ${merge.peer.name}`, async () => void (await merge.peer.run()));

    const ratioOf = (c: LoadCase) => results[cases.indexOf(c)]!.ratio;
    await printHeadroom('What a ratio leaves room for: the bare peer spinning before each request, against itself', [
      {
        name: 'GET one ConfigMap',
        ratio: ratioOf(getMemory),
        workUs: [0, 3, 6, 9, 12],
        start: async (workUs) => {
          const peer = await startBarePeer(`bare +${workUs} us`, { workUs });
          await post(agent, peer.url, CONFIGMAPS, target);
          return peer;
        },
        run: (peer) => getOne(peer).run(),
      },
      {
        name: 'durable create',
        ratio: ratioOf(durableCreate),
        workUs: [0, 20, 40, 80, 160],
        start: (workUs) => startBarePeer(`better-sqlite3 +${workUs} us`, { durableFile: join(dir, `headroom-${workUs}.db`), workUs }),
        run: (peer) => create(peer).run(),
      },
    ]);

    await fill(agent, memory, bare, 10_000);
    await runCases('Paged list of 10,000 ConfigMaps (limit=500), server in its own process', [
      {
        name: 'list 10k in pages of 500, memory',
        ours: () => profiled(memory, 'paged list of 10k, memory', () => listAll(agent, memory.url)),
        peer: { name: 'bare node:http', run: () => listAll(agent, bare.url) },
      },
    ]);

    // The bare peer sends its watchers the object as svckit's watchers get it (uid, timestamps,
    // managed fields, resourceVersion): the same bytes per event on both sides.
    const template = JSON.parse(await post(agent, memory.url, '/api/v1/namespaces/fanout/configmaps', smallConfigMap('template')));
    const asSvckitWrites = (name: string) => ({ ...template, metadata: { ...template.metadata, name } });
    for (const watchers of [500, 5000]) {
      const p99 = { ours: [] as number[], peer: [] as number[] };
      await runCases(`Watch fan-out: ${watchers} watchers, one write, until the last receives it`, [
        {
          name: `fan-out ${watchers}, memory`,
          ours: () => profiled(memory, `fan-out ${watchers}, memory`, () => fanOutTo(memory, watchers, p99.ours, smallConfigMap)),
          peer: { name: 'bare node:http', run: () => fanOutTo(bare, watchers, p99.peer, asSvckitWrites) },
          runs: 5,
        },
      ]);
      process.stdout.write(`p99 delivery: svckit ${median(p99.ours).toFixed(1)} ms, bare node:http ${median(p99.peer).toFixed(1)} ms\n`);
    }
    await agent.close();
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  }

  // Start-up as users start it: the compiled bin, beside node starting a bare node:http server;
  // sources through tsx would time tsx's transpiling.
  await runCases('Start to listening, a process of each', [
    {
      name: 'svckit serve --store memory (compiled)',
      ours: () => startedIn(startCompiledSvckit('svckit', ['--store', 'memory'])),
      peer: { name: 'node: bare node:http', run: () => startedIn(startNode('bare', ['-e', BARE_LISTENER])) },
    },
  ]);
}

/** `SVCKIT_BENCH_PROFILE=<dir>`: each case's svckit side is profiled (V8's CPU profiler, over the timed runs alone). */
const PROFILES = process.env.SVCKIT_BENCH_PROFILE;
const profileCounts = new Map<string, number>();

/** Runs `fn`; with profiles asked for, under the profiler of `server`, then prints its top frames. */
async function profiled<T>(server: ServerProcess, name: string, fn: () => Promise<T>): Promise<T> {
  if (!PROFILES) return fn();
  const slug = name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  const run = (profileCounts.get(slug) ?? 0) + 1;
  profileCounts.set(slug, run);
  const dir = join(PROFILES, slug);
  mkdirSync(dir, { recursive: true });
  await server.profile({ start: true });
  try {
    return await fn();
  } finally {
    await server.profile({ stopTo: join(dir, `${run}.cpuprofile`) });
    const top = topFrames(dir, 8);
    process.stdout.write(
      `  profile of ${name} (${dir}, ${top.busyMs.toFixed(0)} ms busy): ${top.frames.map((f) => `${f.name} ${f.percent.toFixed(1)}%`).join('; ')}\n`,
    );
  }
}

const BARE_LISTENER =
  "const s = require('node:http').createServer((q, r) => r.end()); s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));";

async function startedIn(start: Promise<ServerProcess>): Promise<number> {
  const server = await start;
  await server.stop();
  return server.startMs;
}

const createRequest: WrkRequest = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ ...configMap('c__N__'), metadata: { name: 'c__N__', namespace: 'writes' } }),
};

function configMap(name: string) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'bench', labels: { app: 'bench' } },
    data: { key: 'x'.repeat(200) },
  };
}

const DEPLOYMENTS = 8;

/** A Deployment (`web-<index>`) of about 57 fields, its `revision` annotation the one value that changes. */
function deployment(revision: string, index: number | string) {
  const container = (n: number) => ({
    name: `c${n}`,
    image: `registry.example/web:${n}`,
    ports: [
      { name: `http${n}`, containerPort: 8000 + n, protocol: 'TCP' },
      { name: `metrics${n}`, containerPort: 9000 + n, protocol: 'TCP' },
    ],
    env: [
      { name: 'MODE', value: 'production' },
      { name: 'LEVEL', value: String(n) },
    ],
    resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '512Mi' } },
    readinessProbe: { httpGet: { path: '/ready', port: 8000 + n }, periodSeconds: 5 },
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `web-${index}`, namespace: 'bench', labels: { app: 'web', tier: 'front' }, annotations: { revision } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: 'web', tier: 'front' } },
        spec: { containers: [container(1), container(2)], nodeSelector: { disk: 'ssd' }, terminationGracePeriodSeconds: 20 },
      },
    },
  };
}

function countLeaves(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countLeaves(v), 0);
  if (value && typeof value === 'object') return Object.values(value).reduce((n: number, v) => n + countLeaves(v), 0);
  return 1;
}

/** Creates `total` ConfigMaps in svckit, and the same objects, as svckit created them, in the peer. */
async function fill(agent: Agent, server: ServerProcess, peer: ServerProcess, total: number): Promise<void> {
  let n = 0;
  await inParallel(total, 32, async () => {
    const created = await post(agent, server.url, CONFIGMAPS, configMap(`l${n++}`));
    await post(agent, peer.url, CONFIGMAPS, JSON.parse(created));
  });
}

/** The 10,000 ConfigMaps (and the target) page by page. */
async function listAll(agent: Agent, base: string): Promise<void> {
  const items = await pagedList(agent, base, CONFIGMAPS);
  if (items < 10_000) throw new Error(`listed ${items} items`);
}

/** One fan-out of `n` watchers on one server: resolves to the last delivery, records the p99. */
async function fanOutTo(server: ServerProcess, n: number, p99s: number[], written: FanOutObject): Promise<number> {
  const r = await fanOut([server.url], server.url, n, written);
  p99s.push(r.p99Ms);
  return r.lastMs;
}
