/**
 * Leader election over a `coordination/v1` Lease, with client-go's semantics
 * (tools/leaderelection/leaderelection.go): a candidate acquires the Lease when it is absent,
 * released (no holder) or not renewed for `leaseDuration` by the time this candidate observed it
 * (its own clock, never the timestamps written in the Lease); the leader renews every
 * `retryPeriod` and stops leading when it cannot renew within `renewDeadline`. Every write names
 * the resourceVersion it read, so of two candidates writing at once the server lets one win (409).
 */
import { type ApiObject, type ResourceClient, isStatusError } from '../client/index.js';
import { type Clock, sleep, systemClock } from './clock.js';

/** The Lease fields leader election reads and writes (the generated `Lease` is assignable). */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends ApiObject {
  spec?: LeaseSpec;
}

/** The Lease verbs it needs: `client.coordination.v1.leases(namespace)` of a generated client. */
export type LeaseClient = Pick<ResourceClient<Lease>, 'get' | 'create' | 'update' | 'info'>;

/** client-go's JitterFactor: a candidate retries after `retryPeriod * (1 + random * 1.2)`. */
const JITTER_FACTOR = 1.2;

export interface LeaderElectionOptions {
  leases: LeaseClient;
  /** The Lease's name. */
  name: string;
  /** This candidate's identity, unique among the candidates (a pod name, a hostname plus a random suffix). */
  identity: string;
  /** How long a Lease not renewed keeps others from taking it; default 15 s. */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it stops leading; default 10 s. */
  renewDeadlineMs?: number;
  /** The pause between attempts to acquire or renew; default 2 s. */
  retryPeriodMs?: number;
  /** On stopping, empty the Lease's holder so another candidate acquires it at once. */
  releaseOnCancel?: boolean;
  clock?: Clock;
  /** Runs while leading; `signal` aborts when leadership ends. */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called once `run` ends, whether it led or not. */
  onStoppedLeading?: () => void;
  /** Called when the observed holder changes (`''` once the Lease is released). */
  onNewLeader?: (identity: string) => void;
  /** Told about failed requests (they are retried) and errors thrown by `onStartedLeading`. */
  onError?: (error: unknown) => void;
}

export class LeaderElector {
  readonly #o: Required<Pick<LeaderElectionOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>> & LeaderElectionOptions;
  readonly #clock: Clock;
  /** The Lease as last read or written (its resourceVersion guards the next write). */
  #lease: Lease | undefined;
  /** The spec last observed, as text, and when (this clock) it was first seen. */
  #observedSpec = '';
  #observedAt = 0;
  #reportedLeader: string | undefined;

