import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What one wrk run measured. */
export interface WrkResult {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers outside 2xx/3xx, and socket errors and timeouts. */
  failures: number;
}

export interface WrkRequest {
  method?: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  /** The body; `__N__` is replaced by a number unique to each request of the run. */
  body?: string;
  /** `__D__` in the path and body is replaced by the request's number modulo this (spreads requests over objects). */
  spread?: number;
}

/**
 * One run of wrk (https://github.com/wg/wrk, Debian's `wrk`), the load generator of the server
 * benchmarks: one thread, so the other core is left to the server under test. Its `done` hook
 * prints the summary as JSON, so nothing depends on wrk's human-readable output.
 */
export async function runWrk(url: string, options: { connections: number; seconds: number; request?: WrkRequest }): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-wrk-'));
  const script = join(dir, 'script.lua');
  writeFileSync(script, luaScript(new URL(url), options.request));
  try {
    const [out, errors] = await new Promise<[string, string]>((resolve, reject) =>
      execFile(
        'wrk',
        ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', script, url],
        { maxBuffer: 1 << 20 },
        (error, stdout, stderr) => {
          if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
            reject(new Error('wrk is not installed: apt-get install wrk (the server benchmarks drive the servers with it)'));
          } else if (error) reject(new Error(`wrk failed: ${stderr || error.message}`));
          else resolve([stdout, stderr]);
        },
      ),
    );
    const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
    if (!line) throw new Error(`wrk printed no summary:\n${out}${errors}`);
    const s = JSON.parse(line) as { requests: number; durationUs: number; p50Us: number; p99Us: number; failures: number };
    return {
      requests: s.requests,
      perSecond: s.requests / (s.durationUs / 1e6),
      p50Ms: s.p50Us / 1000,
      p99Ms: s.p99Us / 1000,
      failures: s.failures,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A Lua string literal of any text (long brackets with a level the text does not contain). */
function luaString(text: string): string {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

function luaScript(url: URL, request: WrkRequest | undefined): string {
  const lines: string[] = [];
  if (request) {
    const headers = Object.entries(request.headers ?? {})
      .map(([k, v]) => `[ ${luaString(k)} ] = ${luaString(v)}`) // spaced: `[[[` would open a long string
      .join(', ');
    // A prefix per run keeps names unique across runs of the same server.
    const prefix = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
    lines.push(
      'local counter = 0',
      `local body = ${luaString(request.body ?? '')}`,
      `local headers = { ${headers} }`,
      'request = function()',
      '  counter = counter + 1',
      `  local d = tostring(counter % ${request.spread ?? 1})`,
      `  local b = (string.gsub((string.gsub(body, "__N__", ${luaString(prefix)} .. counter)), "__D__", d))`,
      `  local p = (string.gsub(${luaString(url.pathname + url.search)}, "__D__", d))`,
      `  return wrk.format(${luaString(request.method ?? 'GET')}, p, headers, b)`,
      'end',
    );
  }
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"failures":%d}\\n\',',
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),',
    '    e.status + e.connect + e.read + e.write + e.timeout))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}
