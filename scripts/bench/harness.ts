/**
 * A tiny benchmark harness: each case runs our implementation and a named peer on the same input
 * in the same process, alternating, and prints the medians and their ratio.
 */
export interface BenchCase {
  name: string;
  /** Timed as a whole, unless it resolves to a number: then that number is its time in ms. */
  ours: () => unknown;
  peer: { name: string; run: () => unknown };
  /** Timed runs of each side (after one warm-up run each). */
  runs?: number;
}

export interface BenchResult {
  name: string;
  peer: string;
  oursMs: number;
  peerMs: number;
  /** peer time / our time: above 1 means ours is faster. */
  speedup: number;
}

export async function runCases(title: string, cases: BenchCase[]): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  process.stdout.write(`\n## ${title}\n`);
  process.stdout.write(row(['case', 'ours ms', 'peer', 'peer ms', 'ratio (peer/ours)']));
  for (const c of cases) {
    const runs = c.runs ?? 5;
    await c.ours();
    await c.peer.run();
    const ours: number[] = [];
    const peer: number[] = [];
    for (let i = 0; i < runs; i++) {
      ours.push(await time(c.ours));
      peer.push(await time(c.peer.run));
    }
    const r: BenchResult = {
      name: c.name,
      peer: c.peer.name,
      oursMs: median(ours),
      peerMs: median(peer),
      speedup: median(peer) / median(ours),
    };
    results.push(r);
    process.stdout.write(row([r.name, r.oursMs.toFixed(1), r.peer, r.peerMs.toFixed(1), `${r.speedup.toFixed(2)}x`]));
  }
  return results;
}

async function time(fn: () => unknown): Promise<number> {
  const start = performance.now();
  const measured = await fn();
  return typeof measured === 'number' ? measured : performance.now() - start;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const WIDTHS = [34, 10, 22, 10, 18];

function row(cells: string[]): string {
  return `${cells
    .map((c, i) => c.padEnd(WIDTHS[i] ?? 12))
    .join(' ')
    .trimEnd()}\n`;
}
