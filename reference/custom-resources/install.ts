/**
 * CustomResourceDefinitions given at start (`svckit serve --crds`, the reference server's `crds`
 * option): applied through the server's own API, then waited for until served.
 */
import { SPEC_GROUP_SUFFIX, apiVersionWithSuffix } from '../../runtime/api/index.js';
import type { LoopbackClient } from '../loopback-client.js';
import { untilDefinitionServed } from './readiness.js';

/** One CustomResourceDefinition read from a file. */
export interface DefinitionFile {
  file: string;
  object: { metadata?: { name?: string } } & Record<string, unknown>;
}

/** A definition the server refused or did not serve in time: `svckit serve` prints the one line and exits 2. */
export class DefinitionInstallError extends Error {
  override readonly name = 'DefinitionInstallError';
  readonly exitCode = 2;
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
      throw new DefinitionInstallError(
        `--crds ${file}: this server does not serve CustomResourceDefinitions (its kinds come from --schemas)`,
      );
    }
    if (reply.status !== 200 && reply.status !== 201)
      throw new DefinitionInstallError(`--crds ${file}: ${messageOf(reply.text) ?? `status ${reply.status}`}`);
  }
  for (const { file, object } of crds) {
    const name = encodeURIComponent(object.metadata?.name ?? '');
    try {
      await untilDefinitionServed((path) => client('GET', path), `${collection}/${name}`);
    } catch (e) {
      throw new DefinitionInstallError(`--crds ${file}: ${(e as Error).message}`);
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
