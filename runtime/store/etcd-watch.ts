/**
 * A store watch over one etcd watch stream (the EtcdStore's watch cache opens one per shared
 * prefix): etcd's events mapped to the Store's, queued per watch, the stream reopened from the
 * last delivered revision when it breaks.
 */
import { StoreExpiredError, StoreFutureRevisionError, StoreUnavailableError } from './errors.js';
import { unavailable } from './etcd-errors.js';
import { type EtcdClient, type EtcdEvent, EventType, type WatchRequest, type WatchResponse } from './etcd-wire.js';
import { EventQueue } from './event-queue.js';
import type { Watch, WatchEvent } from './types.js';

export interface EtcdWatchOptions {
  client: EtcdClient;
  key: Buffer;
  rangeEnd: Buffer;
  fromRevision: number;
  queueLimit: number;
  retryMs: number;
  stripPrefix: number;
  onClose(): void;
  onCompacted(revision: number): void;
}

/**
 * One store watch over one etcd watch stream. Events queue per watch; the stream is reopened
 * from the last delivered revision when it breaks, so the reader sees no gap and no repeat.
 */
export class EtcdWatch implements Watch {
  readonly #o: EtcdWatchOptions;
  #stream: ReturnType<EtcdClient['watch']> | undefined;
  readonly #queue: EventQueue;
  /** The revision of the last event received (or the watch's starting point). */
  #last: number;
  /** Events up to this revision existed when the watch was created: replayed history. */
  #historyUntil = -1;
  #failingSince: number | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #backoffMs = 50;

  constructor(options: EtcdWatchOptions) {
    this.#o = options;
    this.#last = options.fromRevision;
    this.#queue = new EventQueue(options.queueLimit, () => this.#stop());
    this.#open();
  }

  get #closed(): boolean {
    return this.#queue.closed;
  }

  #open(): void {
    const stream = this.#o.client.watch();
    this.#stream = stream;
    stream.on('data', (response: WatchResponse) => {
      if (stream === this.#stream) this.#onResponse(response);
    });
    stream.on('error', (error: Error) => {
      if (stream === this.#stream) this.#onBroken(error);
    });
    stream.on('end', () => {
      if (stream === this.#stream) this.#onBroken(new Error('etcd ended the watch stream'));
    });
    stream.write({
      createRequest: {
        key: this.#o.key,
        rangeEnd: this.#o.rangeEnd,
        startRevision: this.#last + 1,
        prevKv: true,
        progressNotify: true,
      },
    } satisfies WatchRequest);
  }

  #onResponse(response: WatchResponse): void {
    if (this.#closed) return;
    if (response.compactRevision > 0) {
      this.#o.onCompacted(response.compactRevision);
      return this.#fail(new StoreExpiredError(this.#last, response.compactRevision));
    }
    if (response.created) {
      this.#failingSince = undefined;
      this.#backoffMs = 50;
      const current = response.header.revision;
      if (this.#historyUntil < 0) {
        this.#historyUntil = current;
        if (this.#o.fromRevision > current) {
          return this.#fail(new StoreFutureRevisionError(this.#o.fromRevision, current));
        }
      } else if (current < this.#last) {
        // etcd came back with less history than it had given us (restored from an older backup).
        return this.#fail(new StoreExpiredError(this.#last, current));
      }
    }
    if (response.canceled) {
      return this.#fail(new StoreUnavailableError(`etcd canceled the watch: ${response.cancelReason || 'no reason given'}`));
    }
    for (const event of response.events) {
      if (this.#closed) return;
      const mapped = this.#event(event);
      // A reopened stream starts after #last, but guard against a repeat all the same.
      if (mapped.revision <= this.#last) continue;
      this.#last = mapped.revision;
      this.#push(mapped);
    }
  }

  #event(e: EtcdEvent): WatchEvent {
    const key = e.kv.key.toString('utf8');
    const storeKey = this.#o.stripPrefix === 0 ? key : e.kv.key.subarray(this.#o.stripPrefix).toString('utf8');
    const prev = e.prevKv ?? undefined;
    if (e.type === EventType.DELETE) {
      const value = prev ? prev.value.toString('utf8') : '';
      const event: WatchEvent = {
        type: 'delete',
        key: storeKey,
        revision: e.kv.modRevision,
        value,
        createRevision: prev?.createRevision ?? 0,
      };
      if (prev) {
        event.prevValue = value;
        event.prevModRevision = prev.modRevision;
      }
      return event;
    }
    const created = e.kv.createRevision === e.kv.modRevision;
    const event: WatchEvent = {
      type: created ? 'create' : 'update',
      key: storeKey,
      revision: e.kv.modRevision,
      value: e.kv.value.toString('utf8'),
      createRevision: e.kv.createRevision,
    };
    if (!created && prev) {
      event.prevValue = prev.value.toString('utf8');
      event.prevModRevision = prev.modRevision;
    }
    return event;
  }

  #push(event: WatchEvent): void {
    // Events up to the revision current at creation are replayed history, not counted against the limit.
    this.#queue.push(event, event.revision > this.#historyUntil);
  }

  #onBroken(error: Error): void {
    if (this.#closed) return;
    this.#stream = undefined;
    const now = Date.now();
    this.#failingSince ??= now;
    if (now - this.#failingSince >= this.#o.retryMs) {
      return this.#fail(unavailable(error, 'watching'));
    }
    // The channel reconnects by itself; reopen the watch from the last revision delivered.
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (!this.#closed) this.#open();
    }, this.#backoffMs);
    this.#backoffMs = Math.min(this.#backoffMs * 2, 1_000);
  }

  #fail(error: Error): void {
    this.#queue.fail(error);
  }

  next(): Promise<IteratorResult<WatchEvent, undefined>> {
    return this.#queue.next();
  }

  close(): void {
    this.#queue.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent, undefined> {
    return this.#queue[Symbol.asyncIterator]();
  }

  /** The stream has ended (closed, overflowed or failed): stop following etcd. */
  #stop(): void {
    clearTimeout(this.#retryTimer);
    const stream = this.#stream;
    this.#stream = undefined;
    if (stream) {
      stream.removeAllListeners('data');
      stream.on('error', () => undefined);
      stream.cancel();
    }
    this.#o.onClose();
  }
}
