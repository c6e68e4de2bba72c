/** Picks a backend from the server's `--store` value. */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MemoryStore } from './memory-store.js';
import type { Store, StoreOptions } from './types.js';

/** A `--store` value that names no usable backend: the CLI reports it as a usage error. */
export class StoreConfigError extends Error {
  override readonly name = 'StoreConfigError';
}

export function isStoreConfigError(e: unknown): e is StoreConfigError {
  return e instanceof StoreConfigError;
}

/**
 * `memory`, `sqlite:<path>` (missing parent folders are created 0700, the file 0600; `sqlite::memory:` is a throwaway
 * database), or `etcd://host:port[,host:port...][?prefix=/p&ca=ca.pem&cert=cert.pem&key=key.pem]`:
 * the members of an etcd cluster, an optional key prefix (several servers share one cluster under
 * different prefixes; `options.keyPrefix` gives it too) and TLS from PEM files (`ca` alone for
 * server-authenticated TLS, with `cert` and `key` for mutual TLS). Async so that the etcd backend
 * connects (and fails with StoreUnavailableError when etcd does not answer) before answering.
 */
export async function createStore(spec: string, options: StoreOptions = {}): Promise<Store> {
  if (spec === 'memory') return new MemoryStore(options);
  if (spec.startsWith('sqlite:')) {
    const path = spec.slice('sqlite:'.length);
    if (path === '') throw new StoreConfigError(`store "${spec}" names no file; expected sqlite:<path>`);
    const SqliteStore = await loadSqliteStore();
    if (path === ':memory:') return new SqliteStore(path, options);
    const file = resolve(path);
    // Folders made here are the server's user's only; an existing one is the operator's choice.
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    return new SqliteStore(file, options);
  }
  if (spec.startsWith('etcd://')) {
    const connection = parseEtcdSpec(spec);
    const EtcdStore = await loadEtcdStore();
    return EtcdStore.connect({
      ...options,
      ...connection,
      keyPrefix: connection.keyPrefix ?? options.keyPrefix ?? '',
    });
  }
  throw new StoreConfigError(`unknown store "${spec}"; expected "memory", "sqlite:<path>" or "etcd://host:port"`);
}

/** The parts of an `etcd://` spec. */
function parseEtcdSpec(spec: string): { endpoints: string[]; keyPrefix?: string; tls?: { ca?: string; cert?: string; key?: string } } {
  const rest = spec.slice('etcd://'.length);
  const [hosts = '', query = ''] = rest.split('?', 2);
  const endpoints = hosts.split(',').filter((h) => h !== '');
  if (endpoints.length === 0) throw new StoreConfigError(`store "${spec}" names no etcd member; expected etcd://host:port[,host:port...]`);
  for (const endpoint of endpoints) {
    const match = /^(?:\[[0-9a-fA-F:.]+\]|[^:/[\]]+):(\d{1,5})$/.exec(endpoint);
    if (!match || Number(match[1]) > 65535) {
      throw new StoreConfigError(`etcd member "${endpoint}" in "${spec}" is not host:port`);
    }
  }
  const result: ReturnType<typeof parseEtcdSpec> = { endpoints };
  const tls: { ca?: string; cert?: string; key?: string } = {};
  for (const [name, value] of new URLSearchParams(query)) {
    if (name === 'prefix') result.keyPrefix = value;
    else if (name === 'ca' || name === 'cert' || name === 'key') tls[name] = resolve(value);
    else throw new StoreConfigError(`unknown etcd store option "${name}" in "${spec}"; expected prefix, ca, cert or key`);
  }
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    throw new StoreConfigError(`store "${spec}" needs both cert and key for a client certificate`);
  }
  if (Object.keys(tls).length > 0) result.tls = tls;
  return result;
}

/** The etcd backend, loaded only when asked for, so that client-only users never load gRPC. */
async function loadEtcdStore(): Promise<typeof import('./etcd-store.js').EtcdStore> {
  try {
    return (await import('./etcd-store.js')).EtcdStore;
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((e as Error).message).includes('@grpc/grpc-js')) {
      throw new StoreConfigError('the etcd store needs the @grpc/grpc-js package: install it with "npm install @grpc/grpc-js"');
    }
    throw e;
  }
}

/**
 * The SQLite backend, loaded only when asked for: its driver (better-sqlite3) is a native module,
 * an optional peer dependency, so that projects using only the client or codegen build nothing.
 */
async function loadSqliteStore(): Promise<typeof import('./sqlite-store.js').SqliteStore> {
  try {
    return (await import('./sqlite-store.js')).SqliteStore;
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((e as Error).message).includes('better-sqlite3')) {
      throw new StoreConfigError(
        'the SQLite store needs the better-sqlite3 package: install it with "npm install better-sqlite3", or use --store memory',
      );
    }
    throw e;
  }
}
