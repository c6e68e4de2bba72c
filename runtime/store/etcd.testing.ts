/**
 * Runs a real single-member etcd for tests: free loopback ports for its client and peer URLs, a
 * temporary data directory, a wait for health, and a stop (SIGTERM, then SIGKILL). Each test file
 * starts one and gives every store its own key prefix. No mock: when etcd is not installed the
 * start fails with a message naming the package, so the tests fail instead of skipping.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface EtcdProcessOptions {
  /**
   * Skips fsync of etcd's WAL and database: only for speed in the shared suite, never where a
   * test checks durability.
   */
  unsafeNoFsync?: boolean;
  /** Reuse this data directory (a restart); a fresh temporary one when absent. */
  dataDir?: string;
  /** Reuse these ports (a restart); fresh free ones when absent. */
  clientPort?: number;
  peerPort?: number;
  /** Serve clients over TLS with these PEM files, asking for a client certificate signed by `ca`. */
  tls?: { ca: string; cert: string; key: string };
  /** A member of a cluster: its name and `--initial-cluster` (see startEtcdCluster). */
  member?: { name: string; initialCluster: string };
}

export interface EtcdProcess {
  /** `127.0.0.1:<port>`, for EtcdStore's `endpoints`. */
  readonly endpoint: string;
  readonly dataDir: string;
  readonly clientPort: number;
  readonly peerPort: number;
  /** The etcd process's id (benchmarks read its CPU time from /proc). */
  readonly pid: number;
  /** SIGTERM, then SIGKILL after `graceMs`; keeps the data directory. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once (a crash: no clean shutdown); keeps the data directory. */
  kill(): Promise<void>;
  /**
   * SIGSTOP or SIGCONT: a member that hangs without closing its connections, and its recovery.
   * Resolves once every thread of the process is in the state asked for (a signal is delivered
   * asynchronously, and a thread on another core could otherwise still answer a request).
   */
  freeze(frozen: boolean): Promise<void>;
  /** Stops it and deletes the data directory (unless it was given). */
  dispose(): Promise<void>;
}

const ETCD = process.env.SVCKIT_ETCD_BIN ?? 'etcd';

/** Throws with the install command when the etcd binary is missing. */
export function assertEtcdInstalled(): void {
  const probe = spawnSync(ETCD, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `the etcd tests need the etcd server binary ("${ETCD}" did not run: ${probe.error?.message ?? probe.stderr}). ` +
        'Install it with "sudo apt-get install etcd-server" (or set SVCKIT_ETCD_BIN); these tests never skip.',
    );
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startEtcd(options: EtcdProcessOptions = {}): Promise<EtcdProcess> {
  assertEtcdInstalled();
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svckit-etcd-'));
  const clientPort = options.clientPort ?? (await freePort());
  const peerPort = options.peerPort ?? (await freePort());
  const clientUrl = `${options.tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const name = options.member?.name ?? 'svckit-test';
  const args = [
    '--name',
    name,
    '--data-dir',
    dataDir,
    '--listen-client-urls',
    clientUrl,
    '--advertise-client-urls',
    clientUrl,
    '--listen-peer-urls',
    peerUrl,
    '--initial-advertise-peer-urls',
    peerUrl,
    '--initial-cluster',
    options.member?.initialCluster ?? `${name}=${peerUrl}`,
    // A member waiting for its peers must not give up on them while the others start.
    '--initial-cluster-state',
    'new',
    '--log-level',
    'error',
    ...(options.unsafeNoFsync ? ['--unsafe-no-fsync'] : []),
    ...(options.tls
      ? ['--cert-file', options.tls.cert, '--key-file', options.tls.key, '--trusted-ca-file', options.tls.ca, '--client-cert-auth']
      : []),
  ];
  const child: ChildProcess = spawn(ETCD, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async (graceMs = 5_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  try {
    await waitHealthy(clientUrl, child, () => stderr, options.tls);
  } catch (error) {
    await stop(1_000);
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint: `127.0.0.1:${clientPort}`,
    dataDir,
    clientPort,
    peerPort,
    pid: child.pid!,
    stop,
    async freeze(frozen: boolean) {
      child.kill(frozen ? 'SIGSTOP' : 'SIGCONT');
      if (child.pid !== undefined) await processStopped(child.pid, frozen);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
    async dispose() {
      await stop();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A cluster of `size` members on loopback, started together (each waits for a quorum before it
 * reports healthy). Every member keeps its own temporary data directory.
 */
export async function startEtcdCluster(size: number, options: Pick<EtcdProcessOptions, 'unsafeNoFsync'> = {}): Promise<EtcdProcess[]> {
  assertEtcdInstalled();
  const members = [];
  for (let i = 0; i < size; i++) members.push({ name: `m${i}`, clientPort: await freePort(), peerPort: await freePort() });
  const initialCluster = members.map((m) => `${m.name}=http://127.0.0.1:${m.peerPort}`).join(',');
  const started = await Promise.allSettled(
    members.map((m) => startEtcd({ ...options, clientPort: m.clientPort, peerPort: m.peerPort, member: { name: m.name, initialCluster } })),
  );
  const running = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(running.map((m) => m.dispose()));
    throw failed.reason;
  }
  return running;
}

async function waitHealthy(clientUrl: string, child: ChildProcess, stderr: () => string, tls: EtcdProcessOptions['tls']): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`etcd exited with ${child.exitCode}: ${stderr()}`);
    if (await healthy(`${clientUrl}/health`, tls)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`etcd did not become healthy within 20 s: ${stderr()}`);
}

/** One GET of etcd's /health; false while it is not listening or not ready. */
function healthy(url: string, tls: EtcdProcessOptions['tls']): Promise<boolean> {
  return new Promise((resolve) => {
    const options = tls
      ? { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key), timeout: 1_000 }
      : { timeout: 1_000 };
    const request = (url.startsWith('https:') ? httpsGet : httpGet)(url, options, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve(response.statusCode === 200 && /"health":\s*"true"/.test(body)));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

/**
 * A throw-away CA and, signed by it, a certificate for 127.0.0.1 used by etcd as its server and
 * by the store as its client certificate (files in `dir`; needs the openssl command).
 */
export function makeTestCertificates(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => {
    const run = spawnSync('openssl', args, { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`openssl ${args[0]} failed: ${run.error?.message ?? run.stderr}`);
  };
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=svckit test CA',
    '-keyout',
    file('ca-key.pem'),
    '-out',
    file('ca.pem'),
  );
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', file('key.pem'), '-out', file('req.pem'));
  writeFileSync(file('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    file('req.pem'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca-key.pem'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('ext.cnf'),
    '-out',
    file('cert.pem'),
  );
  return { ca: file('ca.pem'), cert: file('cert.pem'), key: file('key.pem') };
}

/** Waits until every thread of `pid` is stopped (state T) or none is, as /proc tells. */
async function processStopped(pid: number, stopped: boolean): Promise<void> {
  for (;;) {
    let states: string[];
    try {
      states = readdirSync(`/proc/${pid}/task`).map(
        (tid) => /\) (\S)/.exec(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))?.[1] ?? '',
      );
    } catch {
      return; // no /proc (not Linux) or the process is gone: nothing to wait for
    }
    if (states.every((state) => (state === 'T' || state === 't') === stopped)) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** etcd's own gRPC calls without the store (benches compare the store's cost against them). */
export { EtcdClient as RawEtcdClient } from './etcd-wire.js';
