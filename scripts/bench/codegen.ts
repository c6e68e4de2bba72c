import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { codegen, loadSchemas } from '../../generator/index.js';
import { openApiDocument } from '../../generator/emit/index.js';
import { corpusFolders } from './corpus.js';
import { type BenchCase, runCases } from './harness.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const CRDS = join(ROOT, 'generator/testdata/crds');

/**
 * Codegen time, from schema files on disk to TypeScript files on disk, beside openapi-typescript
 * turning the same schemas into one TypeScript file. For CRDs, two peers: one starting from the
 * same YAML files (read with js-yaml, the parser svckit's loader uses, into one OpenAPI v3
 * document in memory), and one handed that document as JSON on disk (reading the CRDs left out).
 */
export async function benchCodegen(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svckit-bench-'));
  const crdCases = (name: string, dir: string): BenchCase[] => [
    codegenCase(`${name}, from the YAML`, [dir], work, {
      name: 'js-yaml + openapi-typescript',
      document: () => crdsAsOpenApi(dir),
    }),
    codegenCase(`${name}, peer handed JSON`, [dir], work, {
      name: 'openapi-typescript',
      document: fileOf(crdsAsOpenApi(dir), work, `${basename(dir)}-openapi.json`),
    }),
  ];
  const cases: BenchCase[] = [
    codegenCase('codegen: built-in schemas', [join(ROOT, 'schemas')], work, {
      name: 'openapi-typescript',
      document: fileOf(builtinAsOpenApi(), work, 'builtin-openapi.json'),
    }),
    ...crdCases('codegen: fixture CRDs', CRDS),
    ...corpusFolders().flatMap((dir) => crdCases(`codegen: ${basename(dir)} CRDs`, dir)),
  ];
  await runCases('Codegen (types) vs openapi-typescript on the same schemas', cases);
}

/** The peer: openapi-typescript on a document it is handed (a file) or builds first (timed with it). */
interface Peer {
  name: string;
  document: URL | (() => object);
}

function codegenCase(name: string, inputs: string[], work: string, peer: Peer): BenchCase {
  let n = 0;
  return {
    name,
    ours: () => codegen({ schemas: inputs, out: join(work, `ours-${n++}`), cwd: ROOT }),
    peer: {
      name: peer.name,
      run: async () => {
        const document = peer.document instanceof URL ? peer.document : peer.document();
        const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
        writeFileSync(join(work, `peer-${n++}.ts`), astToString(ast));
      },
    },
  };
}

function fileOf(document: object, work: string, name: string): URL {
  const file = join(work, name);
  writeFileSync(file, JSON.stringify(document));
  return pathToFileURL(file);
}

/** The built-in schemas as the OpenAPI v3 document the server publishes. */
function builtinAsOpenApi(): object {
  return openApiDocument(loadSchemas({ inputs: [join(ROOT, 'schemas')] }), 'svckit built-in');
}

/** Every version schema of the CRDs in `dir` as components of one OpenAPI v3 document. */
function crdsAsOpenApi(dir: string): object {
  const schemas: Record<string, unknown> = {};
  // Every YAML file below `dir`, subfolders included, as the loader reads them (kyverno keeps its CRDs in four).
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((n) => /\.ya?ml$/.test(n)).sort();
  for (const name of files) {
    for (const doc of loadAll(readFileSync(join(dir, name), 'utf8'), null, { schema: CORE_SCHEMA })) {
      const crd = doc as {
        kind?: string;
        spec: { group: string; names: { kind: string }; versions: { name: string; schema: { openAPIV3Schema: unknown } }[] };
      };
      if (crd?.kind !== 'CustomResourceDefinition') continue;
      for (const v of crd.spec.versions) schemas[`${crd.spec.group}.${v.name}.${crd.spec.names.kind}`] = v.schema.openAPIV3Schema;
    }
  }
  return { openapi: '3.0.0', info: { title: 'crds', version: 'v1' }, paths: {}, components: { schemas } };
}
