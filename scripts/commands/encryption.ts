/**
 * `svckit encryption rewrite`: the last step of a key rotation. Every stored object of the
 * configured resources is written again with the first provider's key, straight through the
 * store's conditional writes, with a progress bar on a TTY (plain lines otherwise) and a count
 * per key name at the end.
 */
import { parseCommandLine } from './parse-command-line.js';
import { allKinds } from '../../generated/kinds.js';
import { isStatusError } from '../../runtime/api/index.js';
import {
  type EncryptionAtRest,
  type RewriteProgress,
  type StoredResource,
  encryptStore,
  rewriteStored,
} from '../../runtime/encryption/index.js';
import { ResourceRegistry } from '../../runtime/server/index.js';
import { type Store, createStore, isStoreConfigError } from '../../runtime/store/index.js';
import { DEFAULT_STORE } from '../../reference/index.js';
import { projectKinds, storedDefinitionResources } from '../../reference/custom-resources/index.js';
import { loadEncryptionConfig } from './serve-encryption.js';
import { UsageError } from './usage-error.js';

export const ENCRYPTION_USAGE = `svckit encryption rewrite --encryption-provider-config <file> [--store sqlite:<path>|etcd://host:port[,...][?prefix=/p]]
             [--schemas <dir>]`;

export const ENCRYPTION_HELP = `usage: ${ENCRYPTION_USAGE}

Rewrites every stored object of the resources the configuration names with its first provider's
key (a rotation: add the new key second, restart every server, move it first, restart, rewrite,
then remove the old key). Writes are conditional on the revision read, so servers on the same
etcd may keep running; a SQLite file belongs to one process: stop its server first.
Prints a progress bar on a TTY, plain lines otherwise, and how many objects each key held.
`;

export async function encryptionCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'rewrite')
    throw new UsageError(sub ? `unknown encryption command "${sub}"; expected rewrite` : 'svckit encryption needs a command: rewrite');
  const { values } = parseCommandLine({
    args: rest,
    options: {
      'encryption-provider-config': { type: 'string' },
      store: { type: 'string', default: DEFAULT_STORE },
      schemas: { type: 'string', multiple: true },
    },
    strict: true,
  });
  const file = values['encryption-provider-config'];
  if (!file) throw new UsageError('svckit encryption rewrite needs --encryption-provider-config <file>');
  const kinds = values.schemas ? (await projectKinds(values.schemas, 'encryption rewrite')).kinds : allKinds;
  const encryption = await loadEncryptionConfig(file);
  const registry = new ResourceRegistry(kinds);
  let resources: readonly StoredResource[] = registry.resources();
  let backend: Store;
  try {
    backend = await createStore(values.store);
  } catch (e) {
    encryption.close();
    // A SQLite file its server still holds, or etcd down: say so, without a stack.
    if (isStoreConfigError(e)) throw e;
    process.stderr.write(`svckit encryption rewrite: --store ${values.store}: ${(e as Error).message}\n`);
    return 1;
  }
  const store = encryptStore(backend, encryption, () => resources);
  const progress = new Progress(process.stderr);
  try {
    // The resources of the CustomResourceDefinitions in the store too (their definitions read through the encryption).
    resources = [...resources, ...(await storedDefinitionResources(store, registry))];
    const result = await rewriteStored(store, resources, (p) => progress.update(p));
    progress.clear();
    const out = process.stdout;
    out.write(`rewrote ${result.rewritten} of ${result.total} objects with ${listWriteKeys(encryption, resources)}\n`);
    for (const [name, count] of [...result.byKey].sort(([a], [b]) => a.localeCompare(b))) out.write(`  ${name}: ${count}\n`);
    return 0;
  } catch (e) {
    // An object no configured key opens (a key removed before the rewrite): name it and stop.
    if (!isStatusError(e)) throw e;
    progress.clear();
    process.stderr.write(`svckit encryption rewrite: ${e.message}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

/** The write key of each configured resource, once each. */
function listWriteKeys(encryption: EncryptionAtRest, resources: readonly { group: string; resource: string }[]): string {
  const names = new Set(
    resources.filter((r) => encryption.covers(r.group, r.resource)).map((r) => encryption.providersFor(r.group, r.resource).writeKeyName),
  );
  return names.size === 0 ? 'no configured resource' : [...names].sort().join(', ');
}

/** A bar redrawn in place on a TTY; elsewhere a plain line per tenth of the work. */
class Progress {
  #lastTenth = -1;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  update(p: RewriteProgress): void {
    if (this.stream.isTTY) {
      const width = 30;
      const filled = Math.round((p.done / Math.max(1, p.total)) * width);
      const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} ${p.key}`;
      this.stream.write(`\r\x1b[2K${line.slice(0, (this.stream.columns ?? 100) - 1)}`);
      return;
    }
    const tenth = Math.floor((p.done / Math.max(1, p.total)) * 10);
    if (tenth === this.#lastTenth) return;
    this.#lastTenth = tenth;
    this.stream.write(`rewrite: ${p.done}/${p.total}\n`);
  }

  clear(): void {
    if (this.stream.isTTY) this.stream.write('\r\x1b[2K');
  }
}
