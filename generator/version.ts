import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * svckit's version, from the package.json above this module: found by walking up, since the module
 * runs from the sources (`generator/`) or compiled (`dist/generator/`).
 */
export function svckitVersion(): string {
  if (cached !== undefined) return cached;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'svckit' && pkg.version) return (cached = pkg.version);
    } catch {
      // No package.json here: keep walking up.
    }
    if (dirname(dir) === dir) throw new Error('svckit: cannot find its own package.json');
  }
}
