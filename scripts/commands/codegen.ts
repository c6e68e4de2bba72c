import { parseArgs } from 'node:util';
import { codegen } from '../../generator/index.js';
import { UsageError } from './usage-error.js';

export const CODEGEN_USAGE = 'svckit codegen --schemas <dir|file>... --out <dir> [--check] [--quiet]';

/** `svckit codegen`: generate, or with --check compare with what is on disk (exit 1 when stale). */
export async function codegenCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      schemas: { type: 'string', multiple: true },
      out: { type: 'string' },
      check: { type: 'boolean', default: false },
      quiet: { type: 'boolean', short: 'q', default: false },
    },
    strict: true,
  });
  if (!values.schemas?.length || !values.out) throw new UsageError('codegen needs --schemas <dir> and --out <dir>');
  const log = values.quiet ? () => {} : (line: string) => process.stderr.write(`codegen: ${line}\n`);
  const result = codegen({ schemas: values.schemas, out: values.out, check: values.check, log });
  const count = (s: string) => result.files.filter((f) => f.status === s).length;
  const summary = `${result.groupVersions} group/versions, ${result.kinds} kinds, ${result.files.length} files`;
  if (values.check) {
    const bad = result.files.filter((f) => f.status !== 'unchanged');
    for (const f of bad) process.stderr.write(`codegen: ${f.status}: ${f.path}\n`);
    log(`${summary} checked in ${result.millis.toFixed(0)} ms: ${bad.length === 0 ? 'up to date' : `${bad.length} out of date (run npm run codegen)`}`);
    return bad.length === 0 ? 0 : 1;
  }
  log(`${summary} (${count('written')} written, ${count('unchanged')} unchanged, ${count('removed')} removed) in ${result.millis.toFixed(0)} ms`);
  return 0;
}
