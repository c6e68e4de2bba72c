/**
 * Two `svckit serve` processes on one real etcd, with no proxy between them, serve one consistent
 * API: reads on one see writes made through the other, a watch on one sees every write made
 * through either in revision order without gaps, continue tokens travel between them, and each
 * keeps one etcd watch per resource however many clients watch it.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EtcdProcess, startEtcd } from '../runtime/store/etcd.testing.js';
import { type ServeProcess, type WatchLine, openWatch, sharedSigningKeyFlags, startServeProcess } from './checks/replicas.js';
import { cliArgs } from './commands/cli.testing.js';

let etcd: EtcdProcess;
let a: ServeProcess;
let b: ServeProcess;

beforeAll(async () => {
  etcd = await startEtcd({ unsafeNoFsync: true });
  const store = `etcd://${etcd.endpoint}?prefix=/replicas`;
  // One after the other: the first creates the shared continue-token secret, the second reads it.
  a = await startServeProcess(['--store', store, ...sharedSigningKeyFlags()]);
  b = await startServeProcess(['--store', store, ...sharedSigningKeyFlags()]);
  for (const ns of ['r1', 'r2']) expect((await send(a, 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await etcd?.dispose();
});

async function send(to: ServeProcess, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${to.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

const configMap = (name: string, value: string) => ({ metadata: { name }, data: { v: value } });

describe('two replicas on one etcd', () => {
  it("read their own and each other's writes at once (consistent reads)", async () => {
    expect((await send(a, 'POST', '/api/v1/namespaces/r1/configmaps', configMap('c', '0'))).status).toBe(201);
    for (let i = 1; i <= 20; i++) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
      const current = await send(writer, 'GET', '/api/v1/namespaces/r1/configmaps/c');
      const written = await send(writer, 'PUT', '/api/v1/namespaces/r1/configmaps/c', { ...current.json, data: { v: String(i) } });
      expect(written.status).toBe(200);
      const read = await send(reader, 'GET', '/api/v1/namespaces/r1/configmaps/c');
      expect(read.json.data.v).toBe(String(i));
      expect(read.json.metadata.resourceVersion).toBe(written.json.metadata.resourceVersion);
      // An update with the old version is a conflict on the other replica too.
      expect((await send(reader, 'PUT', '/api/v1/namespaces/r1/configmaps/c', current.json)).status).toBe(409);
    }
  });

  it('deliver every write made through either replica to a watch on one, in revision order, without gaps', async () => {
    const start = (await send(a, 'GET', '/api/v1/namespaces/r2/configmaps')).json.metadata.resourceVersion as string;
    const watch = await openWatch(`${a.url}/api/v1/namespaces/r2/configmaps?watch=1&resourceVersion=${start}`);
    const written: { type: string; name: string; rv: string }[] = [];
    // Writes through both replicas at once, several in flight: creates, updates and deletes.
    await Promise.all(
      [a, b].map(async (to, side) => {
        for (let i = 0; i < 15; i++) {
          const name = `w${side}-${i}`;
          const created = await send(to, 'POST', '/api/v1/namespaces/r2/configmaps', configMap(name, '1'));
          expect(created.status).toBe(201);
          written.push({ type: 'ADDED', name, rv: created.json.metadata.resourceVersion });
          if (i % 3 === 1) {
            const updated = await send(to === a ? b : a, 'PUT', `/api/v1/namespaces/r2/configmaps/${name}`, {
              ...created.json,
              data: { v: '2' },
            });
            expect(updated.status).toBe(200);
            written.push({ type: 'MODIFIED', name, rv: updated.json.metadata.resourceVersion });
          }
          if (i % 5 === 2) {
            const deleted = await send(to, 'DELETE', `/api/v1/namespaces/r2/configmaps/${name}`);
            expect(deleted.status).toBe(200);
            // The answer carries the object as it was; the delete's own revision is the event's.
            written.push({ type: 'DELETED', name, rv: '' });
          }
        }
      }),
    );
    const seen: { type: string; name: string; rv: string }[] = [];
    while (seen.length < written.length) {
      const line = await watch.next(20_000);
      if (line === 'end' || line === 'timeout') throw new Error(`watch gave ${seen.length} of ${written.length} events, then ${line}`);
      seen.push({ type: line.type, name: line.object.metadata!.name!, rv: line.object.metadata!.resourceVersion! });
    }
    expect(await watch.next(300)).toBe('timeout'); // and nothing more
    watch.close();
    // Every write once, each with the revision its writer was told, in revision order.
    const byKey = (x: { type: string; name: string }) => `${x.type} ${x.name}`;
    expect(seen.map(byKey).sort()).toEqual(written.map(byKey).sort());
    for (const w of written) if (w.rv !== '') expect(seen).toContainEqual(w);
    const revisions = seen.map((e) => Number(e.rv));
    expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
    expect(new Set(revisions).size).toBe(revisions.length);
    // No other writes happened meanwhile, so the revisions after the start are exactly these.
    expect(revisions[0]).toBe(Number(start) + 1);
    expect(revisions.at(-1)).toBe(Number(start) + written.length);
  });

  it("accept each other's continue tokens", async () => {
    for (let i = 0; i < 10; i++) {
      expect((await send(i % 2 ? a : b, 'POST', '/api/v1/namespaces/r1/configmaps', configMap(`page-${i}`, '1'))).status).toBe(201);
    }
    const names: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const from = pages % 2 === 0 ? a : b;
      const page = await send(from, 'GET', `/api/v1/namespaces/r1/configmaps?limit=3&labelSelector=&continue=${encodeURIComponent(token)}`);
      expect(page.status, JSON.stringify(page.json)).toBe(200);
      names.push(...page.json.items.map((o: { metadata: { name: string } }) => o.metadata.name));
      token = page.json.metadata.continue ?? '';
      pages++;
    } while (token !== '');
    expect(pages).toBeGreaterThan(3);
    const all = (await send(b, 'GET', '/api/v1/namespaces/r1/configmaps')).json.items.map(
      (o: { metadata: { name: string } }) => o.metadata.name,
    );
    expect(names).toEqual(all);
  });

  it('keep one etcd watch per resource, whatever the number of client watches (the watch cache)', async () => {
    const before = await etcdWatchers();
    const namespaces = ['r1', 'r2'];
    const watches = await Promise.all(
      Array.from({ length: 40 }, (_, i) => openWatch(`${b.url}/api/v1/namespaces/${namespaces[i % 2]}/secrets?watch=1`)),
    );
    const created = await send(a, 'POST', '/api/v1/namespaces/r1/secrets', { metadata: { name: 's1' } });
    expect(created.status).toBe(201);
    // Every watch on r1 gets the event: all forty are open and fed.
    const firsts = await Promise.all(watches.map((w, i) => (i % 2 === 0 ? w.next(20_000) : Promise.resolve(undefined))));
    for (const line of firsts) if (line !== undefined) expect((line as WatchLine).object.metadata?.name).toBe('s1');
    const during = await etcdWatchers();
    for (const w of watches) w.close();
    // One for secrets (the cache's upstream); not forty.
    expect(during - before).toBe(1);
  });
});

/** etcd's own count of its watchers (its Prometheus gauge). */
async function etcdWatchers(): Promise<number> {
  const text = await (await fetch(`http://${etcd.endpoint}/metrics`)).text();
  const m = /^etcd_debugging_mvcc_watcher_total (\d+)/m.exec(text);
  if (!m) throw new Error('etcd /metrics has no etcd_debugging_mvcc_watcher_total');
  return Number(m[1]);
}

