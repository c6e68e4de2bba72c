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
 * `memory`, or `sqlite:<path>` (parent folders are created; `sqlite::memory:` is a throwaway
 * database). Async so that a networked backend (etcd) can connect before answering.
 */
export async function createStore(spec: string, options: StoreOptions = {}): Promise<Store> {
  if (spec === 'memory') return new MemoryStore(options);
  if (spec.startsWith('sqlite:')) {
    const path = spec.slice('sqlite:'.length);
    if (path === '') throw new StoreConfigError(`store "${spec}" names no file; expected sqlite:<path>`);
    const SqliteStore = await loadSqliteStore();
    if (path === ':memory:') return new SqliteStore(path, options);
    const file = resolve(path);
    mkdirSync(dirname(file), { recursive: true });
    return new SqliteStore(file, options);
  }
  throw new StoreConfigError(`unknown store "${spec}"; expected "memory" or "sqlite:<path>"`);
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
