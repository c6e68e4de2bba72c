import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { SPEC_GROUP_SUFFIX, apiVersionWithSuffix } from '../../runtime/api/index.js';
import type { LoopbackClient } from '../access-control.js';
import { untilDefinitionServed } from '../crd-readiness.js';
import { CommandFailure, UsageError } from './usage-error.js';

/** The `svckit serve` flag that installs CustomResourceDefinitions at start, as a parseArgs option fragment. */
export const SERVE_CRD_OPTIONS = {
  crds: { type: 'string', multiple: true },
} as const;

export const SERVE_CRD_USAGE = '[--crds <dir or file> ...]';

/** One CustomResourceDefinition read from a file. */
export interface DefinitionFile {
  file: string;
  object: { metadata?: { name?: string } } & Record<string, unknown>;
}

/**
 * `--crds`: every CustomResourceDefinition in the files given and the `.yaml`, `.yml` and `.json`
 * files below the folders given (other manifests are skipped, as kubectl apply of a folder of CRDs
 * would not skip them but a test folder often holds them). A missing path or a file that is not
 * YAML is a usage error, before the server starts.
 */
export function crdsFromFlags(values: { crds?: string[] }): { crds?: DefinitionFile[] } {
  if (!values.crds) return {};
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

/**
 * Applies each definition through the API (server-side apply, so a definition kept from a previous
 * run is updated to the file's), then waits until every one is Established and its resource
 * answers: the server is ready when `svckit serve` says it listens. A refused definition stops the
 * start with one line, its file and the server's message (exit 2). `groupSuffix` is the server's (`--group-suffix`).
 */
export async function installDefinitions(
  client: LoopbackClient,
  crds: readonly DefinitionFile[],
  groupSuffix = SPEC_GROUP_SUFFIX,
): Promise<void> {
  // Either group suffix in the file; the server serves apiextensions under its own.
  const apiVersion = apiVersionWithSuffix('apiextensions.svc.io/v1', groupSuffix);
  const collection = `/apis/${apiVersion}/customresourcedefinitions`;
  for (const { file, object } of crds) {
    const body = { ...object, apiVersion };
    const name = encodeURIComponent(object.metadata?.name ?? '');
    const reply = await client('PATCH', `${collection}/${name}?fieldManager=svckit-crds&force=true`, body, 'application/apply-patch+yaml');
    if (reply.status === 404) {
      throw new CommandFailure(`--crds ${file}: this server does not serve CustomResourceDefinitions (its kinds come from --schemas)`, 2);
    }
    if (reply.status !== 200 && reply.status !== 201)
      throw new CommandFailure(`--crds ${file}: ${messageOf(reply.text) ?? `status ${reply.status}`}`, 2);
  }
  for (const { file, object } of crds) {
    const name = encodeURIComponent(object.metadata?.name ?? '');
    try {
      await untilDefinitionServed((path) => client('GET', path), `${collection}/${name}`);
    } catch (e) {
      throw new CommandFailure(`--crds ${file}: ${(e as Error).message}`, 2);
    }
  }
}

function messageOf(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { message?: string }).message;
  } catch {
    return undefined;
  }
}
