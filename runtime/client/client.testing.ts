/** Helpers for the client's tests: the reference server, and HTTP fronts placed before it. */
import { type IncomingMessage, type ServerResponse, createServer, request } from 'node:http';
import { type ServerOptions, createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { type ReferenceServerOptions, type RunningServer, startReferenceServer } from '../../reference/index.js';

export type { RunningServer };

/**
 * A reference server for one test file (started before its tests, stopped after them) and a way to
 * put fronts before it, each closed after the file.
 */
export function serverWithFronts(): {
  server: () => RunningServer;
  frontOf: (intercept?: Parameters<typeof front>[1], tls?: ServerOptions) => Promise<Front>;
} {
  let server: RunningServer | undefined;
  const fronts: Front[] = [];
  beforeAll(async () => {
    server = await referenceServer();
  });
  afterAll(async () => {
    for (const f of fronts) await f.close();
    await server?.close();
  });
  const running = () => server ?? expect.fail('the reference server is not started yet');
  return {
    server: running,
    frontOf: async (intercept, tls) => {
      const f = await front(running().url, intercept, tls);
      fronts.push(f);
      return f;
    },
  };
}

/** The reference server on a free port, in memory unless a store is named. */
export function referenceServer(options: ReferenceServerOptions = {}): Promise<RunningServer> {
  return startReferenceServer({ store: 'memory', port: 0, ...options });
}

export interface Front {
  url: string;
  /** Requests seen, in order: method, path with query, and headers. */
  seen: { method: string; url: string; headers: IncomingMessage['headers'] }[];
  /** Cuts every open connection (watches included), as a network failure would. */
  drop(): void;
  /** While paused every request is answered 503, as an unavailable server. */
  paused: boolean;
  close(): Promise<void>;
}

/**
 * An HTTP server that forwards to `target` (streaming, so watches work) unless `intercept` answers
 * first: an authenticating front, a throttling one. The protocol itself is the reference server's.
 */
export async function front(
  target: string,
  intercept?: (req: IncomingMessage, res: ServerResponse) => boolean,
  tls?: ServerOptions,
): Promise<Front> {
  const seen: Front['seen'] = [];
  const state = { paused: false };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    if (state.paused) return void replyStatus(res, 503, 'ServiceUnavailable', 'paused by the test');
    if (intercept?.(req, res)) return;
    const t = new URL(target);
    const upstream = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  };
  const server = tls ? createTlsServer(tls, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    seen,
    drop: () => server.closeAllConnections(),
    get paused() {
      return state.paused;
    },
    set paused(value: boolean) {
      state.paused = value;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers a Status error the way the real system does. */
export function replyStatus(
  res: ServerResponse,
  code: number,
  reason: string,
  message: string,
  headers: Record<string, string> = {},
): true {
  res.writeHead(code, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
  return true;
}

/** Polls until `check` holds (or throws after `ms`). */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
