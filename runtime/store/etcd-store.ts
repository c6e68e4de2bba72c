/**
 * The etcd backend: the Store contract mapped one to one onto etcd's v3 API, as kube-apiserver's
 * storage/etcd3 does it. The etcd revision is the resource version; several servers (and tests)
 * can share one cluster, each under its own key prefix, and see each other's writes and events.
 *
 * - Writes are transactions conditioned on the key's mod_revision (create: mod_revision == 0;
 *   update/delete: version > 0, and mod_revision == the expected one when given); a failed
 *   condition reads the key in the same transaction to say which error it is. etcd answers after
 *   the raft commit and its WAL fsync, so a resolved write is durable.
 * - Reads pass `revision` to Range; `more` is etcd's, `remaining` its `count` of the same response
 *   (the keys of the range at that revision, unaffected by the limit) minus the returned items.
 * - Watches are etcd watches (etcd-watch.ts) from `fromRevision + 1` with prev_kv; a lost stream
 *   is reopened from the last delivered revision, so events stay gapless, and a watch whose
 *   revision etcd has compacted meanwhile ends with StoreExpiredError. A watch cache
 *   (watch-cache.ts) keeps one such etcd watch per shared prefix (a resource) and fans it out to
 *   the store's watches.
 * - The history window is time-based while etcd counts revisions: the store samples (time,
 *   revision) on its writes and on its compaction timer, and compacts to the newest revision
 *   written before the window (kube-apiserver's compactor does the same with its interval). The
 *   compacted revision is not stored anywhere: etcd answers a Range below it with ErrCompacted, so
 *   the store finds it after a restart with a binary search of revision probes.
 *
 * `createStore('etcd://host:port[,host:port...][?prefix=/p&ca=ca.pem&cert=c.pem&key=k.pem]')`
 * opens one (TLS when `ca`, `cert` or `key` is given; the files are PEM).
 */
import {
  StoreClosedError,
  StoreConflictError,
  StoreExpiredError,
  StoreFutureRevisionError,
  StoreKeyExistsError,
  StoreNotFoundError,
  StoreUnavailableError,
} from './errors.js';
import {
  CompareResult,
  CompareTarget,
  type EtcdConnection,
  type EtcdKeyValue,
  EtcdClient,
  GrpcStatus,
  type WatchRequest,
  type WatchResponse,
} from './etcd-wire.js';
import { grpcCode, isCompactedError, isContractError, isFutureRevisionError, unavailable } from './etcd-errors.js';
import { EtcdWatch } from './etcd-watch.js';
import { assertValidKey, compareKeys } from './key-order.js';
import type { KeyValue, ListOptions, ListResult, Store, StoreOptions, Watch, WatchOptions, WriteOptions } from './types.js';
import { WatchCache } from './watch-cache.js';

export interface EtcdStoreOptions extends StoreOptions, EtcdConnection {
  /** How long a watch keeps trying to reopen its stream before it ends with StoreUnavailableError. Default 30 s. */
  watchRetryMs?: number;
  /** Events the watch cache keeps per shared prefix for watches that start in the past. Default 1000. */
  watchCacheCapacity?: number;
  /** And at most about this many bytes of them. Default 64 MiB. */
  watchCacheBytes?: number;
}

const DEFAULT_HISTORY_WINDOW_MS = 5 * 60_000;
const DEFAULT_COMPACTION_INTERVAL_MS = 60_000;
const DEFAULT_WATCH_QUEUE_LIMIT = 10_000;
/** How long a read is retried while etcd is unavailable (an election, a member moving). */
const READ_RETRY_MS = 5_000;
/** Samples of (time, revision) closer together than this share one entry. */
const SAMPLE_GRANULARITY_MS = 1_000;

interface Sample {
  /** When the bucket started. */
  start: number;
  /** The newest time and revision seen in the bucket. */
  time: number;
  revision: number;
}

