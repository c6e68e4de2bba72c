import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { type RunningServer, startReferenceServer } from '../../reference/index.js';
import { type BenchCase, runCases } from './harness.js';
import { get, inParallel, post } from './requests.js';

/**
 * The reference server beside a bare node:http server that serves the same stored JSON from a Map
 * (no routing, validation, storage or resource versions): what the protocol costs on top of HTTP.
 */
export async function benchServer(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-bench-server-'));
  const ours = await startReferenceServer({ store: `sqlite:${join(dir, 'bench.db')}` });
  const bare = await startBareServer();
  const agent = new Agent({ connections: 16, pipelining: 1 });
  try {
    await post(agent, ours.url, '/api/v1/namespaces', { metadata: { name: 'bench' } });
    const cm = (name: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'bench', labels: { app: 'bench' } },
      data: { key: 'x'.repeat(200) },
    });
    await post(agent, ours.url, '/api/v1/namespaces/bench/configmaps', cm('target'));
    await post(agent, bare.url, '/api/v1/namespaces/bench/configmaps', cm('target'));

    let oursCreated = 0;
    let peerCreated = 0;
    const cases: BenchCase[] = [
      {
        name: 'get x2000 (16 in flight)',
        ours: () => inParallel(2000, 16, () => get(agent, ours.url, '/api/v1/namespaces/bench/configmaps/target')),
        peer: {
          name: 'bare node:http',
          run: () => inParallel(2000, 16, () => get(agent, bare.url, '/api/v1/namespaces/bench/configmaps/target')),
        },
      },
      {
        name: 'create x300 (durable, 8 in flight)',
        ours: () => inParallel(300, 8, () => post(agent, ours.url, '/api/v1/namespaces/bench/configmaps', cm(`c${oursCreated++}`))),
        peer: {
          name: 'bare node:http',
          run: () => inParallel(300, 8, () => post(agent, bare.url, '/api/v1/namespaces/bench/configmaps', cm(`c${peerCreated++}`))),
        },
        runs: 3,
      },
    ];
    await runCases('Reference server vs a bare node:http server (same JSON)', cases);

    // 10,000 objects for the paged list.
    let filled = 0;
    await inParallel(Math.max(0, 10_000 - oursCreated - 1), 16, () =>
      post(agent, ours.url, '/api/v1/namespaces/bench/configmaps', cm(`l${filled++}`)),
    );
    filled = 0;
    await inParallel(Math.max(0, 10_000 - peerCreated - 1), 16, () =>
      post(agent, bare.url, '/api/v1/namespaces/bench/configmaps', cm(`l${filled++}`)),
    );
    await runCases('Paged list of 10,000 ConfigMaps (limit=500)', [
      {
        name: 'list 10k in pages of 500',
        ours: () => pagedList(agent, ours.url),
        peer: { name: 'bare node:http', run: () => pagedList(agent, bare.url) },
        runs: 3,
      },
    ]);

    await runCases('Watch fan-out: 500 watchers, time until all receive one event', [
      {
        name: 'fan-out 500 watchers',
        ours: () => fanOut(ours, 500),
        peer: { name: 'bare node:http', run: () => bare.fanOut(500) },
        runs: 3,
      },
    ]);
  } finally {
    await agent.close();
    await ours.close();
    await bare.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pagedList(agent: Agent, base: string): Promise<void> {
  let token = '';
  let items = 0;
  do {
    const res = await request(
      `${base}/api/v1/namespaces/bench/configmaps?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`,
      { dispatcher: agent },
    );
    const list = (await res.body.json()) as { metadata: { continue?: string }; items: unknown[] };
    items += list.items.length;
    token = list.metadata.continue ?? '';
  } while (token);
  if (items < 10_000) throw new Error(`listed ${items} items`);
}

/** Opens `n` watches, then measures from one write until every watcher has seen its event. */
async function fanOut(server: RunningServer, n: number): Promise<number> {
  const agent = new Agent({ connections: n + 4 });
  const url = `${server.url}/api/v1/namespaces/bench/configmaps?watch=1&resourceVersion=${await currentRv(agent, server.url)}&fieldSelector=metadata.name%3Dfanout`;
  const streams = await Promise.all(Array.from({ length: n }, () => request(url, { dispatcher: agent })));
  const seen = streams.map(
    (s) =>
      new Promise<void>((resolve) => {
        s.body.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('"fanout"')) resolve();
        });
      }),
  );
  const start = performance.now();
  const name = 'fanout';
  await request(`${server.url}/api/v1/namespaces/bench/configmaps/${name}`, { method: 'DELETE', dispatcher: agent }).then((r) =>
    r.body.text(),
  );
  await post(agent, server.url, '/api/v1/namespaces/bench/configmaps', { metadata: { name }, data: { a: 'b' } });
  await Promise.all(seen);
  const elapsed = performance.now() - start;
  for (const s of streams) s.body.destroy();
  await agent.destroy();
  return elapsed;
}

async function currentRv(agent: Agent, base: string): Promise<string> {
  const res = await request(`${base}/api/v1/namespaces/bench/configmaps?limit=1`, { dispatcher: agent });
  const list = (await res.body.json()) as { metadata: { resourceVersion: string } };
  return list.metadata.resourceVersion;
}

/** The peer: the same paths served from a Map, with chunked watch streams for fan-out. */
async function startBareServer(): Promise<{ url: string; close(): Promise<void>; fanOut(n: number): Promise<number> }> {
  const objects = new Map<string, string>();
  const watchers = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const obj = JSON.parse(Buffer.concat(chunks).toString()) as { metadata: { name: string } };
        const text = JSON.stringify(obj);
        objects.set(`${path}/${obj.metadata.name}`, text);
        for (const w of watchers) w.write(`{"type":"ADDED","object":${text}}\n`);
        res.writeHead(201, { 'content-type': 'application/json' }).end(text);
      });
      return;
    }
    if ((req.url ?? '').includes('watch=1')) {
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.flushHeaders();
      watchers.add(res);
      res.on('close', () => watchers.delete(res));
      return;
    }
    const one = objects.get(path);
    if (one) return void res.writeHead(200, { 'content-type': 'application/json' }).end(one);
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const all = [...objects.entries()].filter(([k]) => k.startsWith(`${path}/`)).map(([, v]) => v);
    const start = Number(q.get('continue') || 0);
    const limit = Number(q.get('limit') || all.length);
    const page = all.slice(start, start + limit);
    const next = start + limit < all.length ? String(start + limit) : '';
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(`{"kind":"ConfigMapList","metadata":{"continue":"${next}"},"items":[${page.join(',')}]}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    fanOut: async (n) => {
      const agent = new Agent({ connections: n + 4 });
      const streams = await Promise.all(
        Array.from({ length: n }, () => request(`${url}/api/v1/namespaces/bench/configmaps?watch=1`, { dispatcher: agent })),
      );
      while (watchers.size < n) await new Promise((r) => setTimeout(r, 5));
      const seen = streams.map(
        (s) => new Promise<void>((resolve) => s.body.on('data', (c: Buffer) => c.toString().includes('"fanout"') && resolve())),
      );
      const start = performance.now();
      await post(agent, url, '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'fanout' }, data: { a: 'b' } });
      await Promise.all(seen);
      const elapsed = performance.now() - start;
      for (const s of streams) s.body.destroy();
      await agent.destroy();
      return elapsed;
    },
  };
}
