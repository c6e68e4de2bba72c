import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SERVE_BUNDLE } from './serve-module.js';

const ROOT = new URL('../../', import.meta.url).pathname;
/** Written last by `npm run build`: dist/ is complete when it is there. */
const LAST_BUILT = join(ROOT, 'dist/scripts/commands', SERVE_BUNDLE);

/**
 * The node arguments that run the compiled svckit CLI (bin/svckit.js over dist/, as the package
 * ships it), building dist/ first when it is missing or older than a source file.
 */
export function compiledCliArgs(...args: string[]): string[] {
  buildIfStale();
  return [join(ROOT, 'bin/svckit.js'), ...args];
}

let buildChecked = false;

/** Builds dist/ when it is missing or older than a tracked source file (looked at once per process). */
export function buildIfStale(): void {
  if (buildChecked) return;
  buildChecked = true;
  const sources = execFileSync('git', ['ls-files', '*.ts'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  const newest = Math.max(...sources.map((f) => (existsSync(join(ROOT, f)) ? statSync(join(ROOT, f)).mtimeMs : 0)));
  if (existsSync(LAST_BUILT) && statSync(LAST_BUILT).mtimeMs >= newest) return;
  process.stderr.write('(dist/ is missing or older than the sources: npm run build)\n');
  // The build's own output goes to stderr: the callers' stdout is their report.
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: ['ignore', process.stderr, process.stderr] });
}
