import type { ServerProcess } from './processes.js';
import type { WrkResult } from './wrk.js';

/**
 * The calibration of a load case's ratio: the bare peer again, spinning a given number of
 * microseconds before each request, against itself with none. A server that does any work per
 * request above the bare one answers fewer requests than that work alone explains (the client
 * then waits, and its wake-ups and the server's socket writes cost more), so this says how much
 * work per request the ratio svckit reached, or a goal, leaves room for.
 */
export interface HeadroomCase {
  name: string;
  /** svckit's ratio in the same run's load case, placed on the peer's curve. */
  ratio: number;
  /** Microseconds of work added per request, ascending; 0 is the reference. */
  workUs: number[];
  /** The peer with `workUs` added per request, holding what `run` needs. */
  start: (workUs: number) => Promise<ServerProcess>;
  run: (server: ServerProcess) => Promise<WrkResult>;
}

interface Point {
  workUs: number;
  perSecond: number;
  cpuMsPerRequest: number;
  ratio: number;
}

/** Measures each case's peer at each amount of added work (one warm-up and one timed run) and prints the curve. */
export async function printHeadroom(title: string, cases: HeadroomCase[]): Promise<void> {
  process.stdout.write(`\n## ${title}\n`);
  process.stdout.write('case | work added per request | req/s | CPU ms/req | ratio to none added\n');
  for (const c of cases) {
    const points: Point[] = [];
    for (const workUs of c.workUs) {
      const server = await c.start(workUs);
      try {
        await c.run(server);
        const cpuBefore = server.cpuMs();
        const r = await c.run(server);
        const cpuMsPerRequest = (server.cpuMs() - cpuBefore) / r.requests;
        const ratio = points.length === 0 ? 1 : r.perSecond / points[0]!.perSecond;
        points.push({ workUs, perSecond: r.perSecond, cpuMsPerRequest, ratio });
        process.stdout.write(
          `${c.name} | ${workUs} us | ${Math.round(r.perSecond)}/s | ${cpuMsPerRequest.toFixed(3)} | ${ratio.toFixed(2)}x\n`,
        );
      } finally {
        await server.stop();
      }
    }
    process.stdout.write(
      `${c.name}: svckit's ${c.ratio.toFixed(2)}x is the bare peer's with ${workAt(points, c.ratio)} added per request\n`,
    );
  }
}

/** The added work at which the peer's ratio falls to `ratio`, interpolated between the measured points. */
function workAt(points: Point[], ratio: number): string {
  const below = points.findIndex((p) => p.ratio <= ratio);
  if (below < 0) return `more than ${points[points.length - 1]!.workUs} us`;
  if (below === 0) return 'none';
  const a = points[below - 1]!;
  const b = points[below]!;
  const us = a.workUs + ((a.ratio - ratio) / (a.ratio - b.ratio)) * (b.workUs - a.workUs);
  return `about ${us.toFixed(0)} us`;
}
