import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eachEvent, firstEvent, withoutHeader } from './edits.js';
import { type MutationProxy, startMutationProxy } from './proxy.js';
import type { Mutation } from './types.js';

/** A small target server: fixed answers, an echo, and a watch stream the test releases event by event. */
interface Target {
  url: string;
  server: Server;
  /** Sends the next held watch event. */
  release(): void;
  /** How many watch requests the target saw closed by the other side. */
  closedWatches(): number;
}

const BINARY = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const WATCH_EVENTS = [
  { type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '1' } } },
  { type: 'MODIFIED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '2' } } },
  { type: 'DELETED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '3' } } },
];

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

async function startTarget(): Promise<Target> {
  const waiting: (() => void)[] = [];
  let releases = 0;
  let closed = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const url = req.url ?? '';
      if (url.startsWith('/plain') || url.startsWith('/other')) {
        res.writeHead(200, [
          ['Content-Type', 'application/json'],
          ['Warning', '299 - "first"'],
          ['Warning', '299 - "second"'],
          ['X-Thing', 'kept'],
        ]);
        res.end(JSON.stringify({ kind: 'ConfigMap', metadata: { name: 'x' } }));
      } else if (url.startsWith('/binary')) {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BINARY.length) });
        res.end(BINARY);
      } else if (url.startsWith('/echo')) {
        const body = await readBody(req);
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            method: req.method,
            url,
            contentType: req.headers['content-type'],
            custom: req.headers['x-custom'],
            body: body.toString('base64'),
          }),
        );
      } else if (url.startsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound' }));
      } else if (url.startsWith('/watch')) {
        res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
        res.flushHeaders();
        res.on('close', () => {
          if (!res.writableFinished) closed++;
        });
        for (const e of WATCH_EVENTS) {
          await new Promise<void>((resolve) => {
            if (releases === 0) return void waiting.push(resolve);
            releases--;
            resolve();
          });
          if (res.destroyed) return;
          res.write(`${JSON.stringify(e)}\n`);
        }
        if (!url.includes('hold')) res.end();
      } else {
        res.writeHead(500);
        res.end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    release: () => {
      const next = waiting.shift();
      if (next) next();
      else releases++;
    },
    closedWatches: () => closed,
  };
}

interface Answer {
  status: number;
  /** name/value pairs as received, repeated headers kept apart. */
  raw: [string, string][];
  body: Buffer;
}

