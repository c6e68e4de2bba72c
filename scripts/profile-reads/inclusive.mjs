// Inclusive time per frame (each sample counted once per frame on its stack): node inclusive.mjs file [n]
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const n = Number(process.argv[3] ?? 40);
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const parent = new Map();
for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const label = (id) => { const cf = byId.get(id).callFrame; return `${cf.functionName || '(anon)'} ${cf.url.split('/').pop()}:${cf.lineNumber + 1}`; };
const agg = new Map();
let busy = 0;
for (let i = 0; i < p.samples.length; i++) {
  const t = p.timeDeltas[i] ?? 0;
  const leaf = label(p.samples[i]);
  if (leaf.startsWith('(idle)') || leaf.startsWith('(program)')) continue;
  busy += t;
  const seen = new Set();
  for (let q = p.samples[i]; q !== undefined; q = parent.get(q)) seen.add(label(q));
  for (const l of seen) agg.set(l, (agg.get(l) ?? 0) + t);
}
console.log(`busy ${(busy / 1000).toFixed(0)} ms`);
for (const [k, t] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${((t / busy) * 100).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${k}`);
