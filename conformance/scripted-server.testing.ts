/**
 * The kit's own tests: a scripted node:http server that answers fixed responses and records what it
 * was asked. It tests the runner's mechanics (namespaces, captures, watches, cleanup), not a product.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from './types.js';
import { isObject } from './json.js';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Scripted {
  status: number;
  body?: Json | string;
  headers?: Record<string, string | string[]>;
  /** Watch events written one JSON document per line; the stream then stays open. */
  events?: Json[];
  /** Holds the status, headers and events back until this settles (a server that answers a watch late). */
  holdUntil?: Promise<void>;
}

export type Script = (req: Recorded) => Scripted | undefined;

export interface ScriptedServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

/**
 * Answers namespaces and discovery like a minimal server (POST creates, DELETE removes, /apis and
 * /api/v1 list configmaps), and everything else from `script`; unscripted requests are 404.
 */
export async function startScriptedServer(script: Script): Promise<ScriptedServer> {
  const requests: Recorded[] = [];
  const namespaces = new Set<string>();
  const open = new Set<ServerResponse>();
  const handle = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const rec: Recorded = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body };
    requests.push(rec);
    const answer: Scripted = script(rec) ??
      builtIn(rec, namespaces) ?? {
        status: 404,
        body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not scripted' },
      };
    const headers: Record<string, string | string[]> = { 'content-type': 'application/json', ...answer.headers };
    if (answer.events) {
      const events = answer.events;
      open.add(res);
      res.on('close', () => open.delete(res));
      void (answer.holdUntil ?? Promise.resolve()).then(() => {
        res.writeHead(answer.status, headers);
        for (const e of events) res.write(`${JSON.stringify(e)}\n`);
      });
      return;
    }
    res.writeHead(answer.status, headers);
    res.end(answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function builtIn(req: Recorded, namespaces: Set<string>): Scripted | undefined {
  if (req.path === '/apis' && req.method === 'GET') return { status: 200, body: { kind: 'APIGroupList', groups: [] } };
  if (req.path === '/api/v1' && req.method === 'GET') {
    return {
      status: 200,
      body: {
        kind: 'APIResourceList',
        groupVersion: 'v1',
        resources: [
          { name: 'configmaps', namespaced: true, kind: 'ConfigMap' },
          { name: 'namespaces', namespaced: false, kind: 'Namespace' },
        ],
      },
    };
  }
  if (req.path === '/api/v1/namespaces' && req.method === 'POST') {
    const body = JSON.parse(req.body) as Json;
    const meta = isObject(body) && isObject(body.metadata) ? body.metadata : {};
    const name = typeof meta.name === 'string' ? meta.name : '';
    namespaces.add(name);
    return { status: 201, body: { kind: 'Namespace', apiVersion: 'v1', metadata: { name, uid: `uid-${name}`, resourceVersion: '1' } } };
  }
  const ns = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(req.path)?.[1];
  if (ns && req.method === 'DELETE') {
    const existed = namespaces.delete(ns);
    return existed
      ? { status: 200, body: { kind: 'Namespace', metadata: { name: ns } } }
      : { status: 404, body: { kind: 'Status', code: 404 } };
  }
  if (ns && req.method === 'GET')
    return namespaces.has(ns) ? { status: 200, body: { kind: 'Namespace', metadata: { name: ns } } } : undefined;
  return undefined;
}
