// Self time per source module of the bundle (esbuild's `// path` markers): node modules.mjs profile bundle [n]
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const lines = readFileSync(process.argv[3], 'utf8').split('\n');
const marks = [];
lines.forEach((l, i) => { const m = /^\s*\/\/ ((?:node_modules|runtime|reference|generated|scripts)\/\S+)$/.exec(l); if (m) marks.push([i, m[1]]); });
const moduleAt = (line) => { let lo = 0, hi = marks.length - 1, r = '?'; while (lo <= hi) { const mid = (lo + hi) >> 1; if (marks[mid][0] <= line) { r = marks[mid][1]; lo = mid + 1; } else hi = mid - 1; } return r; };
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const agg = new Map(); let busy = 0;
for (let i = 0; i < p.samples.length; i++) {
  const cf = byId.get(p.samples[i]).callFrame; const t = p.timeDeltas[i] ?? 0;
  if (cf.functionName === '(idle)') continue;
  busy += t;
  const key = cf.url.endsWith('serve.mjs') ? moduleAt(cf.lineNumber).replace(/node_modules\/([^/]+)\/.*/, 'node_modules/$1') : cf.url.startsWith('node:') ? cf.url : cf.functionName || cf.url || '(native)';
  agg.set(key, (agg.get(key) ?? 0) + t);
}
console.log(`busy ${(busy / 1000).toFixed(0)} ms`);
for (const [k, t] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[4] ?? 40))) console.log(`${((t / busy) * 100).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${k}`);
