/**
 * A controller loop as client-go's sample-controller writes one: informers' events enqueue keys
 * (`namespace/name`) into a rate-limited work queue, and workers reconcile one key at a time,
 * reading the informers' caches. A failed reconcile is retried with the queue's backoff; a
 * `requeueAfter` result comes back after that delay; success forgets the key's failures.
 */
import { type ApiObject, type EventHandler, objectKey } from '../client/index.js';
import type { Clock } from './clock.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import type { RateLimiter } from './rate-limiter.js';

/** What a reconcile asks for besides success: to run again after a delay. */
export interface ReconcileResult {
  /** Reconcile the key again after this many milliseconds (its failure count is reset). */
  requeueAfterMs?: number;
}

/** What the controller needs of an informer (`Informer` of any kind is one). */
export interface InformerSource {
  addEventHandler(handler: EventHandler<ApiObject>): () => void;
  start(): unknown;
  stop(): Promise<void>;
  waitForSync(signal?: AbortSignal): Promise<void>;
}

export interface ControllerOptions {
  /** For errors and logs. */
  name?: string;
  /** The informers whose events enqueue keys; the controller starts them, waits for their sync and stops them when it stops. */
  informers: readonly InformerSource[];
  /**
   * The key an object's event enqueues (an owner's, for objects the controller owns); default its
   * `namespace/name`. Return undefined to ignore the event.
   */
  keyOf?: (object: ApiObject) => string | undefined;
  /** Brings the world in line with the key's object; throws to be retried with backoff. */
  // biome-ignore lint/suspicious/noConfusingVoidType: an async reconcile that returns nothing is Promise<void>.
  reconcile: (key: string) => Promise<ReconcileResult | undefined | void>;
  /** Keys reconciled at once (never the same key twice at once); default 1. */
  workers?: number;
  rateLimiter?: RateLimiter<string>;
  clock?: Clock;
  /** Told about each failed reconcile before it is retried. */
  onError?: (error: unknown, key: string) => void;
}

/** A key's namespace (undefined for a cluster-scoped object) and name: client-go's SplitMetaNamespaceKey. */
export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: undefined, name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export class Controller {
  readonly queue: RateLimitingQueue<string>;
  readonly #options: ControllerOptions;
  readonly #keyOf: (object: ApiObject) => string | undefined;
  #ran = false;

  constructor(options: ControllerOptions) {
    if (options.informers.length === 0) throw new TypeError('a controller needs at least one informer');
    this.#options = options;
    this.#keyOf = options.keyOf ?? objectKey;
    this.queue = new RateLimitingQueue<string>({ rateLimiter: options.rateLimiter, clock: options.clock });
  }

  /** Reconciles `key` (deduplicated with keys already queued), as an event would. */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  /**
   * Starts the informers, waits for their first sync, then reconciles with the workers until
   * `signal` aborts. It then stops taking new keys, lets the workers finish those queued (those
   * waiting for a retry delay are dropped), stops the informers and resolves; a reconcile that
   * never settles keeps it from resolving (pass a deadline to your requests).
   */
  async run(signal: AbortSignal): Promise<void> {
    const name = this.#options.name ? ` ${this.#options.name}` : '';
    if (this.#ran) throw new Error(`controller${name} has run already: its queue is shut down; make a new one`);
    this.#ran = true;
    const { informers } = this.#options;
    const enqueue = (object: ApiObject) => {
      const key = this.#keyOf(object);
      if (key !== undefined) this.queue.add(key);
    };
    const removers = informers.map((informer) =>
      informer.addEventHandler({ onAdd: enqueue, onUpdate: (_previous, object) => enqueue(object), onDelete: enqueue }),
    );
    const stopped = new Promise<void>((resolve) =>
      signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    try {
      for (const informer of informers) informer.start();
      const synced = await Promise.race([
        Promise.all(informers.map((i) => i.waitForSync(signal))).then(() => true),
        stopped.then(() => false),
      ]);
      if (synced) {
        const workers = Array.from({ length: this.#options.workers ?? 1 }, () => this.#work());
        await stopped;
        await this.queue.shutDownWithDrain();
        await Promise.all(workers);
      }
    } catch (e) {
      if (!signal.aborted) throw e;
    } finally {
      this.queue.shutDown();
      for (const remove of removers) remove();
      await Promise.all(informers.map((i) => i.stop()));
    }
  }

  async #work(): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      try {
        const result = await this.#options.reconcile(key);
        this.queue.forget(key);
        if (result?.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
      } catch (e) {
        this.#options.onError?.(e, key);
        this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
      }
    }
  }
}
