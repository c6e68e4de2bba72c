import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledCliArgs } from '../commands/compiled.testing.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const BENCH_QUESTIONS = pathToFileURL(join(ROOT, 'scripts/bench/peers/bench-questions.mjs')).href;
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
  /** Starts V8's CPU profiler in the process (svckit only), or stops it and writes the profile to `file`. */
  profile(action: { start: true } | { stopTo: string }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `svckit serve <args>` in its own process: the compiled bin (built first when stale) as users run
 * it, with --expose-gc and the bench's questions answered (bench-questions.mjs).
 */
export function startSvckit(name: string, args: string[]): Promise<ServerProcess> {
  const [bin, ...binArgs] = compiledCliArgs('serve', '--port', '0', ...args);
  return start(name, bin!, binArgs, { tsx: false });
}

/**
 * `svckit serve <args>` from the compiled bin, as users start it (built first when stale, before
 * the clock starts): for start-up times, which through tsx would include its transpiling. It
 * answers no memory question; its resident set is read from /proc.
 */
export async function startCompiledSvckit(name: string, args: string[]): Promise<ServerProcess> {
  return startNode(name, compiledCliArgs('serve', '--port', '0', ...args));
}

/** A process of `node <args>` that prints "listening on <url>" when ready (no IPC: RSS from /proc). */
export function startNode(name: string, args: string[]): Promise<ServerProcess> {
  return started(name, () => spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] }));
}

/**
 * The bare node:http peer; with `durableFile`, its creates are stored in SQLite as the reference
 * server's are; with `workUs`, it spins that many microseconds per request (headroom.ts).
 */
export function startBarePeer(name: string, options: { durableFile?: string; workUs?: number } = {}): Promise<ServerProcess> {
  const args = [
    ...(options.durableFile ? ['--durable', options.durableFile] : []),
    ...(options.workUs ? ['--work-us', String(options.workUs)] : []),
  ];
  return start(name, join(ROOT, 'scripts/bench/peers/bare-server.ts'), args);
}

/** `script` forked with an IPC channel over which it answers the bench's questions; TypeScript through tsx unless `tsx` is false. */
function start(name: string, script: string, args: string[], options: { tsx: boolean } = { tsx: true }): Promise<ServerProcess> {
  const loaders = ['--import', BENCH_QUESTIONS, ...(options.tsx ? ['--import', TSX_LOADER] : [])];
  return started(name, () =>
    fork(script, args, { cwd: ROOT, execArgv: ['--expose-gc', ...loaders], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] }),
  );
}

/** The handle of a process `launch` starts, once it listens; with an IPC channel it answers questions (bench-questions.mjs). */
async function started(name: string, launch: () => ChildProcess): Promise<ServerProcess> {
  const began = performance.now();
  const child = launch();
  const url = await listeningUrl(name, child);
  const startMs = performance.now() - began;
  const ipc = child.connected;
  return {
    name,
    url,
    startMs,
    cpuMs: () => cpuMsOf(child.pid!),
    memory: async () =>
      ipc
        ? ((await ask(child, 'memory')) as { heapUsed: number; rss: number } | undefined)
        : { heapUsed: Number.NaN, rss: rssOf(child.pid!) },
    profile: async (action) => {
      const answer = ipc ? await ask(child, 'start' in action ? 'profile-start' : `profile-stop ${action.stopTo}`) : 'no IPC channel';
      if (answer !== 'ok') throw new Error(`${name}: the profiler answered ${JSON.stringify(answer)}`);
    },
    stop: () => stop(child),
  };
}

/** Resolves to the URL of the child's "listening on <url>" line; its later output is drained. */
function listeningUrl(name: string, child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (\S+)/.exec(out);
      if (!m) return;
      child.stdout!.off('data', onData).resume();
      resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited ${code} before listening`)));
  });
}

function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return kb ? Number(kb[1]) * 1024 : Number.NaN;
}

/** CPU time (user + system) process `pid` has used so far, from /proc. */
export function cpuMsOf(pid: number): number {
  // Fields after the command name (which may hold spaces) start at the state, field 3.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Sends `question` over the IPC channel; resolves to the answer (undefined after 60 s or without a channel). */
function ask(child: ChildProcess, question: string): Promise<unknown> {
  if (!child.connected) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 60_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve(m);
    });
    child.send(question);
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
