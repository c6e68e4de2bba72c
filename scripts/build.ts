/**
 * `npm run build`: compiles the shipped sources to `dist/` (ESM JavaScript with declaration files)
 * and copies the data files they read at run time beside them, at the same relative paths, so
 * that `import.meta.url`-relative reads work the same from the sources and from `dist/`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');

/** Data read at run time: the built-in schemas (codegen's meta types), the kit's scenarios and catalogues, the .proto files. */
const ASSETS: { from: string; match: RegExp }[] = [
  { from: 'schemas', match: /\.ya?ml$/ },
  { from: 'conformance', match: /\.ya?ml$/ },
  { from: 'generated', match: /\.proto$/ },
];

const started = performance.now();
rmSync(DIST, { recursive: true, force: true });
execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
let copied = 0;
for (const { from, match } of ASSETS) {
  for (const entry of readdirSync(join(ROOT, from), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !match.test(entry.name) || entry.parentPath.includes('testdata')) continue;
    const source = join(entry.parentPath, entry.name);
    const target = join(DIST, relative(ROOT, source));
    cpSync(source, target);
    copied++;
  }
}
process.stderr.write(`build: dist/ compiled and ${copied} data files copied in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
