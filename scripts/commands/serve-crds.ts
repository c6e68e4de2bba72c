import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DefinitionFile } from '../../reference/custom-resources/index.js';
import { UsageError } from './usage-error.js';

/** The `svckit serve` flag that installs CustomResourceDefinitions at start, as a parseArgs option fragment. */
export const SERVE_CRD_OPTIONS = {
  crds: { type: 'string', multiple: true },
} as const;

export const SERVE_CRD_USAGE = '[--crds <dir or file> ...]';

/**
 * `--crds`: every CustomResourceDefinition in the files given and the `.yaml`, `.yml` and `.json`
 * files below the folders given (other manifests are skipped, as kubectl apply of a folder of CRDs
 * would not skip them but a test folder often holds them). A missing path or a file that is not
 * YAML is a usage error, before the server starts.
 */
export async function crdsFromFlags(values: { crds?: string[] }): Promise<{ crds?: DefinitionFile[] }> {
  if (!values.crds) return {};
  // js-yaml only when there are files to read: a start without --crds need not load it (issue 27).
  const { loadAll } = await import('js-yaml');
  const crds: DefinitionFile[] = [];
  for (const path of values.crds) {
    for (const file of filesOf(path)) {
      let docs: unknown[];
      try {
        docs = loadAll(readFileSync(file, 'utf8'));
      } catch (e) {
        throw new UsageError(`--crds ${file}: not valid YAML: ${(e as Error).message.split('\n')[0]}`);
      }
      for (const doc of docs) if (isDefinition(doc)) crds.push({ file, object: doc });
    }
  }
  if (crds.length === 0) throw new UsageError(`--crds ${values.crds.join(' ')}: no CustomResourceDefinition found`);
  return { crds };
}

function filesOf(path: string): string[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    throw new UsageError(`--crds ${path}: no such file or folder`);
  }
  if (!stat.isDirectory()) return [path];
  // Subfolders too, as codegen and validate read a folder.
  return (readdirSync(path, { recursive: true }) as string[])
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => join(path, f));
}

function isDefinition(doc: unknown): doc is DefinitionFile['object'] {
  const d = doc as { kind?: unknown; apiVersion?: unknown } | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    d.kind === 'CustomResourceDefinition' &&
    typeof d.apiVersion === 'string' &&
    d.apiVersion.startsWith('apiextensions.')
  );
}
