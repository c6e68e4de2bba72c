/** Picks a backend from the server's `--store` value. */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MemoryStore } from './memory-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store, StoreOptions } from './types.js';

/**
 * `memory`, or `sqlite:<path>` (parent folders are created; `sqlite::memory:` is a throwaway
 * database). Async so that a networked backend (etcd) can connect before answering.
 */
export async function createStore(spec: string, options: StoreOptions = {}): Promise<Store> {
  if (spec === 'memory') return new MemoryStore(options);
  if (spec.startsWith('sqlite:')) {
    const path = spec.slice('sqlite:'.length);
    if (path === '') throw new Error(`store "${spec}" names no file; expected sqlite:<path>`);
    if (path === ':memory:') return new SqliteStore(path, options);
    const file = resolve(path);
    mkdirSync(dirname(file), { recursive: true });
    return new SqliteStore(file, options);
  }
  throw new Error(`unknown store "${spec}"; expected "memory" or "sqlite:<path>"`);
}
