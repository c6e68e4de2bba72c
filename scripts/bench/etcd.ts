/**
 * The reference server on SQLite and on etcd, each beside the raw etcd client (grpc-js calls, no
 * server) doing the same puts and ranges with the same JSON: the ratio is what the server adds on
 * top of etcd (HTTP, the handler chain, validation, encoding, the store contract).
 *
 *   npm run bench -- etcd [--size 10000]     (--size: objects in the paged list; default 10,000)
 *
 * etcd runs with fsync on, as in production; both sides pay it for every write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { generateSigningKey } from '../../runtime/auth/index.js';
import { RawEtcdClient, startEtcd } from '../../runtime/store/etcd.testing.js';
import { type RunningServer, startReferenceServer } from '../../reference/index.js';
import { type BenchCase, runCases } from './harness.js';
import { get, inParallel, post } from './requests.js';

type Raw = Awaited<ReturnType<typeof RawEtcdClient.connect>>;

const FAN_OUT = 500;

export async function benchEtcd(): Promise<void> {
  const sizeAt = process.argv.indexOf('--size');
  const size = sizeAt >= 0 ? Number(process.argv[sizeAt + 1]) : 10_000;
  if (!Number.isInteger(size) || size < 1) throw new Error(`--size takes a positive integer, not ${process.argv[sizeAt + 1]}`);
  const etcd = await startEtcd();
  const dir = mkdtempSync(join(tmpdir(), 'svckit-bench-etcd-'));
  const raw = await RawEtcdClient.connect({ endpoints: [etcd.endpoint] });
  try {
    const backends: [string, string][] = [
      ['SQLite', `sqlite:${join(dir, 'bench.db')}`],
      ['etcd', `etcd://${etcd.endpoint}?prefix=/server`],
    ];
    for (const [name, store] of backends) {
      // On etcd a server generates no signing key replicas could not share: one is given, as upstream.
      const server = await startReferenceServer({ store, serviceAccounts: { signingKey: generateSigningKey() } });
      try {
        await benchOne(name, server, raw, `/raw-${name}`, size);
      } finally {
        await server.close();
      }
    }
  } finally {
    raw.close();
    await etcd.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'bench', labels: { app: 'bench' } },
  data: { key: 'x'.repeat(200) },
});

async function benchOne(backend: string, server: RunningServer, raw: Raw, rawPrefix: string, size: number): Promise<void> {
  const agent = new Agent({ connections: 16 });
  const rawKey = (name: string) => Buffer.from(`${rawPrefix}/configmaps/bench/${name}`);
  // The raw side writes what the server stores: the object's JSON, created only if absent.
  const rawCreate = async (name: string) => {
    const key = rawKey(name);
    const r = await raw.txn({
      compare: [{ result: 0, target: 2, key, modRevision: 0 }],
      success: [{ requestPut: { key, value: Buffer.from(JSON.stringify(configMap(name))) } }],
      failure: [],
    });
    if (!r.succeeded) throw new Error(`raw create ${name}: exists`);
  };
  try {
    await post(agent, server.url, '/api/v1/namespaces', { metadata: { name: 'bench' } });
    await post(agent, server.url, '/api/v1/namespaces/bench/configmaps', configMap('target'));
    await rawCreate('target');
    let ours = 0;
    let peer = 0;
    const cases: BenchCase[] = [
      {
        name: 'create x300 (8 in flight)',
        ours: () => inParallel(300, 8, () => post(agent, server.url, '/api/v1/namespaces/bench/configmaps', configMap(`c${ours++}`))),
        peer: { name: 'raw etcd txn', run: () => inParallel(300, 8, () => rawCreate(`c${peer++}`)) },
        runs: 3,
      },
      {
        name: 'get x2000 (16 in flight)',
        ours: () => inParallel(2000, 16, () => get(agent, server.url, '/api/v1/namespaces/bench/configmaps/target')),
        peer: { name: 'raw etcd range', run: () => inParallel(2000, 16, () => raw.range({ key: rawKey('target') }).then(() => undefined)) },
      },
    ];
    await runCases(`${backend} server vs raw etcd: create and get`, cases);

    // Fill to `size` objects on both sides for the paged list.
    let filled = 0;
    await inParallel(Math.max(0, size - ours - 1), 16, () =>
      post(agent, server.url, '/api/v1/namespaces/bench/configmaps', configMap(`l${filled++}`)),
    );
    filled = 0;
    await inParallel(Math.max(0, size - peer - 1), 16, () => rawCreate(`l${filled++}`));
    await runCases(`${backend} server vs raw etcd: paged list of ${size.toLocaleString('en')} (limit 500)`, [
      {
        name: `list ${size} in pages of 500`,
        ours: () => pagedList(agent, server.url, size),
        peer: { name: 'raw etcd ranges', run: () => rawPagedList(raw, Buffer.from(`${rawPrefix}/configmaps/bench/`), size) },
        runs: 3,
      },
    ]);

    await runCases(`${backend} server vs raw etcd: watch fan-out, ${FAN_OUT} watchers, one write until all have it`, [
      {
        name: `fan-out ${FAN_OUT} watchers`,
        ours: () => serverFanOut(server.url),
        peer: { name: `raw: ${FAN_OUT} etcd watches`, run: () => rawFanOut(raw, rawKey('fanout')) },
        runs: 3,
      },
    ]);
  } finally {
    await agent.close();
  }
}

async function pagedList(agent: Agent, base: string, size: number): Promise<void> {
  let token = '';
  let items = 0;
  do {
    const res = await request(
      `${base}/api/v1/namespaces/bench/configmaps?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`,
      {
        dispatcher: agent,
      },
    );
    const list = (await res.body.json()) as { metadata: { continue?: string }; items: unknown[] };
    items += list.items.length;
    token = list.metadata.continue ?? '';
  } while (token);
  if (items < size) throw new Error(`listed ${items} of ${size}`);
}

/** The same pages straight from etcd: ranges of 500 at the first page's revision, each after the last key. */
async function rawPagedList(raw: Raw, prefix: Buffer, size: number): Promise<void> {
  const end = Buffer.from(prefix);
  end[end.length - 1]! += 1;
  let from = prefix;
  let revision = 0;
  let items = 0;
  for (;;) {
    const page = await raw.range({ key: from, rangeEnd: end, limit: 500, revision });
    revision = page.header.revision;
    items += page.kvs.length;
    for (const kv of page.kvs) JSON.parse(kv.value.toString('utf8'));
    if (!page.more) break;
    from = Buffer.concat([page.kvs.at(-1)!.key, Buffer.from([0])]);
  }
  if (items < size) throw new Error(`raw listed ${items} of ${size}`);
}