function send(base: string, method: string, path: string, body?: Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) raw.push([(res.rawHeaders[i] ?? '').toLowerCase(), res.rawHeaders[i + 1] ?? '']);
        resolve({ status: res.statusCode ?? 0, raw, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function values(a: Answer, name: string): string[] {
  return a.raw.filter(([n]) => n === name).map(([, v]) => v);
}

/** Opens a watch through the proxy and collects the lines it receives. */
function openWatch(
  base: string,
  path: string,
): Promise<{
  headers: Record<string, string | string[] | undefined>;
  lines: string[];
  next(): Promise<void>;
  ended: Promise<void>;
  close(): void;
}> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, (res) => {
      const lines: string[] = [];
      const waiters: (() => void)[] = [];
      let buffer = '';
      res.on('data', (c: Buffer) => {
        buffer += c.toString('utf8');
        const parts = buffer.split('\n');
        buffer = parts.pop() ?? '';
        for (const p of parts) if (p.trim()) lines.push(p);
        for (const w of waiters.splice(0)) w();
      });
      const ended = new Promise<void>((done) => res.on('end', () => done()));
      resolve({
        headers: res.headers,
        lines,
        next: () => new Promise<void>((done) => waiters.push(done)),
        ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('mutation proxy', () => {
  let target: Target;
  let proxy: MutationProxy | undefined;

  beforeAll(async () => {
    target = await startTarget();
  });
  afterAll(async () => {
    target.server.closeAllConnections();
    await new Promise<void>((resolve) => target.server.close(() => resolve()));
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  describe('without a mutation', () => {
    it('forwards status, every header (repeated ones apart) and the body', async () => {
      proxy = await startMutationProxy({ target: target.url });
      const direct = await send(target.url, 'GET', '/plain');
      const via = await send(proxy.url, 'GET', '/plain');
      expect(via.status).toBe(200);
      expect(values(via, 'warning')).toEqual(['299 - "first"', '299 - "second"']);
      expect(values(via, 'x-thing')).toEqual(['kept']);
      expect(values(via, 'content-type')).toEqual(['application/json']);
      expect(via.body.equals(direct.body)).toBe(true);
      expect((await send(proxy.url, 'GET', '/missing')).status).toBe(404);
      expect(proxy.applied).toBe(0);
    });

    it('forwards binary bodies byte for byte', async () => {
      proxy = await startMutationProxy({ target: target.url });
      const via = await send(proxy.url, 'GET', '/binary');
      expect(via.body.equals(BINARY)).toBe(true);
      expect(values(via, 'content-length')).toEqual(['256']);
    });

    it('forwards method, query (a bare flag stays bare), request headers and body as sent', async () => {
      proxy = await startMutationProxy({ target: target.url });
      const body = Buffer.from([0, 1, 2, 250, 251]);
      const via = await send(proxy.url, 'POST', '/echo?dryRun&labelSelector=env%20in%20(a%2Cb)', body, {
        'content-type': 'application/x-test',
        'x-custom': 'yes',
      });
      expect(via.status).toBe(201);
      expect(JSON.parse(via.body.toString('utf8'))).toEqual({
        method: 'POST',
        url: '/echo?dryRun&labelSelector=env%20in%20(a%2Cb)',
        contentType: 'application/x-test',
        custom: 'yes',
        body: body.toString('base64'),
      });
    });

    it('passes a chunked watch stream on event by event, as the target sends them', async () => {
      proxy = await startMutationProxy({ target: target.url });
      const watch = await openWatch(proxy.url, '/watch?watch=1');
      expect(watch.headers['transfer-encoding']).toBe('chunked');
      for (let i = 1; i <= WATCH_EVENTS.length; i++) {
        const arrived = watch.next();
        target.release();
        await arrived;
        // The target holds the next event back, so this one was not buffered by the proxy.
        expect(watch.lines.map((l) => JSON.parse(l) as unknown)).toEqual(WATCH_EVENTS.slice(0, i));
      }
      await watch.ended;
    });

    it('closes the exchange with the target when the client leaves a watch', async () => {
      proxy = await startMutationProxy({ target: target.url });
      const before = target.closedWatches();
      const watch = await openWatch(proxy.url, '/watch?watch=1&hold=1');
      const arrived = watch.next();
      target.release();
      await arrived;
      watch.close();
      await expect.poll(() => target.closedWatches(), { timeout: 2000 }).toBe(before + 1);
      target.release();
      target.release();
    });
  });

  describe('with a mutation', () => {
    const dropWarning: Mutation = {
      id: 'drop-warning',
      description: 'drops the Warning header',
      rule: 'core-protocol.md#Headers and media types: Warning',
      caughtBy: ['x'],
      match: { method: 'GET', path: /^\/plain/ },
      response: (r) => withoutHeader(r, 'warning'),
    };

    it('changes the matching exchanges only', async () => {
      proxy = await startMutationProxy({ target: target.url, mutation: dropWarning });
      const matched = await send(proxy.url, 'GET', '/plain');
      expect(values(matched, 'warning')).toEqual([]);
      expect(values(matched, 'x-thing')).toEqual(['kept']);
      expect(JSON.parse(matched.body.toString('utf8'))).toEqual({ kind: 'ConfigMap', metadata: { name: 'x' } });
      expect(values(await send(proxy.url, 'GET', '/other'), 'warning')).toHaveLength(2);
      expect(values(await send(proxy.url, 'POST', '/plain'), 'warning')).toHaveLength(2);
      expect(proxy.applied).toBe(1);
    });

    it('changes the request before forwarding it, leaving other requests as sent', async () => {
      const stripDryRun: Mutation = {
        ...dropWarning,
        id: 'strip-dry-run',
        match: { method: 'POST', query: (q) => q.get('dryRun') === 'All' },
        response: undefined,
        request: (req) => {
          req.query.delete('dryRun');
          return true;
        },
      };
      proxy = await startMutationProxy({ target: target.url, mutation: stripDryRun });
      const stripped = JSON.parse((await send(proxy.url, 'POST', '/echo?dryRun=All&x=1', Buffer.from('{}'))).body.toString('utf8')) as {
        url: string;
        body: string;
      };
      expect(stripped.url).toBe('/echo?x=1');
      expect(Buffer.from(stripped.body, 'base64').toString('utf8')).toBe('{}');
      const untouched = JSON.parse((await send(proxy.url, 'POST', '/echo?dryRun=None')).body.toString('utf8')) as { url: string };
      expect(untouched.url).toBe('/echo?dryRun=None');
      expect(proxy.applied).toBe(1);
    });

    it('rewrites the events of a matching watch stream and leaves other streams alone', async () => {
      const dropModified: Mutation = {
        ...dropWarning,
        id: 'drop-modified',
        match: { watch: true, query: (q) => q.has('labelSelector') },
        response: undefined,
        events: firstEvent(
          (e) => e.type === 'MODIFIED',
          () => [],
        ),
      };
      proxy = await startMutationProxy({ target: target.url, mutation: dropModified });
      const types = async (path: string): Promise<string[]> => {
        const watch = await openWatch(proxy?.url ?? '', path);
        for (let i = 0; i < WATCH_EVENTS.length; i++) target.release();
        await watch.ended;
        return watch.lines.map((l) => (JSON.parse(l) as { type: string }).type);
      };
      expect(await types('/watch?watch=1')).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(await types('/watch?watch=1&labelSelector=a%3Db')).toEqual(['ADDED', 'DELETED']);
      expect(proxy.applied).toBe(1);
    });

    it('renames event types in a stream', async () => {
      const deletedAsModified: Mutation = {
        ...dropWarning,
        id: 'deleted-as-modified',
        match: { watch: true },
        response: undefined,
        events: eachEvent((e) => (e.type === 'DELETED' ? [{ ...e, type: 'MODIFIED' }] : undefined)),
      };
      proxy = await startMutationProxy({ target: target.url, mutation: deletedAsModified });
      const watch = await openWatch(proxy.url, '/watch?watch=1');
      for (let i = 0; i < WATCH_EVENTS.length; i++) target.release();
      await watch.ended;
      expect(watch.lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED']);
    });
  });
});
