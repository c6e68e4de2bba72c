/**
 * One-off profiling target (issue 27, reads): a server in its own process, driven by drive.ts over
 * IPC. `ours-memory`, `ours-sqlite` start the reference server; `bare` serves given bytes from a Map
 * and fans watch events out, as scripts/bench/server.ts's peer.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceServer } from '../../reference/index.js';

const mode = process.argv[2] ?? 'ours-memory';
const send = (m: unknown) => process.send!(m);

async function main(): Promise<void> {
  if (mode === 'bare') {
    const objects = new Map<string, string>();
    const watchers = new Set<ServerResponse>();
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (req.method === 'POST') {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          const obj = JSON.parse(text) as { metadata: { name: string } };
          const stored = JSON.stringify(obj);
          objects.set(`${path}/${obj.metadata.name}`, stored);
          for (const w of watchers) w.write(`{"type":"ADDED","object":${stored}}\n`);
          res.writeHead(201, { 'content-type': 'application/json' }).end(stored);
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
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.on('message', (m: { op: string }) => {
      if (m.op === 'watchers') send({ op: 'watchers', n: watchers.size });
    });
    send({ op: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  } else {
    const store = mode === 'ours-sqlite' ? `sqlite:${join(mkdtempSync(join(tmpdir(), 'svckit-prof-')), 'p.db')}` : 'memory';
    const ours = await startReferenceServer({ store });
    send({ op: 'ready', url: ours.url });
  }
  process.on('message', (m: { op: string }) => {
    if (m.op === 'cpu') send({ op: 'cpu', usage: process.cpuUsage() });
    if (m.op === 'stop') process.exit(0);
  });
}
void main();