let fanOutRound = 0;

/** Opens FAN_OUT HTTP watches, then times one create until every watcher has its event. */
async function serverFanOut(base: string): Promise<number> {
  const name = `fanout-${fanOutRound++}`;
  const agent = new Agent({ connections: FAN_OUT + 4 });
  const rvRes = await request(`${base}/api/v1/namespaces/bench/configmaps?limit=1`, { dispatcher: agent });
  const rv = ((await rvRes.body.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const url = `${base}/api/v1/namespaces/bench/configmaps?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3D${name}`;
  const streams = await Promise.all(Array.from({ length: FAN_OUT }, () => request(url, { dispatcher: agent })));
  const seen = streams.map(
    (s) =>
      new Promise<void>((resolve) => {
        let text = '';
        s.body.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes(`"${name}"`)) resolve();
        });
      }),
  );
  const start = performance.now();
  await post(agent, base, '/api/v1/namespaces/bench/configmaps', { metadata: { name }, data: { a: 'b' } });
  await Promise.all(seen);
  const elapsed = performance.now() - start;
  for (const s of streams) s.body.destroy();
  await agent.destroy();
  return elapsed;
}

/** FAN_OUT etcd watches on one key (one gRPC stream each), then one put until every watch has it. */
async function rawFanOut(raw: Raw, key: Buffer): Promise<number> {
  const streams = Array.from({ length: FAN_OUT }, () => raw.watch());
  const created = streams.map(
    (s) =>
      new Promise<void>((resolve) => {
        s.once('data', () => resolve());
      }),
  );
  for (const s of streams) s.write({ createRequest: { key } });
  await Promise.all(created);
  const seen = streams.map(
    (s) =>
      new Promise<void>((resolve) => {
        s.on('data', (r: { events: unknown[] }) => {
          if (r.events.length > 0) resolve();
        });
      }),
  );
  const start = performance.now();
  await raw.put({ key, value: Buffer.from(JSON.stringify({ metadata: { name: 'fanout' }, data: { a: 'b' } })) });
  await Promise.all(seen);
  const elapsed = performance.now() - start;
  for (const s of streams) {
    s.removeAllListeners('data');
    s.on('error', () => undefined);
    s.cancel();
  }
  return elapsed;
}
