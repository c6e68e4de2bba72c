import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { parseAllDocuments } from 'yaml';
import { codegen, loadSchemas } from '../../generator/index.js';
import { openApiDocument } from '../../generator/emit/index.js';
import { corpusFolders } from './corpus.js';
import { type BenchCase, runCases } from './harness.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const CRDS = join(ROOT, 'generator/testdata/crds');

/**
 * Codegen time, from schema files on disk to TypeScript files on disk, beside openapi-typescript
 * turning the same schemas (as one OpenAPI v3 document on disk) into one TypeScript file.
 */
export async function benchCodegen(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svckit-bench-'));
  const cases: BenchCase[] = [
    codegenCase('codegen: built-in schemas', [join(ROOT, 'schemas')], builtinAsOpenApi(work), work),
    codegenCase('codegen: fixture CRDs', [CRDS], crdsAsOpenApi(CRDS, work), work),
    ...corpusFolders().map((dir) => codegenCase(`codegen: ${basename(dir)} CRDs`, [dir], crdsAsOpenApi(dir, work), work)),
  ];
  await runCases('Codegen (types) vs openapi-typescript on the same schemas', cases);
}

function codegenCase(name: string, inputs: string[], openapiFile: string, work: string): BenchCase {
  let n = 0;
  return {
    name,
    ours: () => codegen({ schemas: inputs, out: join(work, `ours-${n++}`), cwd: ROOT }),
    peer: {
      name: 'openapi-typescript',
      run: async () => {
        const ast = await openapiTS(pathToFileURL(openapiFile));
        writeFileSync(join(work, `peer-${n++}.ts`), astToString(ast));
      },
    },
  };
}

/** The built-in schemas as the OpenAPI v3 document the server publishes. */
function builtinAsOpenApi(work: string): string {
  const model = loadSchemas({ inputs: [join(ROOT, 'schemas')] });
  const file = join(work, 'builtin-openapi.json');
  writeFileSync(file, JSON.stringify(openApiDocument(model, 'svckit built-in')));
  return file;
}

/** Every version schema of the CRDs in `dir` as components of one OpenAPI v3 document. */
function crdsAsOpenApi(dir: string, work: string): string {
  const schemas: Record<string, unknown> = {};
  // Every YAML file below `dir`, subfolders included, as the loader reads them (kyverno keeps its CRDs in four).
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((n) => /\.ya?ml$/.test(n)).sort();
  for (const name of files) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, name), 'utf8'))) {
      const crd = doc.toJS() as {
        kind?: string;
        spec: { group: string; names: { kind: string }; versions: { name: string; schema: { openAPIV3Schema: unknown } }[] };
      };
      if (crd.kind !== 'CustomResourceDefinition') continue;
      for (const v of crd.spec.versions) schemas[`${crd.spec.group}.${v.name}.${crd.spec.names.kind}`] = v.schema.openAPIV3Schema;
    }
  }
  const file = join(work, `${dir.split('/').pop()}-openapi.json`);
  writeFileSync(file, JSON.stringify({ openapi: '3.0.0', info: { title: 'crds', version: 'v1' }, paths: {}, components: { schemas } }));
  return file;
}
