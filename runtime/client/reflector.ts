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
 * List-then-watch into `store` (keyed by namespace/name), forever: resumes from the last
 * resourceVersion after a disconnect, asks for bookmarks, and on 410 (or a version the server has
 * not reached) resyncs and reports the difference as ADDED/MODIFIED/DELETED events, so no change
 * is lost or reported twice. It ends only when `signal` aborts or the consumer stops iterating,
 * and throws only non-retryable errors (a 403, a 404 for an unserved resource, ...).
 *
 * The store is updated before each event is yielded, and the event carries the previous object.
 */
export async function* reflect<T extends ApiObject>(source: WatchSource<T>, options: ReflectOptions, store: Map<string, T>): AsyncGenerator<ReflectorEvent<T>, void, undefined> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const backoff = new Backoff(options.backoff);
  const given = options.resourceVersion;
  let rv = given !== undefined && given !== '' && given !== '0' ? given : undefined;
  let synced = rv !== undefined;
  const selectors = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };

  try {
    for (;;) {
      const openedAt = Date.now();
      let received = 0;
      try {
        let stream: AsyncIterable<unknown>;
        let streamingState = false;
        if (!synced && options.initialEvents !== 'list' && !source.initialEventsRefused.has()) {
          try {
            stream = await source.open(watchQuery(selectors, undefined, options, true), signal);
            streamingState = true;
          } catch (e) {
            // A server without watch-list refuses the parameters: list and watch instead.
            if (!isStatusError(e) || (e.code !== 400 && e.code !== 422 && e.code !== 403)) throw e;
            source.initialEventsRefused.set();
            continue;
          }
        } else {
          if (!synced) {
            const state = await listState(source, selectors, signal);
            yield* difference(store, state.items);
            rv = state.resourceVersion;
            synced = true;
            yield { type: 'SYNCED', resourceVersion: rv };
          }
          stream = await source.open(watchQuery(selectors, rv, options, false), signal);
        }

        let initial: T[] = [];
        for await (const document of stream) {
          const event = document as { type?: string; object?: unknown };
          if (event.type === 'ERROR') throw statusErrorFromObject(event.object) ?? new StatusError({ code: 500, reason: 'InternalError', message: `watch error event: ${JSON.stringify(event.object)}` });
          const object = event.object as T;
          const version = object?.metadata?.resourceVersion;
          received++;
          if (streamingState) {
            if (event.type === 'ADDED') {
              initial.push(object);
              continue;
            }
            if (event.type === 'BOOKMARK' && Object.keys(object.metadata?.annotations ?? {}).some((k) => INITIAL_EVENTS_END.test(k))) {
              yield* difference(store, initial);
              initial = [];
              streamingState = false;
              synced = true;
              rv = version ?? rv;
              backoff.reset();
              yield { type: 'SYNCED', resourceVersion: rv ?? '' };
            }
            continue;
          }
          if (version) rv = version;
          if (event.type === 'BOOKMARK') {
            yield { type: 'BOOKMARK', object: object as BookmarkObject };
            continue;
          }
          const key = objectKey(object);
          const previous = store.get(key);
          backoff.reset();
          if (event.type === 'DELETED') {
            store.delete(key);
            yield { type: 'DELETED', object, previous: previous ?? object };
          } else if (event.type === 'ADDED' || event.type === 'MODIFIED') {
            store.set(key, object);
            yield previous === undefined ? { type: 'ADDED', object } : { type: 'MODIFIED', object, previous };
          }
        }
        // The server ended the stream (its timeout, a restart): resume from rv. A stream that ends
        // at once with nothing in it is paced, so a misbehaving server is not hammered.
        if (received === 0 && Date.now() - openedAt < 1000) await backoff.wait(signal);
      } catch (e) {
        if (isAbort(e, signal)) return;
        if (isExpired(e) || isTooLargeResourceVersion(e)) {
          // The history no longer reaches back (or the server lost it): resync and diff.
          options.onRetry?.(e);
          synced = false;
          rv = undefined;
          continue;
        }
        if (!isTransient(e)) throw e;
        options.onRetry?.(e);
        try {
          await backoff.wait(signal);
        } catch {
          return;
        }
      }
    }
  } finally {
    stop.abort();
  }
}

function watchQuery(selectors: Pick<ReflectOptions, 'labelSelector' | 'fieldSelector'>, rv: string | undefined, options: ReflectOptions, initialEvents: boolean): URLSearchParams {
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
async function listState<T>(source: WatchSource<T>, selectors: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>, signal: AbortSignal): Promise<{ items: T[]; resourceVersion: string }> {
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
