// Callers of frames whose name/line matches: node callers.mjs file pattern
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const pat = new RegExp(process.argv[3]);
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const parent = new Map();
for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const self = new Map();
for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const label = (id) => { const cf = byId.get(id).callFrame; return `${cf.functionName || '(anon)'}:${cf.lineNumber + 1}`; };
// inclusive time per node
const incl = new Map();
const inclOf = (id) => { if (incl.has(id)) return incl.get(id); let t = self.get(id) ?? 0; for (const c of byId.get(id).children ?? []) t += inclOf(c); incl.set(id, t); return t; };
const agg = new Map();
for (const x of p.nodes) {
  if (!pat.test(label(x.id))) continue;
  const chain = []; let q = parent.get(x.id); for (let k = 0; q !== undefined && k < 6; k++, q = parent.get(q)) chain.push(label(q));
  const key = `${label(x.id)} <- ${chain.join(' <- ')}`;
  agg.set(key, (agg.get(key) ?? 0) + inclOf(x.id));
}
for (const [k, t] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${(t / 1000).toFixed(0).padStart(6)} ms  ${k}`);
