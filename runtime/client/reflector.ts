import { StatusError, isStatusError, statusErrorFromObject } from '../api/index.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { isAbort, isExpired, isTooLargeResourceVersion, isTransient } from './errors.js';
import { type ListOptions, type Selector, selectorText } from './options.js';
import { listPages } from './pager.js';
import { type ApiObject, type BookmarkObject, type ObjectList, objectKey } from './types.js';

/** How the reflector reaches a collection; ResourceClient provides it. */
export interface WatchSource<T> {
  list(options: ListOptions): Promise<ObjectList<T>>;
  /** Opens one watch connection with these query parameters. */
  open(query: URLSearchParams, signal: AbortSignal): Promise<AsyncIterable<unknown>>;
  /** Remembers per server and resource that watch-list (sendInitialEvents) was refused. */
  initialEventsRefused: { has(): boolean; set(): void };
}

export interface ReflectOptions {
  labelSelector?: Selector;
  fieldSelector?: Selector;
  /** Start after this version (the caller holds the state); unset: the state is synced first. */
  resourceVersion?: string;
  /** How the state is synced: a watch with sendInitialEvents when the server supports it, or list. */
  initialEvents?: 'auto' | 'list';
  /** Server-side lifetime of one watch connection; default 5 to 10 minutes, random. */
  timeoutSeconds?: number;
  backoff?: BackoffOptions;
  /** Told about each retried failure (a lost connection, a 5xx, a relist after 410). */
  onRetry?: (error: unknown) => void;
  signal?: AbortSignal;
}

/** A change with the object it replaced, or the end of a (re)sync. */
export type ReflectorEvent<T> =
  | { type: 'ADDED'; object: T; previous?: undefined }
  | { type: 'MODIFIED' | 'DELETED'; object: T; previous: T }
  | { type: 'BOOKMARK'; object: BookmarkObject }
  | { type: 'SYNCED'; resourceVersion: string };

/** The annotation on the bookmark that ends the initial events (any domain: svc.io, k8s.io). */
const INITIAL_EVENTS_END = /(^|\/)initial-events-end$/;

/**
 * Where the next watch starts: from a fresh sync of the state, or after the version the store is
 * synced to (undefined when the server named none: its current state).
 */
type Resume = { readonly sync: true } | { readonly sync: false; readonly resourceVersion: string | undefined };

const SYNC: Resume = { sync: true };

/** What `syncByWatchList` returns when the server refuses watch-list: list and watch instead. */
const REFUSED = Symbol('watch-list refused');

/**
 * List-then-watch into `store` (keyed by namespace/name), forever: resumes from the last
 * resourceVersion after a disconnect, asks for bookmarks, and on 410 (or a version the server has
 * not reached) resyncs and reports the difference as ADDED/MODIFIED/DELETED events, so no change
 * is lost or reported twice. It ends only when `signal` aborts or the consumer stops iterating,
 * and throws only non-retryable errors (a 403, a 404 for an unserved resource, ...).
 *
 * The store is updated before each event is yielded, and the event carries the previous object.
 */
export async function* reflect<T extends ApiObject>(
  source: WatchSource<T>,
  options: ReflectOptions,
  store: Map<string, T>,
): AsyncGenerator<ReflectorEvent<T>, void, undefined> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  try {
    yield* new Reflector(source, options, store, signal).listAndWatch();
  } finally {
    stop.abort();
  }
}

/**
 * The stages of `reflect`, as client-go's reflector names them: `listAndWatch` loops over one
 * stream at a time, synced either by `syncByWatchList` (one watch with sendInitialEvents) or by
 * `syncByList` (a paged list, then a watch from its version); `consumeWatch` applies a stream's
 * events to the store, and `nextResumeVersion` decides where the next stream starts after a failure.
 */
class Reflector<T extends ApiObject> {
  readonly #backoff: Backoff;
  readonly #selectors: Pick<ReflectOptions, 'labelSelector' | 'fieldSelector'>;
  #resume: Resume;

  constructor(
    readonly source: WatchSource<T>,
    readonly options: ReflectOptions,
    readonly store: Map<string, T>,
    readonly signal: AbortSignal,
  ) {
    this.#backoff = new Backoff(options.backoff);
    this.#selectors = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
    const given = options.resourceVersion;
    this.#resume = given !== undefined && given !== '' && given !== '0' ? { sync: false, resourceVersion: given } : SYNC;
  }

