// Top self-time frames of a .cpuprofile: node analyze.mjs file [n]
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const n = Number(process.argv[3] ?? 30);
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const self = new Map();
const dt = p.timeDeltas;
for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (dt[i] ?? 0));
const agg = new Map();
let total = 0;
for (const [id, t] of self) {
  const cf = byId.get(id).callFrame;
  const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}`;
  agg.set(key, (agg.get(key) ?? 0) + t);
  total += t;
}
const idle = [...agg].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, t]) => a + t, 0);
console.log(`total ${(total / 1000).toFixed(0)} ms, busy ${((total - idle) / 1000).toFixed(0)} ms`);
for (const [k, t] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, n))
  console.log(`${((t / (total - idle)) * 100).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${k}`);
