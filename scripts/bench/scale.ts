import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { median } from './harness.js';
import { startCompiledSvckit, startSvckit } from './processes.js';
import { inParallel, pagedList, post } from './requests.js';
import { runWrk } from './wrk.js';

const SIZES = (process.env.SVCKIT_BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const CONFIGMAPS = '/api/v1/namespaces/scale/configmaps';
const MB = 1024 * 1024;

/**
 * `npm run bench -- scale`: how the cost of `svckit serve` (its own process) grows with the
 * collection, on memory and on SQLite, at 1,000 / 10,000 / 100,000 ConfigMaps of about 1 KiB
 * (`SVCKIT_BENCH_SIZES=1000,10000` for others): GET p50/p99 (wrk, 16 connections), a full paged
 * list (limit 500) and its cost per item, a watch from the revision before the first create until
 * every object arrived, heap after a full collection and RSS; on SQLite also restart to ready and
 * the heap after it. The peer of each size is the smallest size: per-item costs should stay flat.
 */
export async function benchScale(): Promise<void> {
  for (const store of ['memory', 'sqlite'] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-bench-scale-'));
    const args = ['--history-window', '2h', '--store', store === 'memory' ? 'memory' : `sqlite:${join(dir, 'scale.db')}`];
    let server = await startSvckit(`svckit serve --store ${store}`, args);
    const agent = new Agent({ connections: 64 });
    try {
      await post(agent, server.url, '/api/v1/namespaces', { metadata: { name: 'scale' } });
      const before = await listRevision(agent, server.url);
      process.stdout.write(`\n## Scale: ConfigMaps of ~1 KiB, svckit serve --store ${store} (own process)\n`);
      process.stdout.write(
        'objects | GET p50/p99 ms | paged list ms | µs per item (x smallest) | watch from old revision ms | heap / RSS MB | restart to ready (compiled), heap and RSS after, MB\n',
      );
      let stored = 0;
      let firstPerItem = 0;
      for (const size of SIZES) {
        await inParallel(size - stored, 64, () =>
          post(agent, server.url, CONFIGMAPS, configMap(`cm-${String(stored++).padStart(6, '0')}`)),
        );
        const get = await runWrk(`${server.url}${CONFIGMAPS}/cm-000000`, { connections: 16, seconds: 3 });
        const lists: number[] = [];
        for (let i = 0; i < 3; i++) lists.push(await timed(() => listAll(agent, server.url, size)));
        const listMs = median(lists);
        const perItem = (listMs * 1000) / size;
        firstPerItem ||= perItem;
        const watchMs = await timed(() => watchFrom(server.url, before, size));
        const memory = await server.memory();
        let restart = '';
        if (store === 'sqlite') {
          // Restart to ready from the compiled bin (as users start it), then the heap the
          // measured server holds after a restart (through tsx, which answers memory questions).
          await server.stop();
          const began = performance.now();
          const compiled = await startCompiledSvckit('svckit serve (compiled)', args);
          await ready(agent, compiled.url);
          const readyMs = performance.now() - began;
          const rss = (await compiled.memory())?.rss ?? 0;
          await compiled.stop();
          server = await startSvckit(`svckit serve --store ${store}`, args);
          await ready(agent, server.url);
          const after = await server.memory();
          restart = `${readyMs.toFixed(0)} ms, heap ${((after?.heapUsed ?? 0) / MB).toFixed(0)}, RSS ${(rss / MB).toFixed(0)}`;
        }
        process.stdout.write(
          `${size} | ${get.p50Ms.toFixed(2)}/${get.p99Ms.toFixed(2)} | ${listMs.toFixed(0)} | ${perItem.toFixed(1)} (${(perItem / firstPerItem).toFixed(2)}x) | ${watchMs.toFixed(0)} | ${((memory?.heapUsed ?? 0) / MB).toFixed(0)} / ${((memory?.rss ?? 0) / MB).toFixed(0)} | ${restart || '-'}\n`,
        );
      }
    } finally {
      await agent.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** The whole collection, page by page; it must hold `expected` items. */
async function listAll(agent: Agent, base: string, expected: number): Promise<void> {
  const items = await pagedList(agent, base, CONFIGMAPS);
  if (items !== expected) throw new Error(`listed ${items} of ${expected}`);
}

function configMap(name: string) {
  return { metadata: { name, labels: { app: 'scale' } }, data: { payload: 'x'.repeat(960) } };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function listRevision(agent: Agent, base: string): Promise<string> {
  const res = await request(`${base}${CONFIGMAPS}?limit=1`, { dispatcher: agent });
  return ((await res.body.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
}

/** A watch from `revision` until `expected` ADDED events arrived (counted by their lines). */
async function watchFrom(base: string, revision: string, expected: number): Promise<void> {
  const res = await request(`${base}${CONFIGMAPS}?watch=1&resourceVersion=${revision}`);
  let added = 0;
  let tail = '';
  for await (const chunk of res.body) {
    const lines = (tail + chunk.toString()).split('\n');
    tail = lines.pop()!;
    for (const line of lines) if (line.startsWith('{"type":"ADDED"')) added++;
    if (added >= expected) break;
  }
  res.body.destroy();
  if (added < expected) throw new Error(`the watch ended after ${added} of ${expected} events`);
}

async function ready(agent: Agent, base: string): Promise<void> {
  for (;;) {
    const res = await request(`${base}/readyz`, { dispatcher: agent });
    await res.body.text();
    if (res.statusCode === 200) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}
