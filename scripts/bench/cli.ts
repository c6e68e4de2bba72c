import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs } from '../commands/cli.testing.js';
import { buildIfStale } from '../commands/compiled.testing.js';
import { type BenchCase, runCases } from './harness.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * CLI start-up, wall time of whole processes: `svckit --version` and `svckit validate` of one
 * small document, compiled (the bin, as installed) and from the sources through tsx (how the CLI
 * ran before the build), each beside `node -e 0` in the same run.
 */
export async function benchCli(): Promise<void> {
  buildIfStale();
  const dir = mkdtempSync(join(tmpdir(), 'svckit-bench-cli-'));
  const doc = join(dir, 'limits.yaml');
  writeFileSync(
    doc,
    'apiVersion: eventratelimit.admission.svc.io/v1alpha1\nkind: Configuration\nlimits: [{type: Server, qps: 10, burst: 50}]\n',
  );
  const compiled = (...args: string[]) => [join(ROOT, 'bin/svckit.js'), ...args];
  const cases: BenchCase[] = [
    processCase('compiled: svckit --version', compiled('--version')),
    processCase('compiled: svckit validate (1 doc)', compiled('validate', doc)),
    processCase('sources via tsx: --version', cliArgs('--version')),
    processCase('sources via tsx: validate (1 doc)', cliArgs('validate', doc)),
  ];
  await runCases('CLI start-up (wall time of one process) vs node -e 0', cases);
}

function processCase(name: string, args: string[]): BenchCase {
  return {
    name,
    runs: 7,
    ours: () => exec(args),
    peer: { name: 'node -e 0', run: () => exec(['-e', '0']) },
  };
}

function exec(args: string[]): void {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
}
