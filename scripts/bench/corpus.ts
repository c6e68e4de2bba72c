import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The CRD folders of a real-world corpus (CRDs written outside this project) named by
 * `SVCKIT_CORPUS=<dir>`, for benchmarks that add it to the fixtures; none when it is unset.
 */
export function corpusFolders(): string[] {
  const dir = process.env.SVCKIT_CORPUS;
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => resolve(join(dir, e.name)))
    .sort();
}