  async *listAndWatch(): AsyncGenerator<ReflectorEvent<T>, void, undefined> {
    for (;;) {
      const openedAt = Date.now();
      try {
        const received = this.#resume.sync && this.#prefersWatchList() ? yield* this.syncByWatchList() : yield* this.syncByList();
        if (received === REFUSED) continue;
        // The server ended the stream (its timeout, a restart): resume from the last version. A
        // stream that ends at once with nothing in it is paced, so a misbehaving server is not hammered.
        if (received === 0 && Date.now() - openedAt < 1000) await this.#backoff.wait(this.signal);
      } catch (e) {
        if (isAbort(e, this.signal)) return;
        const next = nextResumeVersion(this.#resume, e);
        if (next.relist) {
          // The history no longer reaches back (or the server lost it): resync and diff.
          this.options.onRetry?.(e);
          this.#resume = next.resume;
          continue;
        }
        if (!isTransient(e)) throw e;
        this.options.onRetry?.(e);
        try {
          await this.#backoff.wait(this.signal);
        } catch {
          return;
        }
      }
    }
  }

  /**
   * Syncs by one watch with sendInitialEvents: its ADDED events are gathered until the bookmark
   * that ends them, reported as the difference from the store, and the same stream then goes on as
   * a watch. Returns how many events the stream carried, or REFUSED when the server has no watch-list.
   */
  async *syncByWatchList(): AsyncGenerator<ReflectorEvent<T>, number | typeof REFUSED, undefined> {
    let stream: AsyncIterable<unknown>;
    try {
      stream = await this.source.open(watchQuery(this.#selectors, undefined, this.options, true), this.signal);
    } catch (e) {
      // A server without watch-list refuses the parameters: list and watch instead.
      if (!isWatchListRefusal(e)) throw e;
      this.source.initialEventsRefused.set();
      return REFUSED;
    }
    const events = stream[Symbol.asyncIterator]();
    const initial: T[] = [];
    let received = 0;
    try {
      for (let next = await events.next(); next.done !== true; next = await events.next()) {
        const { type, object } = watchEvent<T>(next.value);
        received++;
        if (type === 'ADDED') initial.push(object);
        else if (type === 'BOOKMARK' && endsInitialEvents(object)) {
          yield* difference(this.store, initial);
          const resourceVersion = object.metadata?.resourceVersion;
          this.#resume = { sync: false, resourceVersion };
          this.#backoff.reset();
          yield { type: 'SYNCED', resourceVersion: resourceVersion ?? '' };
          return received + (yield* this.consumeWatch({ [Symbol.asyncIterator]: () => events }));
        }
      }
      return received;
    } finally {
      await events.return?.();
    }
  }

  /** Syncs by a paged list when the store is not synced, then watches from the version reached. */
  async *syncByList(): AsyncGenerator<ReflectorEvent<T>, number, undefined> {
    if (this.#resume.sync) {
      const state = await listState(this.source, this.#selectors, this.signal);
      yield* difference(this.store, state.items);
      this.#resume = { sync: false, resourceVersion: state.resourceVersion };
      yield { type: 'SYNCED', resourceVersion: state.resourceVersion };
    }
    const stream = await this.source.open(watchQuery(this.#selectors, this.#resume.resourceVersion, this.options, false), this.signal);
    return yield* this.consumeWatch(stream);
  }

  /** Applies a watch stream's events to the store and yields them; returns how many it carried. */
  async *consumeWatch(stream: AsyncIterable<unknown>): AsyncGenerator<ReflectorEvent<T>, number, undefined> {
    let received = 0;
    for await (const document of stream) {
      const { type, object } = watchEvent<T>(document);
      received++;
      const version = object?.metadata?.resourceVersion;
      if (version) this.#resume = { sync: false, resourceVersion: version };
      if (type === 'BOOKMARK') {
        yield { type: 'BOOKMARK', object: object as BookmarkObject };
        continue;
      }
      const key = objectKey(object);
      const previous = this.store.get(key);
      this.#backoff.reset();
      if (type === 'DELETED') {
        this.store.delete(key);
        yield { type: 'DELETED', object, previous: previous ?? object };
      } else if (type === 'ADDED' || type === 'MODIFIED') {
        this.store.set(key, object);
        yield previous === undefined ? { type: 'ADDED', object } : { type: 'MODIFIED', object, previous };
      }
    }
    return received;
  }

  #prefersWatchList(): boolean {
    return this.options.initialEvents !== 'list' && !this.source.initialEventsRefused.has();
  }
}

/**
 * The relist policy (client-go's relistResourceVersion): after 410 Gone, or a version the server
 * has not reached, its history no longer reaches back to where the store is, so the state is
 * synced again and the difference reported; after any other failure the watch resumes where it was.
 */
function nextResumeVersion(current: Resume, error: unknown): { readonly resume: Resume; readonly relist: boolean } {
  const relist = isExpired(error) || isTooLargeResourceVersion(error);
  return { resume: relist ? SYNC : current, relist };
}

/** A server without watch-list answers its parameters with 400, 422 or 403. */
function isWatchListRefusal(error: unknown): boolean {
  return isStatusError(error) && (error.code === 400 || error.code === 422 || error.code === 403);
}

/** One watch event; an ERROR event is thrown as the Status it carries. */
function watchEvent<T>(document: unknown): { type: string | undefined; object: T } {
  const event = document as { type?: string; object?: unknown };
  if (event.type === 'ERROR')
    throw (
      statusErrorFromObject(event.object) ??
      new StatusError({ code: 500, reason: 'InternalError', message: `watch error event: ${JSON.stringify(event.object)}` })
    );
  return { type: event.type, object: event.object as T };
}

function endsInitialEvents(object: ApiObject): boolean {
  return Object.keys(object.metadata?.annotations ?? {}).some((k) => INITIAL_EVENTS_END.test(k));
}

function watchQuery(
  selectors: Pick<ReflectOptions, 'labelSelector' | 'fieldSelector'>,
  rv: string | undefined,
  options: ReflectOptions,
  initialEvents: boolean,
): URLSearchParams {
  const q = new URLSearchParams();
  q.set('watch', 'true');
  if (selectors.labelSelector !== undefined) q.set('labelSelector', selectorText(selectors.labelSelector));
  if (selectors.fieldSelector !== undefined) q.set('fieldSelector', selectorText(selectors.fieldSelector));
  if (initialEvents) {
    q.set('sendInitialEvents', 'true');
    q.set('resourceVersionMatch', 'NotOlderThan');
    q.set('resourceVersion', '');
  } else if (rv !== undefined) {
    q.set('resourceVersion', rv);
  }
  q.set('allowWatchBookmarks', 'true');
  q.set('timeoutSeconds', String(options.timeoutSeconds ?? 300 + Math.floor(Math.random() * 300)));
  return q;
}

/** The whole collection at one snapshot, paged; a restart after an expired token starts over. */
async function listState<T>(
  source: WatchSource<T>,
  selectors: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>,
  signal: AbortSignal,
): Promise<{ items: T[]; resourceVersion: string }> {
  let items: T[] = [];
  let resourceVersion = '';
  const pages = listPages((o) => source.list({ ...o, signal }), { ...selectors, onRestart: () => (items = []) });
  for await (const page of pages) {
    items.push(...page.items);
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
  }
  return { items, resourceVersion };
}

/** Events that turn `store` into `items`; the store is updated as they are yielded. */
function* difference<T extends ApiObject>(store: Map<string, T>, items: readonly T[]): Generator<ReflectorEvent<T>> {
  const seen = new Set<string>();
  for (const object of items) {
    const key = objectKey(object);
    seen.add(key);
    const previous = store.get(key);
    if (previous !== undefined && previous.metadata?.resourceVersion === object.metadata?.resourceVersion) continue;
    store.set(key, object);
    yield previous === undefined ? { type: 'ADDED', object } : { type: 'MODIFIED', object, previous };
  }
  const gone = [...store.entries()].filter(([key]) => !seen.has(key));
  for (const [key, previous] of gone) {
    store.delete(key);
    yield { type: 'DELETED', object: previous, previous };
  }
}
