import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('../../', import.meta.url).pathname;
/** tsx's loader by absolute URL, so the CLI runs from any working directory. */
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

/** The node arguments that run the svckit CLI from this checkout's sources (the compiled bin is tested by scripts/checks/consumer.ts). */
export function cliArgs(...args: string[]): string[] {
  return ['--import', TSX_LOADER, join(ROOT, 'scripts/cli.ts'), ...args];
}
