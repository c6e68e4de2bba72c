/**
 * Encryption at rest in front of any backend, where upstream has it: in the storage layer, with
 * the storage key as the value's context. A store wrapper seals values on create and update and
 * opens them on every read, list, delete and watch event, so the backend (SQLite file, etcd)
 * holds only what the first provider of each resource wrote. Keys that belong to no served
 * resource (the server's own records) pass through untouched.
 */
import { internalError } from '../api/index.js';
import {
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Store,
  StoreClosedError,
  type Watch,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from '../store/index.js';
import type { EncryptionAtRest } from './config.js';
import { type ProviderList, type ReadValue, isTransformError } from './transformer.js';

/** A served resource as far as encryption cares: its name and where its objects are stored. */
export interface StoredResource {
  group: string;
  resource: string;
  /** The key prefix of every object of the resource (`ServedResource.storagePrefix`). */
  storagePrefix: string;
}

/**
 * The served resources, or where to read them when they change while the server runs (resources
 * defined by a CustomResourceDefinition after start): a function returning a new array after
 * every change, as `ResourceRegistry.resources` does.
 */
export type StoredResources = readonly StoredResource[] | (() => readonly StoredResource[]);

/** The backend `inner` behind `encryption`'s providers for `resources`. */
export function encryptStore(inner: Store, encryption: EncryptionAtRest, resources: StoredResources): EncryptingStore {
  return new EncryptingStore(inner, encryption, resources);
}

/**
 * True when the stored value of `key` at `modRevision` was read with a key other than the one
 * writes use now: an update must rewrite it even when the object is unchanged (upstream's stale
 * read in GuaranteedUpdate), which is how `svckit encryption rewrite` and a plain replace rotate.
 */
export async function isStaleValue(store: Store, key: string, modRevision: number): Promise<boolean> {
  return store instanceof EncryptingStore ? store.isStale(key, modRevision) : false;
}

export class EncryptingStore implements Store {
  #byPrefix = new Map<string, ProviderList>();
  /** The resource list #byPrefix was built from; a new one from the source rebuilds it. */
  #builtFrom: readonly StoredResource[] | undefined;
  readonly #resources: () => readonly StoredResource[];
  /** Each backend event is opened once, however many watchers share it. */
  readonly #opened = new WeakMap<WatchEvent, Promise<WatchEvent>>();
  /**
   * Writes still sealing their value, not yet handed to the backend: close waits for them, as a
   * Store commits the writes issued before its close.
   */
  readonly #writing = new Set<Promise<unknown>>();
  #closed = false;

  constructor(
    readonly inner: Store,
    readonly encryption: EncryptionAtRest,
    resources: StoredResources,
  ) {
    this.#resources = typeof resources === 'function' ? resources : () => resources;
  }

  /** The providers of the resource `key` belongs to; undefined for keys of no resource. */
  providersOf(key: string): ProviderList | undefined {
    const resources = this.#resources();
    if (resources !== this.#builtFrom) {
      // Checked on every key: a resource defined after start is encrypted from its first object.
      this.#byPrefix = new Map(resources.map((r) => [r.storagePrefix, this.encryption.providersFor(r.group, r.resource)]));
      this.#builtFrom = resources;
    }
    // The longest resource prefix of the key (a resource's prefix may contain another's).
    for (let i = key.lastIndexOf('/'); i > 0; i = key.lastIndexOf('/', i - 1)) {
      const providers = this.#byPrefix.get(key.slice(0, i + 1));
      if (providers) return providers;
    }
    return undefined;
  }

  /**
   * Opens a stored value (see {@link ProviderList.read}); a value of no resource is returned as it
   * is. One that cannot be opened is the server's fault, not the client's: a 500 Status, as upstream.
   */
  async read(key: string, stored: string): Promise<ReadValue> {
    try {
      return await this.#read(key, stored);
    } catch (e) {
      throw isTransformError(e) ? Object.assign(internalError(e), { cause: e }) : e;
    }
  }

  async #read(key: string, stored: string): Promise<ReadValue> {
    const providers = this.providersOf(key);
    return providers ? providers.read(stored, key) : { value: stored, stale: false, keyName: 'identity' };
  }

  async write(key: string, value: string): Promise<string> {
    const providers = this.providersOf(key);
    return providers ? providers.write(value, key) : value;
  }

  async isStale(key: string, modRevision: number): Promise<boolean> {
    const raw = await this.inner.get(key);
    if (!raw || raw.modRevision !== modRevision) return false;
    return (await this.read(key, raw.value)).stale;
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  async get(key: string, options?: { revision?: number }): Promise<KeyValue | undefined> {
    const kv = await this.inner.get(key, options);
    return kv && this.#open(kv);
  }

  async list(prefix: string, options?: ListOptions): Promise<ListResult> {
    const result = await this.inner.list(prefix, options);
    return { ...result, items: await Promise.all(result.items.map((kv) => this.#open(kv))) };
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.#issue(async () => ({ ...(await this.inner.create(key, await this.write(key, value))), value }));
  }

  update(key: string, value: string, options?: WriteOptions): Promise<KeyValue> {
    return this.#issue(async () => ({ ...(await this.inner.update(key, await this.write(key, value), options)), value }));
  }

  /** Starts a sealed write, unless the store is closing; close waits for it. */
  #issue(write: () => Promise<KeyValue>): Promise<KeyValue> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    const pending = write();
    const done = () => this.#writing.delete(pending);
    this.#writing.add(pending);
    pending.then(done, done);
    return pending;
  }

  async delete(key: string, options?: WriteOptions): Promise<KeyValue> {
    return this.#open(await this.inner.delete(key, options));
  }

  watch(prefix: string, fromRevision: number, options?: WatchOptions): Watch {
    // Options pass through: the watch cache below shares one backend watch per resource.
    const inner = this.inner.watch(prefix, fromRevision, options);
    const open = (event: WatchEvent) => {
      let opened = this.#opened.get(event);
      if (!opened) this.#opened.set(event, (opened = this.#openEvent(event)));
      return opened;
    };
    return {
      close: () => inner.close(),
      async *[Symbol.asyncIterator]() {
        for await (const event of inner) yield await open(event);
      },
    };
  }

  waitForRevision(revision: number, timeoutMs: number): Promise<void> {
    return this.inner.waitForRevision(revision, timeoutMs);
  }

  compact(): Promise<void> {
    return this.inner.compact();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled(this.#writing);
    this.encryption.close();
    await this.inner.close();
  }

  async #open(kv: KeyValue): Promise<KeyValue> {
    return { ...kv, value: (await this.read(kv.key, kv.value)).value };
  }

  /** The watch handler turns a failure into an ERROR event (a 500 Status) itself: it gets the plain error. */
  async #openEvent(event: WatchEvent): Promise<WatchEvent> {
    const value = (await this.#read(event.key, event.value)).value;
    if (event.prevValue === undefined) return { ...event, value };
    return { ...event, value, prevValue: (await this.#read(event.key, event.prevValue)).value };
  }
}
