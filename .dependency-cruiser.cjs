/**
 * The layering rules of DESIGN.md, checked (`npm run check:boundaries`):
 * - runtime/ never imports generated/, reference/ or scripts/, except in tests and test support;
 * - reference/ (the reference server: runtime + generated + the built-in kinds' behaviour) never
 *   imports scripts/, tests included; scripts/ reach reference/ through its faces like any folder;
 * - generator/ imports nothing outside itself, except in tests;
 * - conformance/ imports nothing from runtime/ or generated/ (it must judge any server);
 * - code outside a folder with a face (index.ts) imports that face, never a file behind it;
 *   generated/ may reach its own siblings, scripts/ go through faces too;
 * - runtime/audit and runtime/metrics are libraries below the server: they never import it;
 * - test support (*.testing.ts) is imported only by tests, other test support and scripts;
 * - no import cycles, type-only imports included.
 */
const { readdirSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const TEST = '\\.(test|testing)\\.ts$';
const AREAS = ['runtime', 'generator', 'generated', 'reference', 'conformance', 'scripts', 'bin'];

/** Folders with a face (an index.ts). generated/'s own top-level files (client, kinds, openapi, index) are all entry points. */
function faceFolders() {
  const out = [];
  const walk = (dir) => {
    if (dir !== 'generated' && existsSync(join(dir, 'index.ts'))) out.push(dir);
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) walk(join(dir, e.name));
  };
  for (const area of AREAS) if (existsSync(area)) walk(area);
  return out;
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One rule per face folder F: code outside F imports F/index.ts, never another file under F. Files
 * under F, in any subfolder, are inside the module and may import each other; so may a sub-module
 * import files of the module that encloses it (hono's trie-router imports ../../router), because
 * the enclosing face re-exports the sub-module and importing that face would be a cycle. A file
 * under a deeper face folder is judged by that folder's rule. generated/ may reach its siblings.
 */
function throughTheFace() {
  const faces = faceFolders();
  return faces.map((face) => ({
    name: 'through-the-face',
    comment: `Import ${face}/index.ts, not the files behind it.`,
    severity: 'error',
    from: { pathNot: [`^${escapeRegExp(face)}/`, ...(face.startsWith('generated/') ? ['^generated/'] : [])] },
    to: {
      path: `^${escapeRegExp(face)}/`,
      pathNot: [
        `^${escapeRegExp(face)}/index\\.ts$`,
        '\\.testing\\.ts$',
        ...faces.filter((f) => f.startsWith(`${face}/`)).map((f) => `^${escapeRegExp(f)}/`),
      ],
    },
  }));
}

module.exports = {
  forbidden: [
    {
      name: 'runtime-not-to-generated-reference-or-scripts',
      comment:
        'runtime/ is generic: the built-in kinds (generated/), the reference server (reference/) and the CLI (scripts/) sit above it. Tests and *.testing.ts may import them.',
      severity: 'error',
      from: { path: '^runtime/', pathNot: TEST },
      to: { path: '^(generated|reference|scripts)/' },
    },
    {
      name: 'reference-not-to-scripts',
      comment: 'The reference server is a library the CLI (scripts/) wires from flags; it never reaches back into the CLI.',
      severity: 'error',
      from: { path: '^reference/' },
      to: { path: '^scripts/' },
    },
    {
      name: 'generator-stands-alone',
      comment:
        'The generator reads schemas and writes files; it imports nothing of the project but itself. Its tests may import the runtime.',
      severity: 'error',
      from: { path: '^generator/', pathNot: TEST },
      to: { path: '^(runtime|generated|conformance|scripts)/' },
    },
    {
      name: 'conformance-independent',
      comment: 'The kit judges any server over HTTP; reusing the runtime would hide shared bugs.',
      severity: 'error',
      from: { path: '^conformance/' },
      to: { path: '^(runtime|generated)/' },
    },
    {
      name: 'encryption-between-store-and-server',
      comment:
        'runtime/encryption wraps a Store and is used by the server: it reads configuration files and stores, never the server, client or auth areas; the store knows nothing of it.',
      severity: 'error',
      from: { path: '^runtime/encryption/', pathNot: TEST },
      to: { path: '^runtime/(server|client|client-node|webhook|auth|apply|patch)/' },
    },
    {
      name: 'store-below-encryption',
      comment: 'Backends hold opaque values; encryption is a layer above them.',
      severity: 'error',
      from: { path: '^runtime/store/' },
      to: { path: '^runtime/encryption/' },
    },
    ...throughTheFace(),
    {
      name: 'audit-and-metrics-below-the-server',
      comment:
        "runtime/audit (policy, events, backends) and runtime/metrics (the registry and named metrics) are used by the server's stages and by plugins; they never import the server or the client.",
      severity: 'error',
      from: { path: '^runtime/(audit|metrics)/' },
      to: { path: '^runtime/(server|client|client-node)/' },
    },
    {
      name: 'test-support-not-shipped',
      comment: '*.testing.ts is for tests (and benches and checks in scripts/), never for shipped code.',
      severity: 'error',
      from: { pathNot: [TEST, '^scripts/'] },
      to: { path: '\\.testing\\.ts$' },
    },
    {
      name: 'no-cycles',
      comment: 'A cycle, even through type-only imports, means two files cannot be read one after the other.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.git)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      extensions: ['.ts', '.js', '.cjs', '.mjs', '.json'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
