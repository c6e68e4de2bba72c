import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('../../', import.meta.url).pathname;
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** A server under test in its own process. */
export interface ServerProcess {
  name: string;
  url: string;
  /** From fork to the "listening on" line. */
  startMs: number;
  /** CPU time (user + system) the process has used so far. */
  cpuMs(): number;
  /** Heap after a full collection and resident set, in bytes. */
  memory(): Promise<{ heapUsed: number; rss: number } | undefined>;
  stop(): Promise<void>;
}

/** `svckit serve <args>` in its own process. */
export function startSvckit(name: string, args: string[]): Promise<ServerProcess> {
  return start(name, join(ROOT, 'scripts/bench/peers/serve-process.ts'), ['--port', '0', ...args]);
}

/** The bare node:http peer; with `durableFile`, its creates are stored in SQLite as the reference server's are. */
export function startBarePeer(name: string, durableFile?: string): Promise<ServerProcess> {
  return start(name, join(ROOT, 'scripts/bench/peers/bare-server.ts'), durableFile ? ['--durable', durableFile] : []);
}

async function start(name: string, script: string, args: string[]): Promise<ServerProcess> {
  const began = performance.now();
  const child = fork(script, args, {
    cwd: ROOT,
    execArgv: ['--expose-gc', '--import', TSX_LOADER],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited ${code} before listening`)));
  });
  const startMs = performance.now() - began;
  child.stdout!.resume();
  return {
    name,
    url,
    startMs,
    cpuMs: () => cpuMsOf(child.pid!),
    memory: () => memoryOf(child),
    stop: () => stop(child),
  };
}

/** CPU time (user + system) process `pid` has used so far, from /proc. */
export function cpuMsOf(pid: number): number {
  // Fields after the command name (which may hold spaces) start at the state, field 3.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

function memoryOf(child: ChildProcess): Promise<{ heapUsed: number; rss: number } | undefined> {
  if (!child.connected) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 10_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve(m as { heapUsed: number; rss: number });
    });
    child.send('memory');
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
