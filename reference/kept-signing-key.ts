/**
 * The service-account signing key a server generates when no `--service-account-signing-key-file`
 * names one. Whoever reads it can sign a token for any service account (cluster-admin's included),
 * so it is never kept in the clear in the store:
 *
 * - `sqlite:<path>`: the file `pki/sa.key` beside the database (kubeadm's name), 0600 in a 0700
 *   folder; tokens survive a restart on the same database.
 * - `etcd://...`: replicas share the store and must sign with one key. It is kept in the store
 *   only sealed by the encryption-at-rest provider of `secrets`; without one the server refuses to
 *   start: as upstream, every replica is given the same key file by flag.
 * - `memory` (or a store the caller opened and did not name): a key of this process, gone with
 *   it, as the objects are.
 *
 * A key an older svckit kept in the clear in the store is removed at start, with a line saying so.
 * It is replaced, not moved: the store file was readable by other users, so it must be taken as known.
 */
import { dirname, join, resolve } from 'node:path';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type SigningKey, generateSigningKey, signingKeyFromPem, signingKeyPem } from '../runtime/auth/index.js';
import type { EncryptionAtRest } from '../runtime/encryption/index.js';
import { checkSecretFile, privateFolder } from '../runtime/files/index.js';
import type { Store } from '../runtime/store/index.js';

/** No place to keep a generated key (replicas on etcd without encryption): `svckit serve` reports it as a usage error (exit 2). */
export class SigningKeyPlaceError extends Error {
  override readonly name = 'SigningKeyPlaceError';
}

/** Where an older svckit kept the key in the clear, and where a sealed key is kept: outside every resource prefix, so no list, watch or `reset()` sees it. */
export const KEPT_SIGNING_KEY = '/svckit/service-account-signing-key';

/** The marker every sealed value starts with, whatever the provider. */
const SEALED = 'k8s:enc:';

type Providers = ReturnType<EncryptionAtRest['providersFor']>;

export type KeptKeyPlace = { kind: 'process' } | { kind: 'file'; path: string } | { kind: 'sealed'; providers: Providers };

/** The key file of a SQLite store at `database`. */
export function signingKeyFileOf(database: string): string {
  return join(dirname(resolve(database)), 'pki', 'sa.key');
}

/**
 * Where a server on `storeSpec` (its `--store`; undefined for a store opened by the caller) keeps
 * its generated key. SigningKeyPlaceError on etcd without an encryption provider for `secrets`.
 */
export function keptKeyPlace(storeSpec: string | undefined, encryption: EncryptionAtRest | undefined): KeptKeyPlace {
  if (storeSpec?.startsWith('sqlite:') && storeSpec !== 'sqlite::memory:') {
    return { kind: 'file', path: signingKeyFileOf(storeSpec.slice('sqlite:'.length)) };
  }
  if (storeSpec?.startsWith('etcd://')) {
    const providers = encryption?.providersFor('', 'secrets');
    if (providers && providers.writeKeyName !== 'identity') return { kind: 'sealed', providers };
    throw new SigningKeyPlaceError(
      'replicas on one etcd must sign service-account tokens with one key: give every replica the same ' +
        '--service-account-signing-key-file (as upstream), or an --encryption-provider-config that encrypts ' +
        'secrets, to keep a generated key sealed in the store',
    );
  }
  return { kind: 'process' };
}

/** The generated key at `place`, made by the first server to need it. */
export async function keptSigningKey(place: KeptKeyPlace, store: Store): Promise<SigningKey> {
  if (place.kind === 'file') return fileKey(place.path);
  if (place.kind === 'sealed') return sealedKey(place.providers, store);
  return generateSigningKey();
}

/** Removes a key an older svckit kept in the clear in the store; `log` says so. */
export async function removeClearKey(store: Store, log: (line: string) => void): Promise<void> {
  const kept = await store.get(KEPT_SIGNING_KEY);
  if (!kept || kept.value.startsWith(SEALED)) return;
  try {
    await store.delete(KEPT_SIGNING_KEY, { expectedModRevision: kept.modRevision });
  } catch {
    return; // another replica removed it first
  }
  log(
    `removed the service-account signing key an older svckit kept unencrypted in the store at ${KEPT_SIGNING_KEY}: ` +
      'other users may have read it, so tokens it signed no longer verify and a new key signs',
  );
}

/** The key in `path`, made there (0600, in a 0700 folder) when absent; a file others could read is refused. */
function fileKey(path: string): SigningKey {
  privateFolder(dirname(path));
  // In a folder only this user may write, a file there was made by this user.
  if (existsSync(path)) {
    checkSecretFile(path);
    const pem = readFileSync(path, 'utf8');
    if (pem.trim() !== '') return signingKeyFromPem(pem, path);
  }
  const key = generateSigningKey();
  writeFileSync(path, signingKeyPem(key), { mode: 0o600 });
  return key;
}

/** The key sealed in the store, created by the first replica to start; re-sealed with the current provider key when read with an older one. */
async function sealedKey(providers: Providers, store: Store): Promise<SigningKey> {
  const source = `the store's ${KEPT_SIGNING_KEY}`;
  const kept = await store.get(KEPT_SIGNING_KEY);
  if (kept) {
    const { value, stale } = await providers.read(kept.value, KEPT_SIGNING_KEY);
    if (stale) {
      const resealed = await providers.write(value, KEPT_SIGNING_KEY);
      await store.update(KEPT_SIGNING_KEY, resealed, { expectedModRevision: kept.modRevision }).catch(() => {}); // another replica did
    }
    return signingKeyFromPem(value, source);
  }
  const key = generateSigningKey();
  try {
    await store.create(KEPT_SIGNING_KEY, await providers.write(signingKeyPem(key), KEPT_SIGNING_KEY));
    return key;
  } catch {
    // Another replica won the race: sign with its key.
    return sealedKey(providers, store);
  }
}
