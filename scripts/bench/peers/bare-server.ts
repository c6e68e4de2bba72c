/**
 * The peer of the server benchmarks, run as its own process: a bare node:http server that keeps
 * the JSON it is sent in a Map and serves it back, with no routing, validation, resource versions
 * or admission; paged lists and watch streams of the same shape as the API's. With `--durable
 * <file>` every create is also written to SQLite (better-sqlite3) with the reference server's
 * settings (exclusive lock, WAL, synchronous=FULL) and its group commit (the creates of one turn
 * of the event loop in one transaction), and answered after the commit: raw durable storage.
 * With `--work-us <n>` it spins for n microseconds before handling each request: the bench's
 * calibration of what a ratio allows (headroom.ts).
 *
 * Prints "listening on <url>" when ready, as `svckit serve` does.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';

const durableAt = process.argv.indexOf('--durable');
const db = durableAt > 0 ? openDurable(process.argv[durableAt + 1]!) : undefined;
const workAt = process.argv.indexOf('--work-us');
const workMs = workAt > 0 ? Number(process.argv[workAt + 1]) / 1000 : 0;
const objects = new Map<string, string>();
const watchers = new Set<ServerResponse>();
let pending: { key: string; text: string; res: ServerResponse }[] = [];

const server = createServer((req, res) => {
  if (workMs > 0) spin(workMs);
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const obj = JSON.parse(Buffer.concat(chunks).toString()) as { metadata: { name: string } };
      const text = JSON.stringify(obj);
      const key = `${path}/${obj.metadata.name}`;
      if (!db) return created(key, text, res);
      pending.push({ key, text, res });
      if (pending.length === 1) setImmediate(commit);
    });
    return;
  }
  if (url.includes('watch=1')) {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    watchers.add(res);
    res.on('close', () => watchers.delete(res));
    return;
  }
  const one = objects.get(path);
  if (one) return void res.writeHead(200, { 'content-type': 'application/json' }).end(one);
  list(path, new URLSearchParams(query < 0 ? '' : url.slice(query + 1)), res);
});

/** Busy for `ms` of wall time: work the process does for each request, as a server's own would be. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

function created(key: string, text: string, res: ServerResponse): void {
  if (!objects.has(key)) insertSorted(key);
  objects.set(key, text);
  for (const w of watchers) w.write(`{"type":"ADDED","object":${text}}\n`);
  res.writeHead(201, { 'content-type': 'application/json' }).end(text);
}

/** Paged as the API pages: items in key order after the continue token's key. */
function list(path: string, q: URLSearchParams, res: ServerResponse): void {
  const keys = sortedKeys.get(path) ?? [];
  const after = q.get('continue') ?? '';
  const from = after ? firstAfter(keys, after) : 0;
  const limit = Number(q.get('limit') || keys.length);
  const page = keys.slice(from, from + limit);
  const next = from + limit < keys.length ? page[page.length - 1]! : '';
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(`{"kind":"List","metadata":{"continue":"${next}"},"items":[${page.map((k) => objects.get(k)).join(',')}]}`);
}

/** Each collection's keys in order, kept sorted as they arrive (a binary search per insert). */
const sortedKeys = new Map<string, string[]>();

function insertSorted(key: string): void {
  const collection = key.slice(0, key.lastIndexOf('/'));
  let keys = sortedKeys.get(collection);
  if (!keys) sortedKeys.set(collection, (keys = []));
  keys.splice(firstAfter(keys, key), 0, key);
}

function firstAfter(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function openDurable(file: string) {
  const d = new Database(file);
  d.pragma('locking_mode = EXCLUSIVE');
  d.pragma('journal_mode = WAL');
  d.pragma('synchronous = FULL');
  d.exec(
    'CREATE TABLE IF NOT EXISTS kv (revision INTEGER PRIMARY KEY, key TEXT NOT NULL, value TEXT NOT NULL); CREATE INDEX IF NOT EXISTS kv_key ON kv (key, revision);',
  );
  const insert = d.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
  return { insertAll: d.transaction((batch: typeof pending) => batch.forEach((w) => insert.run(w.key, w.text))) };
}

function commit(): void {
  const batch = pending;
  pending = [];
  db!.insertAll(batch);
  for (const w of batch) created(w.key, w.text, w.res);
}

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