export class EtcdStore implements Store {
  readonly #client: EtcdClient;
  readonly #prefix: string;
  readonly #now: () => number;
  readonly #historyWindowMs: number;
  readonly #watchQueueLimit: number;
  readonly #watchRetryMs: number;
  readonly #compactionTimer: NodeJS.Timeout | undefined;
  readonly #watches = new Set<EtcdWatch>();
  readonly #cache: WatchCache;
  /** The newest revision etcd has shown this store (in any response header): known to exist. */
  #seen = 0;
  readonly #waiters = new Set<() => void>();
  /** The tail of the write chain of each key: writes to one key apply in the order they were issued. */
  readonly #keyTails = new Map<string, Promise<unknown>>();
  #samples: Sample[] = [];
  #compacted: number;
  #compacting = false;
  #closed = false;

  private constructor(client: EtcdClient, compacted: number, options: EtcdStoreOptions) {
    this.#client = client;
    this.#compacted = compacted;
    this.#prefix = options.keyPrefix ?? '';
    this.#now = options.now ?? Date.now;
    this.#historyWindowMs = options.historyWindowMs ?? DEFAULT_HISTORY_WINDOW_MS;
    this.#watchQueueLimit = options.watchQueueLimit ?? DEFAULT_WATCH_QUEUE_LIMIT;
    this.#watchRetryMs = options.watchRetryMs ?? 30_000;
    this.#cache = new WatchCache({
      open: (prefix, from) => this.#etcdWatch(prefix, from),
      capacity: options.watchCacheCapacity ?? 1000,
      capacityBytes: options.watchCacheBytes ?? 64 * 1024 * 1024,
      queueLimit: this.#watchQueueLimit,
    });
    const interval = options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
    if (interval > 0) {
      this.#compactionTimer = setInterval(() => void this.#compactInBackground(), interval);
      this.#compactionTimer.unref();
    }
  }

  /** Connects, checks that etcd answers, and learns its compacted revision. */
  static async connect(options: EtcdStoreOptions): Promise<EtcdStore> {
    const client = await EtcdClient.connect(options);
    try {
      const prefix = options.keyPrefix ?? '';
      const probeKey = Buffer.from(prefix === '' ? '\0' : prefix);
      const compacted = await findCompacted(client, probeKey, 0);
      return new EtcdStore(client, compacted, options);
    } catch (error) {
      client.close();
      throw unavailable(error, 'connecting to etcd');
    }
  }

  async currentRevision(): Promise<number> {
    this.#assertOpen();
    return this.#fetchCurrent();
  }

  async compactedRevision(): Promise<number> {
    this.#assertOpen();
    await this.#refreshCompacted();
    return this.#compacted;
  }

  async get(key: string, options: { revision?: number } = {}): Promise<KeyValue | undefined> {
    this.#assertOpen();
    const { revision } = options;
    if (revision !== undefined && this.#beforeFirstRevision(revision)) return undefined;
    const response = await this.#read(revision, () => this.#client.range({ key: this.#etcdKey(key), revision: revision ?? 0 }));
    this.#observe(response.header.revision);
    const kv = response.kvs[0];
    return kv ? this.#keyValue(kv) : undefined;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.#assertOpen();
    const { limit, revision, startAfter } = options;
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
      throw new RangeError(`list limit must be a positive integer, got ${limit}`);
    }
    if (revision !== undefined && this.#beforeFirstRevision(revision)) return { items: [], revision: 0, more: false, remaining: 0 };
    const range = this.#prefixRange(prefix);
    const from =
      startAfter !== undefined && compareKeys(startAfter, prefix) >= 0
        ? Buffer.concat([this.#etcdKey(startAfter), Buffer.from([0])])
        : range.key;
    const response = await this.#read(revision, () =>
      this.#client.range({ key: from, rangeEnd: range.rangeEnd, revision: revision ?? 0, limit: limit ?? 0 }),
    );
    this.#observe(response.header.revision);
    const items = response.kvs.map((kv) => this.#keyValue(kv));
    return {
      items,
      revision: revision ?? response.header.revision,
      more: response.more,
      // etcd counts the whole range in every response anyway.
      remaining: Math.max(0, response.count - items.length),
    };
  }

  async count(prefix: string): Promise<number> {
    this.#assertOpen();
    const range = this.#prefixRange(prefix);
    const response = await this.#read(undefined, () => this.#client.range({ ...range, countOnly: true }));
    return response.count;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.#assertOpen();
    assertValidKey(key);
    return this.#write(key, async () => {
      const k = this.#etcdKey(key);
      const response = await this.#client.txn({
        compare: [{ result: CompareResult.EQUAL, target: CompareTarget.MOD, key: k, modRevision: 0 }],
        success: [{ requestPut: { key: k, value: Buffer.from(value) } }],
        failure: [],
      });
      if (!response.succeeded) throw new StoreKeyExistsError(key);
      const revision = response.header.revision;
      this.#sample(revision);
      return { key, value, modRevision: revision, createRevision: revision };
    });
  }

  async update(key: string, value: string, options: WriteOptions = {}): Promise<KeyValue> {
    this.#assertOpen();
    return this.#write(key, async () => {
      const k = this.#etcdKey(key);
      const response = await this.#client.txn({
        compare: this.#existsAt(k, options.expectedModRevision),
        success: [{ requestPut: { key: k, value: Buffer.from(value), prevKv: true } }],
        failure: [{ requestRange: { key: k } }],
      });
      if (!response.succeeded) throw this.#conditionFailed(key, options, response.responses[0]?.responseRange?.kvs[0]);
      const previous = response.responses[0]?.responsePut?.prevKv;
      const revision = response.header.revision;
      this.#sample(revision);
      return { key, value, modRevision: revision, createRevision: previous?.createRevision ?? revision };
    });
  }

  async delete(key: string, options: WriteOptions = {}): Promise<KeyValue> {
    this.#assertOpen();
    return this.#write(key, async () => {
      const k = this.#etcdKey(key);
      const response = await this.#client.txn({
        compare: this.#existsAt(k, options.expectedModRevision),
        success: [{ requestDeleteRange: { key: k, prevKv: true } }],
        failure: [{ requestRange: { key: k } }],
      });
      if (!response.succeeded) throw this.#conditionFailed(key, options, response.responses[0]?.responseRange?.kvs[0]);
      const previous = response.responses[0]?.responseDeleteRange?.prevKvs[0];
      const revision = response.header.revision;
      this.#sample(revision);
      return {
        key,
        value: previous ? previous.value.toString('utf8') : '',
        modRevision: revision,
        createRevision: previous?.createRevision ?? 0,
      };
    });
  }

  watch(prefix: string, fromRevision: number, options: WatchOptions = {}): Watch {
    this.#assertOpen();
    assertRevision(fromRevision);
    // The compacted revision only grows, so an older one is known to be gone; a future revision
    // is known only once etcd answers, and then ends the iterator instead.
    if (fromRevision < this.#compacted) throw new StoreExpiredError(fromRevision, this.#compacted);
    return this.#cache.watch(options.sharedPrefix ?? prefix, prefix, fromRevision, this.#seen);
  }

  /** One etcd watch stream (the watch cache's upstream, or a client's own when the cache cannot serve it). */
  #etcdWatch(prefix: string, fromRevision: number): Watch {
    const watch = new EtcdWatch({
      client: this.#client,
      ...this.#prefixRange(prefix),
      fromRevision,
      queueLimit: this.#watchQueueLimit,
      retryMs: this.#watchRetryMs,
      stripPrefix: this.#prefix.length === 0 ? 0 : Buffer.byteLength(this.#prefix),
      onClose: () => this.#watches.delete(watch),
      onCompacted: (revision) => {
        this.#compacted = Math.max(this.#compacted, revision);
      },
    });
    this.#watches.add(watch);
    return watch;
  }

  /** How many etcd watch streams are open (the watch cache's upstreams and clients' own). */
  get etcdWatchCount(): number {
    return this.#watches.size;
  }

  async waitForRevision(revision: number, timeoutMs: number): Promise<void> {
    this.#assertOpen();
    assertRevision(revision);
    const current = await this.#fetchCurrent();
    if (revision <= current) return;
    // A watch over every key from `revision`: its first event (or a progress header) says it was reached.
    await new Promise<void>((resolve, reject) => {
      let stream: ReturnType<EtcdClient['watch']> | undefined;
      let latest = current;
      let done = false;
      const finish = (error?: Error): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.#waiters.delete(onClose);
        stream?.removeAllListeners('data');
        stream?.on('error', () => undefined);
        stream?.cancel();
        if (error) reject(error);
        else resolve();
      };
      const onClose = (): void => finish(new StoreClosedError());
      const timer = setTimeout(() => finish(new StoreFutureRevisionError(revision, latest)), timeoutMs);
      this.#waiters.add(onClose);
      stream = this.#client.watch();
      stream.on('data', (response: WatchResponse) => {
        latest = Math.max(latest, response.header.revision);
        if (latest >= revision || response.events.length > 0 || response.compactRevision > 0) finish();
      });
      stream.on('error', (error: Error) => finish(unavailable(error, 'waiting for a revision')));
      stream.on('end', () => finish(new StoreUnavailableError('etcd ended the watch stream while waiting for a revision')));
      const all = Buffer.from([0]);
      stream.write({ createRequest: { key: all, rangeEnd: all, startRevision: revision } } satisfies WatchRequest);
    });
  }

  async compact(): Promise<void> {
    this.#assertOpen();
    this.#sample(await this.#fetchCurrent());
    const cutoff = this.#now() - this.#historyWindowMs;
    let target = 0;
    let keepFrom = 0;
    this.#samples.forEach((s, i) => {
      if (s.time <= cutoff) {
        target = s.revision;
        keepFrom = i;
      }
    });
    // The chosen sample stays: its revision is the floor of the next compaction too.
    this.#samples = this.#samples.slice(keepFrom);
    if (target <= this.#compacted) return;
    try {
      await this.#client.compact(target);
    } catch (error) {
      // Another server compacted further already: fine, learn how far.
      if (!isCompactedError(error)) throw unavailable(error, 'compacting');
      await this.#refreshCompacted();
      return;
    }
    this.#compacted = Math.max(this.#compacted, target);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#compactionTimer);
    this.#cache.close();
    for (const watch of [...this.#watches]) watch.close();
    for (const onClose of [...this.#waiters]) onClose();
    // Writes already issued finish (they may have reached etcd) before the channel closes.
    await Promise.allSettled([...this.#keyTails.values()]);
    this.#client.close();
  }

  // ---- internals ----

  #etcdKey(key: string): Buffer {
    return Buffer.from(this.#prefix + key, 'utf8');
  }

  /**
   * The etcd range of the keys under `prefix`. etcd refuses an empty key, so the empty prefix
   * (no key prefix either) starts at "\0", the smallest key there is.
   */
  #prefixRange(prefix: string): { key: Buffer; rangeEnd: Buffer } {
    const raw = this.#etcdKey(prefix);
    return { key: raw.length > 0 ? raw : Buffer.from([0]), rangeEnd: prefixEnd(raw) };
  }

  /** A key for calls that only want a response header or a revision check. */
  #probeKey(): Buffer {
    return this.#prefixRange('').key;
  }

  #keyValue(kv: EtcdKeyValue): KeyValue {
    return {
      key: kv.key.toString('utf8').slice(this.#prefix.length),
      value: kv.value.toString('utf8'),
      modRevision: kv.modRevision,
      createRevision: kv.createRevision,
    };
  }

  /** etcd reads revision 0 as "now"; in the contract it is the empty state before the first write. */
  #beforeFirstRevision(revision: number): boolean {
    assertRevision(revision);
    if (revision !== 0) return false;
    if (this.#compacted > 0) throw new StoreExpiredError(0, this.#compacted);
    return true;
  }

  #existsAt(key: Buffer, expected: number | undefined) {
    const exists = { result: CompareResult.GREATER, target: CompareTarget.VERSION, key, version: 0 };
    if (expected === undefined) return [exists];
    return [exists, { result: CompareResult.EQUAL, target: CompareTarget.MOD, key, modRevision: expected }];
  }

  #conditionFailed(key: string, options: WriteOptions, current: EtcdKeyValue | undefined): Error {
    if (!current) return new StoreNotFoundError(key);
    return new StoreConflictError(key, options.expectedModRevision ?? 0, current.modRevision);
  }

  /** Runs `fn` after the writes to `key` issued before it, mapping transport errors. */
  #write<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#keyTails.get(key) ?? Promise.resolve();
    const result = before.then(
      () => fn(),
      () => fn(),
    );
    const mapped = result.catch((error: unknown) => {
      throw isContractError(error) ? error : unavailable(error, `writing ${JSON.stringify(key)}; the write may or may not have committed`);
    });
    const tail = mapped.catch(() => undefined);
    this.#keyTails.set(key, tail);
    void tail.then(() => {
      if (this.#keyTails.get(key) === tail) this.#keyTails.delete(key);
    });
    return mapped;
  }

  /** A read at `revision` (current when undefined) with etcd's revision errors mapped to the contract's. */
  async #read<T>(revision: number | undefined, call: () => Promise<T>): Promise<T> {
    try {
      return await this.#retryingRead(call);
    } catch (error) {
      if (revision !== undefined && isCompactedError(error)) {
        await this.#refreshCompacted();
        throw new StoreExpiredError(revision, this.#compacted);
      }
      if (revision !== undefined && isFutureRevisionError(error)) {
        throw new StoreFutureRevisionError(revision, await this.#fetchCurrent());
      }
      throw unavailable(error, 'reading');
    }
  }

  async #fetchCurrent(): Promise<number> {
    try {
      const response = await this.#retryingRead(() => this.#client.range({ key: this.#probeKey(), countOnly: true }));
      this.#observe(response.header.revision);
      return response.header.revision;
    } catch (error) {
      throw unavailable(error, 'reading the current revision');
    }
  }

  /**
   * A read retried while etcd answers UNAVAILABLE (a member went away and the channel is moving to
   * another, or a leader election is under way) for up to READ_RETRY_MS. Reads change nothing, so
   * a retry is safe; writes are never retried (a lost answer to a create that committed would come
   * back as AlreadyExists).
   */
  async #retryingRead<T>(call: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + READ_RETRY_MS;
    for (let backoff = 25; ; backoff = Math.min(backoff * 2, 500)) {
      try {
        return await call();
      } catch (error) {
        if (grpcCode(error) !== GrpcStatus.UNAVAILABLE || this.#closed || Date.now() + backoff > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, backoff));
      }
    }
  }

  async #refreshCompacted(): Promise<void> {
    try {
      this.#compacted = await findCompacted(this.#client, this.#probeKey(), this.#compacted);
    } catch (error) {
      throw unavailable(error, 'reading the compacted revision');
    }
  }

  #observe(revision: number): void {
    if (revision > this.#seen) this.#seen = revision;
  }

  #sample(revision: number): void {
    this.#observe(revision);
    const time = this.#now();
    const last = this.#samples.at(-1);
    if (last && revision <= last.revision) return;
    if (last && time - last.start < SAMPLE_GRANULARITY_MS && time >= last.time) {
      last.time = time;
      last.revision = revision;
    } else {
      this.#samples.push({ start: time, time: Math.max(time, last?.time ?? time), revision });
    }
  }

  async #compactInBackground(): Promise<void> {
    // One at a time: a tick that finds the previous compaction still running skips.
    if (this.#closed || this.#compacting) return;
    this.#compacting = true;
    try {
      await this.compact();
    } catch (error) {
      if (this.#closed) return;
      process.emitWarning(`etcd compaction failed: ${String(error)}`, 'StoreCompactionWarning');
    } finally {
      this.#compacting = false;
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreClosedError();
  }
}

/**
 * The oldest revision etcd can still read, found by probing Range at revisions: below the
 * compacted revision etcd answers ErrCompacted. 0 when nothing was compacted. `atLeast` is a
 * revision known to be compacted or 0.
 */
async function findCompacted(client: EtcdClient, probeKey: Buffer, atLeast: number): Promise<number> {
  const readable = async (revision: number): Promise<boolean> => {
    try {
      await client.range({ key: probeKey, revision, countOnly: true });
      return true;
    } catch (error) {
      if (isCompactedError(error)) return false;
      throw error;
    }
  };
  const start = Math.max(1, atLeast);
  if (await readable(start)) return atLeast;
  const current = (await client.range({ key: probeKey, countOnly: true })).header.revision;
  let lo = start; // not readable
  let hi = current; // the current revision is always readable
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await readable(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The smallest key greater than every key that starts with `prefix` (byte order); "\0" for all keys. */
function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]! += 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

function assertRevision(revision: number): void {
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw new RangeError(`revision must be a non-negative integer, got ${revision}`);
  }
}
