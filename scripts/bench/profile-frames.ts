import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** A frame's share of the busy time (idle left out) of the profiles in `dir`. */
export interface Frame {
  name: string;
  percent: number;
}

/**
 * The functions with the most self time in the V8 CPU profiles (`node --cpu-prof`) written to
 * `dir`, idle time left out: where a server spent its CPU under one load.
 */
export function topFrames(dir: string, count: number): { busyMs: number; frames: Frame[] } {
  const self = new Map<string, number>();
  let busy = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    profile.samples.forEach((id, i) => {
      const frame = byId.get(id)!;
      // The inspector's own dispatch (with no script) stands where the thread waited: idle too.
      if (frame.functionName === '(idle)' || (frame.functionName === 'dispatch' && frame.url === '')) return;
      const us = profile.timeDeltas[i] ?? 0;
      const where = frame.url ? ` ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}` : '';
      const name = `${frame.functionName || '(anonymous)'}${where}`;
      self.set(name, (self.get(name) ?? 0) + us);
      busy += us;
    });
  }
  const frames = [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => ({ name, percent: (100 * us) / busy }));
  return { busyMs: busy / 1000, frames };
}
