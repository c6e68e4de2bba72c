/**
 * The real-world corpus check: every folder of CustomResourceDefinitions under a corpus directory
 * (CRDs written outside this project) is generated, type-checked in strict mode and loaded by
 * `svckit validate --schemas`, without crashing. It is not part of `npm test` (a fresh clone has
 * no corpus); `.ci/run` runs it when a corpus sits beside the checkout.
 *
 *   npx tsx scripts/checks/corpus.ts <corpus-dir>
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { codegen } from '../../generator/index.js';
import { typecheckDir } from '../../generator/typecheck.testing.js';
import { cliArgs } from '../commands/cli.testing.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const [arg] = process.argv.slice(2);
const corpus = arg === undefined ? undefined : resolve(arg);
if (corpus === undefined || !existsSync(corpus)) {
  process.stderr.write(`usage: npx tsx scripts/checks/corpus.ts <dir of CRD folders>${corpus ? ` (${corpus} does not exist)` : ''}\n`);
  process.exit(2);
}

/**
 * Projects known to fail today, each with the open issue that fixes it (issue 24: RE2 patterns,
 * colliding generated names). Their failure is reported, not judged; one that
 * passes fails the check, so the list cannot go stale.
 */
const KNOWN_FAILING: Readonly<Record<string, string>> = {
  'cluster-api': 'issue 24 item 4: a type named ClusterClassSchema collides with a descriptor constant',
  crossplane: 'issue 24 item 4: a type named CompositeResourceDefinitionSchema collides with a descriptor constant',
  'prometheus-operator': 'issue 24 item 1: RE2 flag groups such as (?i) inside a pattern',
};

let passed = 0;
let failed = 0;
let known = 0;
const stale: string[] = [];
for (const name of readdirSync(corpus, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort()) {
  const dir = join(corpus, name);
  const out = mkdtempSync(join(tmpdir(), `svckit-corpus-${name}-`));
  const started = performance.now();
  try {
    writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
    const warnings: string[] = [];
    const result = codegen({ schemas: [dir], out, runtime: { root: ROOT }, warn: (w) => warnings.push(w) });
    const errors = typecheckDir(out);
    if (errors.length > 0) throw new Error(`generated code does not type-check:\n${errors.slice(0, 10).join('\n')}`);
    const validate = spawnSync(process.execPath, cliArgs('validate', '--schemas', dir, '-'), {
      input: '',
      encoding: 'utf8',
      env: { ...process.env, XDG_CACHE_HOME: out },
    });
    if (validate.status !== 0) throw new Error(`svckit validate --schemas exited ${validate.status}:\n${validate.stderr}`);
    const ms = performance.now() - started;
    process.stdout.write(
      `corpus: ${name}: ${result.kinds} kinds, ${result.files.length} files, type-checked, validate loads them (${ms.toFixed(0)} ms${warnings.length ? `, ${warnings.length} documents skipped` : ''})\n`,
    );
    passed++;
    if (KNOWN_FAILING[name]) stale.push(name);
  } catch (e) {
    const why = KNOWN_FAILING[name];
    process.stdout.write(`corpus: ${name}: ${why ? `known failing (${why})` : 'FAILED'}: ${(e as Error).message}\n`);
    if (why) known++;
    else failed++;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
for (const name of stale) process.stdout.write(`corpus: ${name} passes but is listed as known failing: take it off KNOWN_FAILING\n`);
process.stdout.write(`corpus: ${passed} passed, ${failed + stale.length} failed, ${known} known failing\n`);
process.exitCode = failed > 0 || stale.length > 0 ? 1 : 0;
