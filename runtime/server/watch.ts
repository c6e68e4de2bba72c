import type { ServerResponse } from 'node:http';
import { type JsonApiObject, type StatusError, internalError } from '../api/index.js';
import { isStoreFutureRevisionError, type Watch, type WatchEvent } from '../store/index.js';
import type { RequestContext, Target } from './context.js';
import { isPromise } from './chain.js';
import { collectionPrefix, decodeObjectNow, decodeObjects } from './objects.js';
import type { ReadOptions } from './query.js';
import { type Matcher, selectorMatcher } from './read.js';
import { type Negotiated, type RenderContext, asTable, includeObjectOf, tableFor } from './media.js';
import type { ServedResource } from './resources.js';
import { fromStoreError, parseRevision, tooLargeResourceVersion } from './versions.js';

/** The annotation on the bookmark that ends the initial events of `sendInitialEvents`. */
export const INITIAL_EVENTS_END = 'svc.io/initial-events-end';

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * watch: a chunked stream of `{type, object}` JSON documents, one per line. Where it starts follows
 * the spec's watch table; an expired start version is an ERROR event carrying a 410 Status. Three
 * phases: wait for the start version, send the initial state (or not), then follow the store.
 */
export async function watchObjects(
  ctx: RequestContext,
  t: Target,
  opts: ReadOptions,
  res: ServerResponse,
  negotiated: Negotiated,
): Promise<void> {
  const r = t.resource;
  const matcher = selectorMatcher(r, opts);
  const stream = new EventStream(res, r, ctx.warnings.headerValues(), negotiated, {
    codecs: ctx.codecs,
    resource: r,
    includeObject: includeObjectOf(ctx.req.query),
    now: ctx.settings.now,
  });
  if (!(await awaitStartVersion(ctx, opts, stream))) return stream.end();
  const from = await sendInitialState(ctx, t, opts, matcher, stream);
  await follow(ctx, t, opts, matcher, stream, res, from);
}

/** A start version the server has not reached is waited for briefly; false (after an ERROR event) when it does not arrive. */
async function awaitStartVersion(ctx: RequestContext, opts: ReadOptions, stream: EventStream): Promise<boolean> {
  const rv = opts.resourceVersion;
  // A version not reached yet (exact start, or the version initial events must be synced to).
  if (rv === undefined || rv === '' || rv === '0') return true;
  const awaited = parseRevision(rv);
  try {
    await ctx.store.waitForRevision(awaited, ctx.settings.futureRevisionWaitMs);
    return true;
  } catch (e) {
    if (!isStoreFutureRevisionError(e)) throw e;
    stream.open();
    stream.error(tooLargeResourceVersion(awaited, e.currentRevision));
    return false;
  }
}

/**
 * Where the stream starts: exactly after a version, at the current version (no initial state), or
 * after a snapshot sent as synthetic ADDED events (and a bookmark ending them when asked). The
 * revision events follow from.
 */
async function sendInitialState(
  ctx: RequestContext,
  t: Target,
  opts: ReadOptions,
  matcher: Matcher | undefined,
  stream: EventStream,
): Promise<number> {
  const rv = opts.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== '0' && !opts.sendInitialEvents) return parseRevision(rv);
  if (opts.sendInitialEvents === false) return ctx.store.currentRevision();
  const page = await ctx.store.list(collectionPrefix(t.resource, t.namespace));
  const objects = await decodeObjects(page.items, t.resource);
  stream.open();
  for (const object of objects) {
    if (!matcher || matcher(object)) stream.send('ADDED', object);
  }
  if (opts.sendInitialEvents && opts.allowWatchBookmarks) stream.bookmark(page.revision, { [INITIAL_EVENTS_END]: 'true' });
  return page.revision;
}

