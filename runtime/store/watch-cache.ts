/**
 * A watch cache for a networked backend, as kube-apiserver's cacher: one upstream watch per shared
 * prefix (a resource), its events fanned out to every client watch under that prefix (one
 * namespace, or all), and the newest events kept in a ring so that a client starting a little in
 * the past is served from memory. 500 client watches on one resource are one etcd watch.
 *
 * A client whose start revision is older than the ring gets a watch of its own from the backend
 * (still gapless; the backend says whether that revision is compacted), as does one whose start
 * revision the backend has not been seen to reach (the backend then reports the future revision).
 */
import type { Watch, WatchEvent } from './types.js';
import { WatchHub } from './watch-hub.js';

export interface WatchCacheOptions {
  /** A direct backend watch: events under `prefix` after `fromRevision`, gapless. */
  open(prefix: string, fromRevision: number): Watch;
  /** Events kept per shared prefix for clients that start in the past. */
  capacity: number;
  /**
   * And at most about this many bytes of values per shared prefix: a thousand 1 MiB objects would
   * otherwise pin a gigabyte for one resource.
   */
  capacityBytes: number;
  /** Unread live events after which one client's watch is ended. */
  queueLimit: number;
}

/** One upstream watch and what it has delivered. */
interface Root {
  readonly hub: WatchHub;
  readonly upstream: Watch;
  /** The newest events, oldest first: every event after `start` up to `last`. */
  events: WatchEvent[];
  /** The values' size in the ring (UTF-16 code units, near enough to bytes for a cap). */
  size: number;
  start: number;
  last: number;
  /** Events up to here existed when the upstream opened: history being replayed, not live. */
  readonly replayUntil: number;
}

export class WatchCache {
  readonly #o: WatchCacheOptions;
  readonly #roots = new Map<string, Root>();

  constructor(options: WatchCacheOptions) {
    this.#o = options;
  }

  /**
   * A watch of the keys under `prefix` (which starts with `shared`) after `fromRevision`.
   * `known` is a revision the backend is known to have reached (the caller has seen it).
   */
  watch(shared: string, prefix: string, fromRevision: number, known: number): Watch {
    if (fromRevision > known || !prefix.startsWith(shared)) return this.#o.open(prefix, fromRevision);
    const root = this.#roots.get(shared) ?? this.#openRoot(shared, fromRevision, known);
    if (fromRevision < root.start) return this.#o.open(prefix, fromRevision);
    const history = root.events.filter((e) => e.revision > fromRevision && e.key.startsWith(prefix));
    const watch = root.hub.open(prefix, history);
    // The ring may lag behind the revision the client read: skip what it has seen already.
    return fromRevision > root.last ? after(watch, fromRevision) : watch;
  }

  /** How many upstream watches are open (one per shared prefix watched so far). */
  get upstreamCount(): number {
    return this.#roots.size;
  }

  /** Ends every upstream watch and every client watch. */
  close(): void {
    for (const [shared, root] of this.#roots) this.#drop(shared, root);
  }

  #openRoot(shared: string, fromRevision: number, known: number): Root {
    const root: Root = {
      replayUntil: known,
      hub: new WatchHub(this.#o.queueLimit),
      upstream: this.#o.open(shared, fromRevision),
      events: [],
      size: 0,
      start: fromRevision,
      last: fromRevision,
    };
    this.#roots.set(shared, root);
    void this.#pump(shared, root);
    return root;
  }

  async #pump(shared: string, root: Root): Promise<void> {
    try {
      for await (const event of root.upstream) {
        root.events.push(event);
        root.size += sizeOf(event);
        while (root.events.length > this.#o.capacity || (root.size > this.#o.capacityBytes && root.events.length > 1)) {
          const dropped = root.events.shift()!;
          root.size -= sizeOf(dropped);
          root.start = dropped.revision;
        }
        root.last = event.revision;
        root.hub.publish(event, event.revision <= root.replayUntil);
      }
      this.#drop(shared, root);
    } catch (error) {
      // The backend gave up (unreachable for too long, or compacted past the ring): every client
      // ends with its error and resumes or relists; the next watch opens a fresh upstream.
      this.#drop(shared, root, error as Error);
    }
  }

  #drop(shared: string, root: Root, error?: Error): void {
    if (this.#roots.get(shared) === root) this.#roots.delete(shared);
    root.upstream.close();
    root.hub.closeAll(error);
  }
}

function sizeOf(event: WatchEvent): number {
  return event.key.length + event.value.length + (event.prevValue?.length ?? 0);
}

/** `watch` without the events at or before `revision`. */
function after(watch: Watch, revision: number): Watch {
  const events = watch[Symbol.asyncIterator]();
  const next = async (): Promise<IteratorResult<WatchEvent, undefined>> => {
    for (;;) {
      const result = await events.next();
      if (result.done || result.value.revision > revision) return result;
    }
  };
  return {
    close: () => watch.close(),
    [Symbol.asyncIterator]: () => ({
      next,
      return: () => {
        watch.close();
        return Promise.resolve({ done: true, value: undefined });
      },
    }),
  };
}
