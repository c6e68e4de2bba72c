/**
 * Real processes for the replica checks and tests: `svckit serve` started as a child process (so a
 * kill -9 is a real crash), and a small round-robin HTTP proxy that alternates a client's requests
 * between replicas (for the conformance kit only: the replicas themselves talk to no proxy).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateSigningKey, signingKeyPem } from '../../runtime/auth/index.js';
import { cliArgs } from '../commands/cli.testing.js';
import { compiledCliArgs } from '../commands/compiled.testing.js';

let signingKeyFile: string | undefined;

/**
 * `--service-account-signing-key-file` of one key for every replica this process starts: as
 * upstream, replicas on one etcd are given the same key (a server generates none it could not share).
 */
export function sharedSigningKeyFlags(): string[] {
  if (signingKeyFile === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-replica-key-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    signingKeyFile = join(dir, 'sa.key');
    writeFileSync(signingKeyFile, signingKeyPem(generateSigningKey()), { mode: 0o600 });
  }
  return ['--service-account-signing-key-file', signingKeyFile];
}

export interface ServeProcess {
  readonly url: string;
  readonly process: ChildProcess;
  /** What the process wrote to stderr so far. */
  stderr(): string;
  /** SIGKILL (a crash) and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (a clean stop) and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `svckit serve --port 0 <args>` and resolves once it prints its URL: from the sources, or
 * with `compiled` the bin over dist/ as users run it (built first when stale).
 */
export async function startServeProcess(args: readonly string[], options: { compiled?: boolean } = {}): Promise<ServeProcess> {
  const argv = (options.compiled ? compiledCliArgs : cliArgs)('serve', '--port', '0', ...args);
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`svckit serve ${args.join(' ')} exited with ${code}: ${stderr}`)));
  });
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { url, process: child, stderr: () => stderr, kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}

export interface RoundRobinProxy {
  readonly url: string;
  /** How many requests went to each target. */
  readonly counts: number[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy that sends each request to the next of `targets` in turn, streaming both ways (a
 * watch stays on the replica it reached). Hop-by-hop headers are left to node's HTTP stack.
 */
export async function startRoundRobinProxy(targets: readonly string[]): Promise<RoundRobinProxy> {
  const counts = targets.map(() => 0);
  let next = 0;
  const server: Server = createServer({ maxHeaderSize: 1 << 20 }, (req: IncomingMessage, res: ServerResponse) => {
    const index = next++ % targets.length;
    counts[index]!++;
    const target = new URL(targets[index]!);
    const headers = { ...req.headers, host: target.host };
    // The request target goes on as it came: a URL object would resolve `.` and `..` segments.
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: req.url ?? '/', method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`round-robin proxy: ${targets[index]}: ${error.message}`);
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  // As the servers behind it: idle connections live 90 s, so the kit never reuses one being closed.
  server.keepAliveTimeout = 90_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One line of a watch stream. */
export interface WatchLine {
  type: string;
  object: {
    metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
    code?: number;
    [k: string]: unknown;
  };
}

export interface WatchStream {
  /** The next event; 'end' when the stream ended, 'timeout' after `timeoutMs` without one. */
  next(timeoutMs: number): Promise<WatchLine | 'end' | 'timeout'>;
  close(): void;
}

/** Opens `url` (a `?watch=1` request) and reads its JSON lines. Throws unless the answer is 200. */
export async function openWatch(url: string): Promise<WatchStream> {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal });
  if (res.status !== 200) throw new Error(`watch ${url}: ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const lines: WatchLine[] = [];
  let text = '';
  let ended = false;
  let pending: Promise<void> | undefined;
  const pull = (): Promise<void> =>
    (pending ??= reader
      .read()
      .then(({ done, value }) => {
        if (done) ended = true;
        else text += decoder.decode(value, { stream: true });
        for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n')) {
          const line = text.slice(0, i).trim();
          text = text.slice(i + 1);
          if (line) lines.push(JSON.parse(line) as WatchLine);
        }
      })
      .catch(() => {
        ended = true;
      })
      .finally(() => {
        pending = undefined;
      }));
  return {
    async next(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (lines.length === 0) {
        if (ended) return 'end';
        const left = deadline - Date.now();
        if (left <= 0) return 'timeout';
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([pull(), new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
        clearTimeout(timer);
      }
      return lines.shift()!;
    },
    close: () => controller.abort(),
  };
}