/** Streams the store's events after `from` until the timeout, the client leaving, or the history expiring. */
async function follow(
  ctx: RequestContext,
  t: Target,
  opts: ReadOptions,
  matcher: Matcher | undefined,
  stream: EventStream,
  res: ServerResponse,
  from: number,
): Promise<void> {
  let watch: Watch;
  try {
    // One upstream watch per resource, whatever namespace each client watches (the etcd watch cache).
    watch = ctx.store.watch(collectionPrefix(t.resource, t.namespace), from, { sharedPrefix: t.resource.storagePrefix });
  } catch (e) {
    stream.open();
    stream.error(fromStoreError(e, t.resource, undefined) ?? internalError(e));
    return stream.end();
  }
  stream.open();
  stream.lastRevision = from;

  // timeoutSeconds=0 means the server's default, as upstream.
  const seconds = Math.min(opts.timeoutSeconds || ctx.settings.maxWatchSeconds, ctx.settings.maxWatchSeconds);
  const timeout = setTimeout(() => watch.close(), seconds * 1000);
  // True while the loop below waits for the store's next event (nothing is being sent).
  let idle = false;
  // The store's revision read at the previous tick, or when the watch started: every event at or
  // before it has reached the watch by now (in-process stores publish as they commit; etcd's stream
  // has had an interval). So even the first bookmark carries the store's revision, not the watch's
  // last event's: a client resuming from it after the history window passed is not sent a 410.
  let settled = opts.allowWatchBookmarks ? await ctx.store.currentRevision().catch(() => undefined) : undefined;
  const bookmark = async (): Promise<void> => {
    const revision = await ctx.store.currentRevision().catch(() => undefined);
    // Let an event that arrived meanwhile be taken up, so `idle` means nothing is pending.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!idle) return;
    const at = Math.max(stream.lastRevision, settled ?? 0);
    settled = revision;
    stream.lastRevision = at;
    stream.bookmark(at);
  };
  const bookmarks = opts.allowWatchBookmarks ? setInterval(() => void bookmark(), ctx.settings.bookmarkIntervalMs) : undefined;
  res.on('close', () => watch.close());
  // A client that left while the stream was being prepared will never fire 'close' again.
  if (res.destroyed || res.writableEnded) watch.close();
  const events = watch[Symbol.asyncIterator]();
  try {
    for (;;) {
      idle = true;
      const next = await events.next();
      idle = false;
      if (next.done) break;
      const event = next.value;
      // Awaited only when something is pending (a conversion, a slow client): each is a turn per watcher.
      const translated = translate(event, t.resource, matcher);
      const out = isPromise(translated) ? await translated : translated;
      if (out) {
        const drained = stream.writeAndDrain(stream.encodeShared(event, out.type, out.object));
        if (drained) await drained;
      }
      stream.lastRevision = Math.max(stream.lastRevision, event.revision);
    }
  } catch (e) {
    // The stream has started: the error travels as an ERROR event, then the watch ends.
    stream.error(fromStoreError(e, t.resource, undefined) ?? internalError(e));
  } finally {
    clearTimeout(timeout);
    if (bookmarks) clearInterval(bookmarks);
    watch.close();
    stream.end();
  }
}

/**
 * A store event as seen through the selectors: an object that starts matching is ADDED, one that
 * stops matching is DELETED, as the real system's filtered watch does.
 */
function translate(event: WatchEvent, r: ServedResource, matcher: Matcher | undefined): Translated | Promise<Translated> {
  const decoded = decodedOnce(event, r);
  const object = decoded.object;
  if (isPromise(object)) return object.then(() => translate(event, r, matcher));
  if (event.type === 'delete') return !matcher || matcher(object) ? { type: 'DELETED', object } : undefined;
  if (event.type === 'create') return !matcher || matcher(object) ? { type: 'ADDED', object } : undefined;
  if (!matcher) return { type: 'MODIFIED', object };
  const before = decoded.before();
  if (isPromise(before)) return before.then(() => translate(event, r, matcher));
  const was = before !== undefined && matcher(before);
  const is = matcher(object);
  if (was && is) return { type: 'MODIFIED', object };
  // As upstream's cacher: the last state that matched, at the version of the change.
  if (was) return { type: 'DELETED', object: { ...before, metadata: { ...before.metadata, resourceVersion: String(event.revision) } } };
  if (is) return { type: 'ADDED', object };
  return undefined;
}

/** What a watcher is sent of one store event; undefined when its selectors keep the event from it. */
type Translated = { type: EventType; object: JsonApiObject } | undefined;

/**
 * One store event is seen by every watcher of its prefix: it is decoded and serialized once per
 * served version, not once per watcher (the watchers only read it). A decoding that waits (a
 * conversion webhook) is a promise until it settles, then the object itself.
 */
interface Decoded {
  object: JsonApiObject | Promise<JsonApiObject>;
  before(): JsonApiObject | undefined | Promise<JsonApiObject | undefined>;
  encoded: Map<string, string | Uint8Array>;
}

const decodedEvents = new WeakMap<WatchEvent, Map<ServedResource, Decoded>>();

