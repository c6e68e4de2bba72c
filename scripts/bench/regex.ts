import { createRequire } from 'node:module';
import { RE2JS } from 're2js';
import { compileRegex } from '../../runtime/regex/index.js';
import { INVALID, VALID } from '../../runtime/regex/re2-syntax-cases.testing.js';
import { runCases } from './harness.js';

/**
 * RE2 for `pattern` and CEL regexes: re2js (what runtime/regex uses, compiled here without its
 * cache) against V8's own RegExp, the
 * engine a translation of RE2 into JavaScript would run on, and re2-wasm when it is installed
 * (`RE2_WASM=<path of the re2-wasm package> npm run bench -- regex`; it is no dependency). The
 * patterns are typical of CRDs and read alike by all engines; the last case is the
 * catastrophic-backtracking one, where V8's backtracking doubles its time with every character.
 */
const PATTERNS = [
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  '^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$',
  '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$',
  '^(https?|wss?)://[^\\s/$.?#].[^\\s]*$',
  '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?$',
  '^(january|february|march|april|may|june|july|august|september|october|november|december|[1-9]|1[0-2])$',
  '^sha256:[a-f0-9]{64}$',
];
const INPUTS = [
  'my-app',
  'web-1.prod.example.com',
  'kubernetes.io_name',
  '1h30m',
  'https://example.com/path?q=1',
  '512Mi',
  'september',
  `sha256:${'ab'.repeat(32)}`,
  '-not-valid-',
  'x'.repeat(200),
];

interface Engine {
  name: string;
  compile: (pattern: string) => { test: (s: string) => boolean };
  /** The longest pattern to give it: re2-wasm's fixed heap runs out on the size-limit cases, and it is unusable from then on. */
  maxPattern?: number;
}

/** Go's message for a refused pattern, when the engine has RE2's messages. */
const goError = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** How many cases of the RE2 syntax table an engine gets right: valid ones compile and match, invalid ones are refused (with Go's message). */
function conformance(engine: Engine): string {
  const fits = ([pattern]: readonly [string, ...unknown[]]) => pattern.length <= (engine.maxPattern ?? Number.POSITIVE_INFINITY);
  let valid = 0;
  const validTried = VALID.filter(fits);
  for (const [pattern, yes, no] of validTried) {
    try {
      const re = engine.compile(pattern);
      if (yes.every((s) => re.test(s)) && no.every((s) => !re.test(s))) valid++;
    } catch {}
  }
  let refused = 0;
  let goMessages = 0;
  const tried = INVALID.filter(fits);
  for (const [pattern, reason] of tried) {
    try {
      engine.compile(pattern);
    } catch (e) {
      refused++;
      if (goError(e) === `error parsing regexp: ${reason}`) goMessages++;
    }
  }
  const left = VALID.length - validTried.length + INVALID.length - tried.length;
  return `${engine.name}: ${valid}/${validTried.length} valid patterns compile and match as RE2; ${refused}/${tried.length} invalid refused, ${goMessages} with Go's message${left > 0 ? ` (${left} patterns over ${engine.maxPattern} characters left out)` : ''}`;
}

function re2wasm(): Engine | undefined {
  const path = process.env.RE2_WASM;
  if (!path) return undefined;
  const { RE2 } = createRequire(import.meta.url)(path) as { RE2: new (p: string, f: string) => { test: (s: string) => boolean } };
  return { name: 're2-wasm', compile: (p) => new RE2(p, 'u'), maxPattern: 1000 };
}

const v8: Engine = { name: 'V8 RegExp', compile: (p) => new RegExp(p, 'u') };

/** Catastrophic backtracking: ms for one test of `^(a+)+$` on n 'a's and a 'b'. */
function catastrophic(compile: Engine['compile'], n: number): number {
  const re = compile('^(a+)+$');
  const input = `${'a'.repeat(n)}b`;
  const start = performance.now();
  if (re.test(input)) throw new Error('^(a+)+$ must not match');
  return performance.now() - start;
}

export async function benchRegex(): Promise<void> {
  const wasm = re2wasm();
  process.stdout.write('\n## RE2 syntax table (runtime/regex/re2-syntax-cases.testing.ts)\n');
  process.stdout.write(`${conformance({ name: 'runtime/regex (re2js)', compile: compileRegex })}\n`);
  process.stdout.write(`${conformance(v8)}\n`);
  if (wasm) process.stdout.write(`${conformance(wasm)}\n`);
  const re2js: Engine['compile'] = (p) => {
    const re = RE2JS.compile(p).re2();
    return { test: (s) => re.match(s) };
  };
  const peers = wasm ? [v8, wasm] : [v8];
  // Few enough that re2-wasm fits: it frees nothing, and aborts once its fixed 16 MiB heap is full (about 5,600 compiles of a
  // typical pattern, fewer after the syntax table).
  const compiles = 25;
  const matches = 2_000;
  for (const peer of peers) {
    const compiledOurs = PATTERNS.map(re2js);
    const compiledPeer = PATTERNS.map(peer.compile);
    for (const [i, p] of PATTERNS.entries())
      for (const s of INPUTS)
        if (compiledOurs[i]?.test(s) !== compiledPeer[i]?.test(s)) throw new Error(`${peer.name} and re2js disagree on ${p} / ${s}`);
    await runCases(`Regular expressions: re2js (ours) vs ${peer.name}`, [
      {
        // With a first match: V8 compiles a RegExp lazily, on its first use.
        name: `compile+1 match ${PATTERNS.length} pats x${compiles}`,
        ours: () => {
          for (let i = 0; i < compiles; i++) for (const p of PATTERNS) re2js(p).test('my-app');
        },
        peer: {
          name: peer.name,
          run: () => {
            for (let i = 0; i < compiles; i++) for (const p of PATTERNS) peer.compile(p).test('my-app');
          },
        },
      },
      {
        name: `match ${PATTERNS.length * INPUTS.length} pairs x${matches}`,
        ours: () => {
          for (let i = 0; i < matches; i++) for (const re of compiledOurs) for (const s of INPUTS) re.test(s);
        },
        peer: {
          name: peer.name,
          run: () => {
            for (let i = 0; i < matches; i++) for (const re of compiledPeer) for (const s of INPUTS) re.test(s);
          },
        },
      },
    ]);
  }
  process.stdout.write("\n## Catastrophic backtracking: one test of ^(a+)+$ on n a's and a b\n");
  for (const n of [24, 26, 30]) {
    const times = [re2js, ...peers.map((p) => p.compile)].map((compile) => catastrophic(compile, n).toFixed(1));
    process.stdout.write(`n=${n}: re2js ${times[0]} ms; ${peers.map((p, i) => `${p.name} ${times[i + 1]} ms`).join('; ')}\n`);
  }
  process.stdout.write(`n=100000: re2js ${catastrophic(re2js, 100_000).toFixed(1)} ms (linear in the input)\n`);
}
