/**
 * `npm run build`: compiles the shipped sources to `dist/` (ESM JavaScript with declaration files)
 * and copies the data files they read at run time beside them, at the same relative paths, so
 * that `import.meta.url`-relative reads work the same from the sources and from `dist/`. Then
 * bundles the serve command into one file (serve-module.ts says why).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { SERVE_BUNDLE } from './commands/serve-module.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');

/** Data read at run time: the built-in schemas (codegen's meta types), the kit's scenarios and catalogues, the .proto files. */
const ASSETS: { from: string; match: RegExp }[] = [
  { from: 'schemas', match: /\.ya?ml$/ },
  { from: 'conformance', match: /\.ya?ml$/ },
  { from: 'generated', match: /\.proto$/ },
];

/**
 * Pure-JavaScript packages of many files, bundled with svckit's own modules; every other package
 * stays a package (native code, files read beside their modules, optional loading).
 */
const BUNDLED_PACKAGES = new Set(['yaml', '@marcbachmann/cel-js', 're2js']);

/**
 * Whether bundled `input` (a path from the root) finds its files as well from the bundle: it finds
 * none relative to itself, or it sits two folders below dist/ as the bundle does, or it walks up
 * to the package's root (version.ts).
 */
function findsFilesFromBundle(input: string): boolean {
  const text = readFileSync(join(ROOT, input), 'utf8');
  if (!text.includes('import.meta') && !text.includes('__dirname') && !text.includes('__filename')) return true;
  const own = input.startsWith('dist/') ? input.split('/').slice(1) : undefined;
  return own !== undefined && (own.length === 3 || input === 'dist/generator/version.js');
}

/**
 * The CLI recognises the commands' errors by class (usage-error.js): the bundle imports that
 * module from beside it, as the CLI does, instead of carrying a copy whose classes would differ.
 */
const sharedWithCli: Plugin = {
  name: 'shared-with-cli',
  setup(b) {
    b.onResolve({ filter: /(^|\/)usage-error\.js$/ }, () => ({ path: './usage-error.js', external: true }));
  },
};

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
const bundled = await bundleServe();
process.stderr.write(
  `build: dist/ compiled, ${copied} data files copied and serve bundled (${bundled}) in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);

/**
 * dist/scripts/commands/serve.js and what it imports, as one ESM file beside it. It sits two
 * folders below dist/ as the modules that find files through `import.meta.url` do
 * (generator/load, generator/emit), so their relative paths still lead to the same files.
 */
async function bundleServe(): Promise<string> {
  const commands = join(DIST, 'scripts/commands');
  const name = SERVE_BUNDLE.replace(/\.js$/, '');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  const packages = [pkg.dependencies, pkg.optionalDependencies, pkg.peerDependencies].flatMap((d) => Object.keys(d ?? {}));
  const result = await build({
    entryPoints: { [name]: join(commands, 'serve.js') },
    outdir: commands,
    // What serve loads only when asked for (etcd, SQLite, KMS, webhooks) stays out of the first file.
    splitting: true,
    chunkNames: `${name}-[hash]`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: packages.filter((p) => !BUNDLED_PACKAGES.has(p)),
    // The bundled packages are CommonJS that require Node's modules.
    banner: {
      js: "import { createRequire as svckitCreateRequire } from 'node:module'; const require = svckitCreateRequire(import.meta.url);",
    },
    plugins: [sharedWithCli],
    metafile: true,
    logLevel: 'warning',
  });
  const misplaced = Object.keys(result.metafile.inputs).filter((input) => !findsFilesFromBundle(input));
  if (misplaced.length > 0) {
    process.stderr.write(
      `build: these modules find files relative to themselves and would look in the wrong place from the serve bundle: ${misplaced.join(', ')}\n`,
    );
    process.exit(1);
  }
  const modules = Object.keys(result.metafile.inputs).length;
  const files = Object.keys(result.metafile.outputs);
  const first = statSync(join(commands, SERVE_BUNDLE)).size;
  return `${modules} modules into ${files.length} files, ${(first / 2 ** 20).toFixed(1)} MiB loaded first`;
}