  constructor(options: LeaderElectionOptions) {
    const o = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...options };
    // client-go's NewLeaderElector checks.
    if (!(o.leaseDurationMs > o.renewDeadlineMs)) throw new RangeError('leaseDurationMs must be greater than renewDeadlineMs');
    if (!(o.renewDeadlineMs > JITTER_FACTOR * o.retryPeriodMs))
      throw new RangeError(`renewDeadlineMs must be greater than retryPeriodMs*${JITTER_FACTOR}`);
    if (!(o.retryPeriodMs > 0)) throw new RangeError('retryPeriodMs must be greater than zero');
    if (o.leaseDurationMs % 1000 !== 0) throw new RangeError('leaseDurationMs must be whole seconds (the Lease stores seconds)');
    if (!o.identity) throw new TypeError('identity must not be empty');
    this.#o = o;
    this.#clock = options.clock ?? systemClock;
  }

  /** This candidate's identity. */
  identity(): string {
    return this.#o.identity;
  }

  /** The holder last observed ('' when released, undefined before the first read). */
  leader(): string | undefined {
    return this.#lease?.spec?.holderIdentity;
  }

  isLeader(): boolean {
    return this.leader() === this.#o.identity;
  }

  /**
   * Tries to acquire the Lease until `signal` aborts; once acquired, runs `onStartedLeading` and
   * renews until the renewal fails or `signal` aborts. Then aborts the leading signal, waits for
   * `onStartedLeading` to finish, releases the Lease (`releaseOnCancel`) and resolves.
   */
  async run(signal: AbortSignal): Promise<void> {
    try {
      if (!(await this.#acquire(signal))) return;
      const leading = new AbortController();
      const stopLeading = () => leading.abort(signal.reason);
      signal.addEventListener('abort', stopLeading, { once: true });
      const work = Promise.resolve()
        .then(() => this.#o.onStartedLeading(leading.signal))
        .catch((e: unknown) => this.#o.onError?.(e));
      await this.#renew(signal);
      signal.removeEventListener('abort', stopLeading);
      leading.abort(new Error(`lost the lease ${this.#o.name}`));
      await work;
      if (this.#o.releaseOnCancel) await this.#release();
    } finally {
      this.#o.onStoppedLeading?.();
    }
  }

  /** Retries every jittered retry period until acquired (true) or aborted (false). */
  async #acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      const acquired = await this.#tryAcquireOrRenew(signal);
      this.#reportTransition();
      if (acquired) return true;
      try {
        await sleep(this.#clock, this.#o.retryPeriodMs * (1 + Math.random() * JITTER_FACTOR), signal);
      } catch {
        return false;
      }
    }
    return false;
  }

  /**
   * Renews every retry period; resolves when `signal` aborts or a renewal fails: for
   * `renewDeadline` of this clock, or at once when another candidate is seen holding the Lease.
   */
  async #renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const started = this.#clock.now();
      const deadline = new AbortController();
      const cancelDeadline = this.#clock.setTimer(this.#o.renewDeadlineMs, () => deadline.abort(new Error('renew deadline passed')));
      const attempt = AbortSignal.any([signal, deadline.signal]);
      try {
        for (;;) {
          if (await this.#tryAcquireOrRenew(attempt)) break;
          if (signal.aborted || !this.isLeader() || this.#clock.now() - started >= this.#o.renewDeadlineMs) return;
          await sleep(this.#clock, this.#o.retryPeriodMs, attempt);
        }
      } catch {
        return; // the deadline or the caller's signal aborted the wait
      } finally {
        cancelDeadline();
        this.#reportTransition();
      }
      try {
        await sleep(this.#clock, this.#o.retryPeriodMs, signal);
      } catch {
        return;
      }
    }
  }

  /** One attempt (client-go's tryAcquireOrRenew): true when this candidate holds the Lease after it. */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.#clock.now();
    const desired: LeaseSpec = {
      holderIdentity: this.#o.identity,
      leaseDurationSeconds: this.#o.leaseDurationMs / 1000,
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    // The leader's fast path: write over the Lease it last saw, without reading it first.
    if (this.isLeader() && this.#leaseValid(now)) {
      const spec = this.#lease!.spec!;
      const written = await this.#write(
        'update',
        { ...this.#lease, spec: { ...desired, acquireTime: spec.acquireTime, leaseTransitions: spec.leaseTransitions } },
        signal,
      );
      if (written) return true;
    }
    let current: Lease;
    try {
      current = await this.#o.leases.get(this.#o.name, { signal });
    } catch (e) {
      if (!(isStatusError(e) && e.code === 404)) return this.#failed(e, signal);
      const { group, version, kind } = this.#o.leases.info;
      const lease: Lease = { apiVersion: `${group}/${version}`, kind, metadata: { name: this.#o.name }, spec: desired };
      return this.#write('create', lease, signal);
    }
    this.#observe(current);
    const spec = current.spec ?? {};
    if (spec.holderIdentity && this.#leaseValid(now) && !this.isLeader()) return false;
    const next = this.isLeader()
      ? { ...desired, acquireTime: spec.acquireTime, leaseTransitions: spec.leaseTransitions }
      : { ...desired, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
    return this.#write('update', { ...current, spec: next }, signal);
  }

  /** Empties the holder (client-go's tryRelease), re-reading after a conflict. */
  async #release(): Promise<void> {
    const signal = AbortSignal.timeout(this.#o.renewDeadlineMs);
    for (let attempt = 0; attempt < 5; attempt++) {
      let current: Lease;
      try {
        current = await this.#o.leases.get(this.#o.name, { signal });
      } catch (e) {
        this.#o.onError?.(e);
        return;
      }
      this.#observe(current);
      if (!this.isLeader()) return;
      const now = microTime(this.#clock.now());
      const released: LeaseSpec = {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: current.spec?.leaseTransitions,
      };
      try {
        this.#observe(await this.#o.leases.update({ ...current, spec: released }, { signal }));
        this.#reportTransition();
        return;
      } catch (e) {
        if (!(isStatusError(e) && e.code === 409)) return void this.#o.onError?.(e);
      }
    }
  }

  async #write(verb: 'create' | 'update', lease: Lease, signal: AbortSignal): Promise<boolean> {
    try {
      this.#observe(await this.#o.leases[verb](lease, { signal }));
      return true;
    } catch (e) {
      return this.#failed(e, signal);
    }
  }

  #failed(error: unknown, signal: AbortSignal): false {
    // A 409 is another candidate's write winning, and an abort is the caller stopping: neither is a failure to report.
    if (!signal.aborted && !(isStatusError(error) && error.code === 409)) this.#o.onError?.(error);
    return false;
  }

  /** Records the Lease; a spec not seen before starts its observed time now. */
  #observe(lease: Lease): void {
    this.#lease = lease;
    const spec = JSON.stringify(lease.spec ?? {});
    if (spec === this.#observedSpec) return;
    this.#observedSpec = spec;
    this.#observedAt = this.#clock.now();
  }

  #leaseValid(now: number): boolean {
    return this.#observedAt + (this.#lease?.spec?.leaseDurationSeconds ?? 0) * 1000 > now;
  }

  #reportTransition(): void {
    const holder = this.leader();
    if (holder === undefined || holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    this.#o.onNewLeader?.(holder);
  }
}

/** A MicroTime as the API writes it: RFC 3339 with six fraction digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
