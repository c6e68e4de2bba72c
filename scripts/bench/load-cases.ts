import { median } from './harness.js';
import type { ServerProcess } from './processes.js';
import type { WrkResult } from './wrk.js';

/** One side of a load case: a load run against a server process. */
export interface LoadTarget {
  /** Named in the table: the peer's name, or which svckit variant. */
  name: string;
  server: ServerProcess;
  run: () => Promise<WrkResult>;
}

export interface LoadCase {
  name: string;
  ours: LoadTarget;
  peer: LoadTarget;
  /** Timed runs of each side, alternating which goes first (after one warm-up run each). */
  runs?: number;
}

export interface LoadSide {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The server process's CPU time per request. */
  cpuMsPerRequest: number;
  /** Requests answered outside 2xx/3xx or lost (summed over the runs, not a median). */
  failures: number;
}

export interface LoadResult {
  name: string;
  ours: LoadSide;
  peer: LoadSide;
  /** ours / peer throughput, i.e. peer time / our time: above 1 means ours is faster. */
  ratio: number;
}

/**
 * Runs each case's two sides alternately (the side that goes first alternates too), and prints
 * the medians: throughput, latency p50/p99 and the server's CPU per request, and the ratio.
 * `around` wraps each case's timed runs (the server benchmark profiles them there).
 */
export async function runLoadCases(
  title: string,
  cases: LoadCase[],
  around: (c: LoadCase, run: () => Promise<void>) => Promise<void> = (_, run) => run(),
): Promise<LoadResult[]> {
  process.stdout.write(`\n## ${title}\n`);
  process.stdout.write('case | ours: req/s, p50/p99 ms, CPU ms/req | peer | peer: req/s, p50/p99 ms, CPU ms/req | ratio\n');
  const results: LoadResult[] = [];
  for (const c of cases) {
    await measure(c.ours);
    await measure(c.peer);
    const ours: LoadSide[] = [];
    const peer: LoadSide[] = [];
    await around(c, async () => {
      for (let i = 0; i < (c.runs ?? 5); i++) {
        if (i % 2 === 0) {
          ours.push(await measure(c.ours));
          peer.push(await measure(c.peer));
        } else {
          peer.push(await measure(c.peer));
          ours.push(await measure(c.ours));
        }
      }
    });
    const r: LoadResult = { name: c.name, ours: medians(ours), peer: medians(peer), ratio: 0 };
    r.ratio = r.ours.perSecond / r.peer.perSecond;
    results.push(r);
    process.stdout.write(`${c.name} | ${side(r.ours)} | ${c.peer.name} | ${side(r.peer)} | ${r.ratio.toFixed(2)}x\n`);
  }
  return results;
}

async function measure(target: LoadTarget): Promise<LoadSide> {
  const cpuBefore = target.server.cpuMs();
  const r = await target.run();
  const cpu = target.server.cpuMs() - cpuBefore;
  if (r.requests === 0) throw new Error(`${target.name} (${target.server.name}): no request completed`);
  return { perSecond: r.perSecond, p50Ms: r.p50Ms, p99Ms: r.p99Ms, cpuMsPerRequest: cpu / r.requests, failures: r.failures };
}

function medians(sides: LoadSide[]): LoadSide {
  const m = (pick: (s: LoadSide) => number) => median(sides.map(pick));
  return {
    perSecond: m((s) => s.perSecond),
    p50Ms: m((s) => s.p50Ms),
    p99Ms: m((s) => s.p99Ms),
    cpuMsPerRequest: m((s) => s.cpuMsPerRequest),
    failures: sides.reduce((n, s) => n + s.failures, 0),
  };
}

function side(s: LoadSide): string {
  // A failed request is still a request served (a fast 409 flatters): they are shown, not hidden.
  const failed = s.failures > 0 ? ` (${s.failures} FAILED)` : '';
  return `${Math.round(s.perSecond)}/s, ${s.p50Ms.toFixed(2)}/${s.p99Ms.toFixed(2)}, ${s.cpuMsPerRequest.toFixed(3)}${failed}`;
}
