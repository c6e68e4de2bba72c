// Line ticks inside frames matching a name:line: node lines.mjs profile bundle 'handle:173707'
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const src = readFileSync(process.argv[3], 'utf8').split('\n');
const want = process.argv[4];
const ticks = new Map();
for (const x of p.nodes) {
  const cf = x.callFrame;
  if (`${cf.functionName}:${cf.lineNumber + 1}` !== want) continue;
  for (const t of x.positionTicks ?? []) ticks.set(t.line, (ticks.get(t.line) ?? 0) + t.ticks);
}
for (const [line, n] of [...ticks].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${String(n).padStart(5)}  ${line}: ${src[line - 1].trim().slice(0, 140)}`);