describe('the continue-token key kept in the store', () => {
  it('is the same for replicas started at the same moment on a fresh store (one creates it, the other reads it)', async () => {
    const store = `etcd://${etcd.endpoint}?prefix=/race`;
    const [c, d] = await Promise.all([
      startServeProcess(['--store', store, ...sharedSigningKeyFlags()]),
      startServeProcess(['--store', store, ...sharedSigningKeyFlags()]),
    ]);
    try {
      // Both created `default` at start (one of them got 409); make a third to page over.
      for (const name of ['x1', 'x2']) expect((await send(c, 'POST', '/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
      for (const [from, to] of [
        [c, d],
        [d, c],
      ] as const) {
        const first = await send(from, 'GET', '/api/v1/namespaces?limit=1');
        const next = await send(to, 'GET', `/api/v1/namespaces?limit=1&continue=${encodeURIComponent(first.json.metadata.continue)}`);
        expect(next.status, JSON.stringify(next.json)).toBe(200);
      }
    } finally {
      await Promise.all([c.stop(), d.stop()]);
    }
  });
});

describe('--continue-token-key-file', () => {
  it('signs continue tokens with the given key, which every replica given it accepts and others refuse', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-key-'));
    const keyFile = join(dir, 'key');
    writeFileSync(keyFile, `${randomBytes(48).toString('base64')}\n`);
    const store = `etcd://${etcd.endpoint}?prefix=/keyed`;
    const c = await startServeProcess(['--store', store, ...sharedSigningKeyFlags(), '--continue-token-key-file', keyFile]);
    const d = await startServeProcess(['--store', store, ...sharedSigningKeyFlags(), '--continue-token-key-file', keyFile]);
    const other = await startServeProcess(['--store', store, ...sharedSigningKeyFlags()]); // the key kept in the store instead
    try {
      for (let i = 0; i < 4; i++) expect((await send(c, 'POST', '/api/v1/namespaces', { metadata: { name: `k${i}` } })).status).toBe(201);
      const first = await send(c, 'GET', '/api/v1/namespaces?limit=2');
      const token = encodeURIComponent(first.json.metadata.continue);
      const next = await send(d, 'GET', `/api/v1/namespaces?limit=2&continue=${token}`);
      expect(next.status).toBe(200);
      expect(next.json.items[0].metadata.name).not.toBe(first.json.items[0].metadata.name);
      const refused = await send(other, 'GET', `/api/v1/namespaces?limit=2&continue=${token}`);
      expect(refused.status).toBe(400);
    } finally {
      await Promise.all([c.stop(), d.stop(), other.stop()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a key shorter than 32 bytes with exit 2, naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-key-'));
    const keyFile = join(dir, 'short');
    writeFileSync(keyFile, 'too short\n');
    const r = spawnSync(process.execPath, cliArgs('serve', '--store', 'memory', '--port', '0', '--continue-token-key-file', keyFile), {
      encoding: 'utf8',
      timeout: 60_000,
    });
    rmSync(dir, { recursive: true, force: true });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--continue-token-key-file ${keyFile}: the key has 9 bytes; give at least 32`);
    expect(r.stderr).not.toContain('    at ');
  });
});
