/**
 * The storage interface: a key-value store with one global revision that every write advances
 * (the resource version), reads at the current or a past revision, conditional writes, and
 * watches from a revision over a retained history window. It is the shape of etcd's MVCC API, so
 * that the embedded SQLite backend, the in-memory backend and an etcd backend are three
 * implementations of one contract (tested by one shared suite).
 *
 * Keys are opaque strings; the server uses kube-apiserver's `/registry/<resource>/<namespace>/<name>`. Values are the
 * stored JSON text of an object, without its resourceVersion (the revision is the version).
 */

/** One stored value at one revision. */
export interface KeyValue {
  key: string;
  value: string;
  /** The revision of the write that produced this value (the object's resourceVersion). */
  modRevision: number;
  /** The revision of the write that created the key. */
  createRevision: number;
}

export interface ListOptions {
  /**
   * Read as of this revision (a snapshot); the current revision when absent. StoreExpiredError
   * below the compacted revision, StoreFutureRevisionError above the current one.
   */
  revision?: number;
  /** Only keys strictly greater than this one (paging). */
  startAfter?: string;
  /** At most this many items (a positive integer); all when absent. */
  limit?: number;
  /**
   * Whether to count the keys after the page into `remaining` (default true). A caller that knows
   * the count already passes false and saves a scan of the rest of the range: a continued list is
   * a snapshot, so its first page's count minus what it has read since is exact.
   */
  countRemaining?: boolean;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list was read at (the collection's resourceVersion). */
  revision: number;
  /** Whether keys under the prefix follow the last returned item, at that revision. */
  more: boolean;
  /** How many keys follow the last returned item, at that revision; absent when `countRemaining` was false. */
  remaining?: number;
}

export interface WriteOptions {
  /** Fail with StoreConflictError unless the key's current modRevision equals this. */
  expectedModRevision?: number;
}

export type WatchEventType = 'create' | 'update' | 'delete';

export interface WatchEvent {
  type: WatchEventType;
  key: string;
  /** The revision of the write. */
  revision: number;
  /** The value after the write; for a delete, the last value before it. */
  value: string;
  /** The value before the write (absent for a create). */
  prevValue?: string;
  /** modRevision of prevValue. */
  prevModRevision?: number;
  createRevision: number;
}

export interface Watch extends AsyncIterable<WatchEvent> {
  /** Ends the watch; the iterator finishes (leaving a for-await loop over it does the same). */
  close(): void;
}

export interface WatchOptions {
  /**
   * A prefix of `prefix` whose events the backend may fetch once for every watch under it (the
   * server passes the resource's prefix when it watches one namespace). A networked backend keeps
   * one upstream watch per shared prefix; the in-process ones publish every write once anyway.
   */
  sharedPrefix?: string;
}

export interface Store {
  /** The revision of the last committed write (0 for an empty store that was never written). */
  currentRevision(): Promise<number>;
  /** The oldest revision still readable: reads and watches before it fail with StoreExpiredError. */
  compactedRevision(): Promise<number>;

  /**
   * The value of `key` at the current revision or at `revision`; undefined when absent then.
   * StoreExpiredError below the compacted revision, StoreFutureRevisionError above the current one.
   */
  get(key: string, options?: { revision?: number }): Promise<KeyValue | undefined>;
  /**
   * The value of `key` at the current revision, read without waiting, from a backend that holds
   * its data in the process (memory, SQLite); absent on the others. A get that needs nothing
   * else waited for is then answered in the turn it arrived, with no promise on its way. A wrapper
   * that changes what `get` reads (encryption) leaves it out, so reads go through its `get`.
   */
  readonly getNow?: (key: string) => KeyValue | undefined;
  /** Keys that start with `prefix`, in key order. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /** Count of keys under `prefix` at the current revision. */
  count(prefix: string): Promise<number>;

  /** Creates `key`; StoreKeyExistsError when it exists. Durable when the promise resolves. */
  create(key: string, value: string): Promise<KeyValue>;
  /** Replaces `key`'s value; StoreNotFoundError when absent, StoreConflictError on a revision mismatch. */
  update(key: string, value: string, options?: WriteOptions): Promise<KeyValue>;
  /** Deletes `key`; returns the last value with modRevision set to the delete's revision. */
  delete(key: string, options?: WriteOptions): Promise<KeyValue>;

  /**
   * Events for keys under `prefix` with revision strictly greater than `fromRevision`, in revision
   * order, without gaps or duplicates: first the retained history, then live writes. Each watch has
   * its own queue, so a slow reader delays nobody; one that falls more than `watchQueueLimit` live
   * events behind is ended (the client resumes from its last revision, as after a disconnect).
   *
   * Throws at once StoreExpiredError when `fromRevision` is older than the compacted revision,
   * StoreFutureRevisionError when it is newer than the current one, StoreClosedError after close.
   * A remote backend that learns of such a problem only later ends the iterator with the error
   * instead, so a caller handles both.
   */
  watch(prefix: string, fromRevision: number, options?: WatchOptions): Watch;

  /**
   * Resolves once the current revision is at least `revision`; StoreFutureRevisionError after
   * `timeoutMs` (the server's "Too large resource version" wait before answering 504).
   */
  waitForRevision(revision: number, timeoutMs: number): Promise<void>;

  /**
   * Drops history older than the window (called periodically by the backend itself too): the
   * compacted revision becomes the newest revision written before the window, and every key's
   * value at that revision stays readable.
   */
  compact(): Promise<void>;
  /** Ends open watches and closes the backend; later calls fail with StoreClosedError, a second close does nothing. */
  close(): Promise<void>;
}

export interface StoreOptions {
  /** How long past revisions stay readable and watchable. Default 5 minutes. */
  historyWindowMs?: number;
  /** Injectable clock (milliseconds since the epoch) for tests. */
  now?: () => number;
  /** How often the backend compacts by itself. Default 1 minute; 0 turns the timer off. */
  compactionIntervalMs?: number;
  /** Unread live events after which a watch is ended. Default 10000. */
  watchQueueLimit?: number;
  /**
   * A networked backend (etcd) prepends this to every key, so several servers or tests share one
   * cluster; the in-process backends own their storage and ignore it.
   */
  keyPrefix?: string;
}
