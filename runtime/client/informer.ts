import { Backoff, type BackoffOptions } from './backoff.js';
import { isAbort } from './errors.js';
import { type ReflectOptions, type ReflectorEvent, type WatchSource, reflect } from './reflector.js';
import { type ApiObject, objectKey } from './types.js';

/** Values an object is indexed under (an object may have several, or none). */
export type IndexFunction<T> = (object: T) => string[];

/** Index by namespace. */
export const byNamespace = <T extends ApiObject>(object: T): string[] => (object.metadata?.namespace ? [object.metadata.namespace] : []);

/** Index by the value of one label. */
export function byLabel<T extends ApiObject>(label: string): IndexFunction<T> {
  return (object) => {
    const value = object.metadata?.labels?.[label];
    return value === undefined ? [] : [value];
  };
}

export interface EventHandler<T> {
  /** `initialList`: the object came with the first sync rather than a later change. */
  onAdd?(object: T, initialList: boolean): void;
  onUpdate?(previous: T, object: T): void;
  onDelete?(object: T): void;
}

export interface InformerOptions<T> extends Omit<ReflectOptions, 'resourceVersion' | 'signal' | 'backoff'> {
  /** Named index functions; `byNamespace` and `byLabel('app')` are ready-made. */
  indexers?: Record<string, IndexFunction<T>>;
  /** Every this many milliseconds each cached object is delivered again as an update; 0 (default) never. */
  resyncPeriodMs?: number;
  /** Backoff of the watch's own retries and of restarts after a failed watch. */
  backoff?: BackoffOptions;
  /** Told about every failure; the informer retries after a jittered backoff. */
  onError?: (error: unknown) => void;
}

/**
 * A local cache of a collection, kept in sync by list then watch (with watch-list where the server
 * supports it), with indexes and add/update/delete handlers. It never stops by itself: every
 * failure, even a non-retryable one such as a 403, is reported to `onError` and retried after a
 * jittered backoff, keeping the cache, until `stop()`.
 */
export class Informer<T extends ApiObject> {
  private readonly cache = new Map<string, T>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();
  private readonly handlers = new Set<EventHandler<T>>();
  private readonly stopper = new AbortController();
  private readonly syncWaiters: (() => void)[] = [];
  private synced = false;
  private initialList = true;
  private running: Promise<void> | undefined;
  private resyncTimer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly source: WatchSource<T>,
    private readonly options: InformerOptions<T> = {},
  ) {
    for (const name of Object.keys(options.indexers ?? {})) this.indexes.set(name, new Map());
  }

  /** Adds handlers; returns a function that removes them. Objects already cached are delivered as adds. */
  addEventHandler(handler: EventHandler<T>): () => void {
    this.handlers.add(handler);
    for (const object of this.cache.values()) handler.onAdd?.(object, true);
    return () => this.handlers.delete(handler);
  }

  /** Starts list and watch in the background; resolves at once (see `waitForSync`). */
  start(): this {
    if (this.running) return this;
    this.running = this.run();
    const period = this.options.resyncPeriodMs ?? 0;
    if (period > 0) this.resyncTimer = setInterval(() => this.resync(), period);
    return this;
  }

  /** Stops watching; resolves when the watch has ended. The cache stays readable. */
  async stop(): Promise<void> {
    this.stopper.abort();
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    await this.running;
  }

  /** True once the cache holds the whole collection as of one moment (the first sync is done). */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once synced; rejects when `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      this.syncWaiters.push(resolve);
    });
  }

  /** The cached object by name (and namespace for namespaced kinds). */
  get(name: string, namespace?: string): T | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  /** Every cached object. */
  list(): T[] {
    return [...this.cache.values()];
  }

  /** `namespace/name` keys of the cache. */
  keys(): string[] {
    return [...this.cache.keys()];
  }

  /** The cached objects an index maps `value` to. */
  byIndex(index: string, value: string): T[] {
    const entries = this.indexes.get(index);
    if (!entries)
      throw new RangeError(`no index named ${JSON.stringify(index)}; indexers: ${[...this.indexes.keys()].join(', ') || 'none'}`);
    return [...(entries.get(value) ?? [])].map((key) => this.cache.get(key)!).filter((o) => o !== undefined);
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    const restart = new Backoff(this.options.backoff);
    const { indexers: _indexers, resyncPeriodMs: _resync, onError, ...reflectOptions } = this.options;
    while (!signal.aborted) {
      try {
        const events = reflect(this.source, { ...reflectOptions, onRetry: onError, signal }, this.cache);
        for await (const event of events) {
          this.apply(event);
          restart.reset();
        }
      } catch (e) {
        if (isAbort(e, signal)) return;
        onError?.(e);
      }
      try {
        await restart.wait(signal);
      } catch {
        return;
      }
    }
  }

  private apply(event: ReflectorEvent<T>): void {
    switch (event.type) {
      case 'SYNCED':
        this.initialList = false;
        if (!this.synced) {
          this.synced = true;
          for (const resolve of this.syncWaiters.splice(0)) resolve();
        }
        return;
      case 'BOOKMARK':
        return;
      case 'ADDED':
        this.index(event.object, undefined);
        for (const h of this.handlers) h.onAdd?.(event.object, this.initialList);
        return;
      case 'MODIFIED':
        this.index(event.object, event.previous);
        for (const h of this.handlers) h.onUpdate?.(event.previous, event.object);
        return;
      case 'DELETED':
        this.index(undefined, event.previous);
        for (const h of this.handlers) h.onDelete?.(event.previous);
    }
  }

  private index(object: T | undefined, previous: T | undefined): void {
    const key = objectKey((object ?? previous)!);
    for (const [name, fn] of Object.entries(this.options.indexers ?? {})) {
      const entries = this.indexes.get(name)!;
      for (const value of previous ? fn(previous) : []) entries.get(value)?.delete(key);
      for (const value of object ? fn(object) : []) {
        let keys = entries.get(value);
        if (!keys) entries.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  private resync(): void {
    for (const object of this.cache.values()) for (const h of this.handlers) h.onUpdate?.(object, object);
  }
}
