/**
 * Faults under real processes and real etcd (fsync on): a replica killed with SIGKILL during
 * writes, etcd restarted under open watches, and the leader of a three-member etcd cluster killed
 * during writes. No acknowledged write may be lost; every watch resumes without a gap or ends with
 * 410 and the client relists. No timing assertions: bounded polling only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type EtcdProcess, startEtcd, startEtcdCluster } from '../runtime/store/etcd.testing.js';
import { type ServeProcess, type WatchStream, openWatch, sharedSigningKeyFlags, startServeProcess } from './checks/replicas.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

async function serve(store: string): Promise<ServeProcess> {
  const server = await startServeProcess(['--store', store, ...sharedSigningKeyFlags()]);
  cleanup.push(() => server.kill());
  return server;
}

async function send(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json().catch(() => undefined) };
}

/** Polls `condition` every 50 ms until it holds; fails naming `what` after `ms`. */
async function until(what: string, condition: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Creates ConfigMaps through `url()` from `workers` loops until stopped; `acked` holds the names
 * the server answered 201 for. A request that fails has an unknown outcome and is not counted.
 */
function writeLoad(url: () => string, namespace: string, workers = 8) {
  const acked = new Set<string>();
  /** Every status answered, by code: a fault may cost a 503, never a 500. */
  const statuses = new Map<number, number>();
  let stopped = false;
  let n = 0;
  const loops = Array.from({ length: workers }, async () => {
    while (!stopped) {
      const name = `w-${n++}`;
      try {
        const r = await send(url(), 'POST', `/api/v1/namespaces/${namespace}/configmaps`, { metadata: { name } });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (process.env.SVCKIT_SHOW_STATUSES && r.status !== 201) process.stdout.write(`${r.status} ${JSON.stringify(r.json)}\n`);
        if (r.status === 201) acked.add(name);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  });
  return {
    acked,
    statuses,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

async function names(url: string, namespace: string): Promise<Set<string>> {
  const r = await send(url, 'GET', `/api/v1/namespaces/${namespace}/configmaps`);
  if (r.status !== 200) throw new Error(`list: ${r.status}`);
  return new Set(r.json.items.map((o: { metadata: { name: string } }) => o.metadata.name));
}

async function createNamespace(url: string, name: string): Promise<void> {
  await until(`namespace ${name}`, async () =>
    [201, 409].includes((await send(url, 'POST', '/api/v1/namespaces', { metadata: { name } })).status),
  );
}

describe('replicas on etcd under faults', () => {
  it('lose no acknowledged write when one replica is killed with SIGKILL during writes', async () => {
    const etcd = await startEtcd();
    cleanup.push(() => etcd.dispose());
    const store = `etcd://${etcd.endpoint}?prefix=/kill`;
    const a = await serve(store);
    const b = await serve(store);
    await createNamespace(a.url, 'k');
    const load = writeLoad(() => a.url, 'k');
    await until('40 acknowledged writes', () => load.acked.size >= 40);
    await a.kill();
    await load.stop();
    const stored = await names(b.url, 'k');
    const lost = [...load.acked].filter((name) => !stored.has(name));
    expect(lost).toEqual([]);
    expect([...load.statuses.keys()]).toEqual([201]);
    // The survivor goes on serving writes.
    expect((await send(b.url, 'POST', '/api/v1/namespaces/k/configmaps', { metadata: { name: 'after' } })).status).toBe(201);
  });

  it('resume every open watch without a gap, or end it with 410 and relist, when etcd restarts', async () => {
    const etcd = await startEtcd();
    cleanup.push(() => etcd.dispose());
    let restarted: EtcdProcess | undefined;
    cleanup.push(async () => restarted?.stop());
    const store = `etcd://${etcd.endpoint}?prefix=/restart`;
    const a = await serve(store);
    const b = await serve(store);
    await createNamespace(a.url, 'w');
    const start = (await send(a.url, 'GET', '/api/v1/namespaces/w/configmaps')).json.metadata.resourceVersion as string;
    const watches: WatchStream[] = [];
    for (let i = 0; i < 5; i++) watches.push(await openWatch(`${a.url}/api/v1/namespaces/w/configmaps?watch=1&resourceVersion=${start}`));

    const expected: string[] = [];
    const create = async (name: string) => {
      // A create whose answer was lost may have committed: 409 AlreadyExists then means it did.
      await until(`create ${name}`, async () =>
        [201, 409].includes(
          (await send(b.url, 'POST', '/api/v1/namespaces/w/configmaps', { metadata: { name } }).catch(() => ({ status: 0 }))).status,
        ),
      );
      expected.push(name);
    };
    for (let i = 0; i < 10; i++) await create(`before-${i}`);
    await etcd.stop();
    restarted = await startEtcd({ dataDir: etcd.dataDir, clientPort: etcd.clientPort, peerPort: etcd.peerPort });
    for (let i = 0; i < 10; i++) await create(`after-${i}`);

    for (const [i, watch] of watches.entries()) {
      const seen: string[] = [];
      let last = Number(start);
      while (seen.length < expected.length) {
        const line = await watch.next(60_000);
        if (line === 'end' || line === 'timeout')
          throw new Error(`watch ${i} gave ${seen.length} of ${expected.length} events, then ${line}`);
        if (line.type === 'ERROR') {
          // The history it needed is gone: the client relists, and the list holds every write.
          expect(line.object.code).toBe(410);
          const listed = await names(a.url, 'w');
          expect(expected.filter((name) => !listed.has(name))).toEqual([]);
          break;
        }
        expect(line.type).toBe('ADDED');
        const rv = Number(line.object.metadata!.resourceVersion);
        expect(rv).toBeGreaterThan(last);
        last = rv;
        seen.push(line.object.metadata!.name!);
      }
      if (seen.length === expected.length) expect(seen).toEqual(expected);
      watch.close();
    }
  });

  it('lose no acknowledged write when the leader of a three-member etcd cluster is killed during writes', async () => {
    const members = await startEtcdCluster(3);
    cleanup.push(async () => {
      await Promise.all(members.map((m) => m.dispose()));
    });
    const a = await serve(`etcd://${members.map((m) => m.endpoint).join(',')}?prefix=/leader`);
    await createNamespace(a.url, 'l');
    const load = writeLoad(() => a.url, 'l');
    await until('30 acknowledged writes', () => load.acked.size >= 30);
    const leader = await findLeader(members);
    await leader.kill();
    const atKill = load.acked.size;
    // The server carries on through the election, on the members left.
    await until('30 more acknowledged writes after the leader died', () => load.acked.size >= atKill + 30);
    await load.stop();
    const stored = await names(a.url, 'l');
    expect([...load.acked].filter((name) => !stored.has(name))).toEqual([]);
    if (process.env.SVCKIT_SHOW_STATUSES) process.stdout.write(`leader kill: statuses ${JSON.stringify([...load.statuses])}\n`);
    expect([...load.statuses.keys()].filter((status) => status !== 201 && status !== 503)).toEqual([]);
  });
});

/** The member that is the raft leader, as etcd's maintenance status (its JSON gateway) reports it. */
async function findLeader(members: EtcdProcess[]): Promise<EtcdProcess> {
  for (const m of members) {
    const status = (await (await fetch(`http://${m.endpoint}/v3/maintenance/status`, { method: 'POST', body: '{}' })).json()) as {
      header: { member_id: string };
      leader: string;
    };
    if (status.header.member_id === status.leader) return m;
  }
  throw new Error('no member says it is the leader');
}