function decodedOnce(event: WatchEvent, r: ServedResource): Decoded {
  let perVersion = decodedEvents.get(event);
  if (!perVersion) decodedEvents.set(event, (perVersion = new Map()));
  let decoded = perVersion.get(r);
  if (!decoded) {
    let before: JsonApiObject | Promise<JsonApiObject> | undefined;
    const d: Decoded = {
      object: settledOnce(decodeObjectNow({ value: event.value, modRevision: event.revision }, r), (o) => {
        d.object = o;
      }),
      before: () => {
        if (event.prevValue === undefined) return undefined;
        before ??= settledOnce(
          decodeObjectNow({ value: event.prevValue, modRevision: event.prevModRevision ?? event.revision }, r),
          (o) => {
            before = o;
          },
        );
        return before;
      },
      encoded: new Map(),
    };
    decoded = d;
    perVersion.set(r, decoded);
  }
  return decoded;
}

/** A decoding that waits: `settled` gets its object once it is there, so later readers need not wait. */
function settledOnce(
  object: JsonApiObject | Promise<JsonApiObject>,
  settled: (o: JsonApiObject) => void,
): JsonApiObject | Promise<JsonApiObject> {
  if (!isPromise(object)) return object;
  // A failed conversion is the watcher's error when it awaits; not an unhandled rejection meanwhile.
  object.then(settled, () => undefined);
  return object;
}

/** The event as written on the wire, serialized once for all watchers of one representation. */
function encodedOnce(event: WatchEvent, r: ServedResource, key: string, encode: () => string | Uint8Array): string | Uint8Array {
  const encoded = decodedOnce(event, r).encoded;
  let bytes = encoded.get(key);
  if (bytes === undefined) encoded.set(key, (bytes = encode()));
  return bytes;
}

/**
 * Writes watch events on a chunked 200 response: JSON documents one per line, length-delimited
 * Protobuf frames, or JSON lines whose objects are Tables (column definitions in the first only).
 */
class EventStream {
  lastRevision = 0;
  private opened = false;
  private ended = false;
  private headersSent = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly r: ServedResource,
    private readonly warnings: string[],
    private readonly negotiated: Negotiated,
    private readonly render: Pick<RenderContext, 'codecs' | 'resource' | 'includeObject' | 'now'>,
  ) {}

  open(): void {
    if (this.opened) return;
    this.opened = true;
    const headers: Record<string, string | string[]> = {
      'content-type': this.negotiated.contentType,
      'transfer-encoding': 'chunked',
      'cache-control': 'no-cache, private',
    };
    if (this.warnings.length > 0) headers.warning = this.warnings;
    this.res.writeHead(200, headers);
    this.res.flushHeaders();
  }

  /** The wire form of one event in this stream's representation. */
  encode(type: EventType, object: unknown): string | Uint8Array {
    switch (this.negotiated.representation) {
      case 'protobuf':
        return this.render.codecs!.encodeWatchEvent(type, object);
      case 'table': {
        const table = type === 'BOOKMARK' || type === 'ERROR' ? object : asTable(object, this.render, this.headersSent);
        if (table !== object) this.headersSent = true;
        return `${JSON.stringify({ type, object: tableFor(this.negotiated, table) })}\n`;
      }
      default:
        return `${JSON.stringify({ type, object })}\n`;
    }
  }

  /** As encode, shared with every other watcher of the same store event and representation. */
  encodeShared(event: WatchEvent, type: EventType, object: JsonApiObject): string | Uint8Array {
    if (this.negotiated.representation === 'table') return this.encode(type, object);
    // Shared as bytes: no watcher encodes the text again to write it.
    return encodedOnce(event, this.r, `${this.negotiated.representation} ${type}`, () => {
      const encoded = this.encode(type, object);
      return typeof encoded === 'string' ? Buffer.from(encoded) : encoded;
    });
  }

  send(type: EventType, object: unknown): boolean {
    if (this.ended) return true;
    return this.res.write(this.encode(type, object));
  }

  /** Writes a ready event; a promise to wait on when the client reads slower than events arrive. */
  writeAndDrain(bytes: string | Uint8Array): Promise<void> | undefined {
    if (this.ended || this.res.write(bytes)) return undefined;
    // Whichever comes first removes both listeners: a stream waits many times over its life.
    return new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done).off('close', done);
        resolve();
      };
      this.res.on('drain', done).on('close', done);
    });
  }

  /** A BOOKMARK: only the resourceVersion, in an object of the watched kind. */
  bookmark(revision: number, annotations?: Record<string, string>): void {
    const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
    if (annotations) metadata.annotations = annotations;
    this.send('BOOKMARK', { kind: this.r.kind, apiVersion: this.r.apiVersion, metadata });
  }

  error(e: StatusError): void {
    this.send('ERROR', e.toStatus());
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.res.end();
  }
}
