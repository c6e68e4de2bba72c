/**
 * Leader election between candidates on one reference server (reference/testing), each with
 * its own identity so faults can cut one off. Time is the server's clock: the retry period runs on
 * real timers (20 ms) while the lease duration and renew deadline (15 s, 10 s) are measured on the
 * clock the test jumps.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client.js';
import { type TestServer, startTestServer } from '../../reference/testing/index.js';
import { eventually } from '../client/client.testing.js';
import { isStatusError } from '../client/index.js';
import { type Clock, systemClock } from './clock.js';
import { Controller } from './controller.js';
import { LeaderElector } from './leader-election.js';

let server: TestServer;
let clock: Clock;
const stoppers: AbortController[] = [];
beforeAll(async () => {
  server = await startTestServer({ users: { a: ['system:masters'], b: ['system:masters'] } });
  clock = { now: () => server.clock.ms(), setTimer: systemClock.setTimer };
});
afterEach(async () => {
  for (const s of stoppers.splice(0)) s.abort();
  await Promise.all(candidates.splice(0).map((c) => c.done));
  await server.reset();
});
afterAll(() => server.close());

const leases = (user?: string) => createClient(user ? server.as(user).clientConfig : server.clientConfig).coordination.v1.leases('default');

interface Candidate {
  elector: LeaderElector;
  /** How often it started and stopped leading, and the leaders it was told of. */
  started: number;
  stopped: number;
  leaders: string[];
  /** The signal `onStartedLeading` got last. */
  leading: AbortSignal | undefined;
  stop: AbortController;
  done: Promise<void>;
}
const candidates: Candidate[] = [];

interface CandidateOptions {
  releaseOnCancel?: boolean;
  /** The work while leading. */
  lead?: (signal: AbortSignal) => Promise<void>;
}

function candidate(identity: 'a' | 'b', options: CandidateOptions = {}): Candidate {
  const stop = new AbortController();
  stoppers.push(stop);
  const c = { started: 0, stopped: 0, leaders: [], leading: undefined, stop } as unknown as Candidate;
  c.elector = new LeaderElector({
    leases: leases(identity),
    name: 'controller-lock',
    identity,
    retryPeriodMs: 20,
    clock,
    releaseOnCancel: options.releaseOnCancel,
    onStartedLeading: (signal) => {
      c.started++;
      c.leading = signal;
      return options.lead?.(signal);
    },
    onStoppedLeading: () => c.stopped++,
    onNewLeader: (leader) => c.leaders.push(leader),
  });
  c.done = c.elector.run(stop.signal);
  candidates.push(c);
  return c;
}

/** Two candidates; resolves once one leads and the other has seen it do so. */
async function twoCandidates(options: CandidateOptions | ((identity: 'a' | 'b') => CandidateOptions) = {}) {
  const optionsOf = typeof options === 'function' ? options : () => options;
  const a = candidate('a', optionsOf('a'));
  const b = candidate('b', optionsOf('b'));
  await eventually(() => a.started + b.started === 1, 5000, 'a leader');
  const [leader, follower] = a.started === 1 ? [a, b] : [b, a];
  await eventually(() => follower.elector.leader() === leader.elector.identity(), 5000, 'the follower sees the leader');
  return { leader, follower };
}

/** Writes another holder into the Lease, re-reading when a renewal wins the race (409). */
async function intrude(): Promise<void> {
  for (;;) {
    const lease = await leases().get('controller-lock');
    try {
      await leases().update({ ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
      return;
    } catch (e) {
      if (!(isStatusError(e) && e.code === 409)) throw e;
    }
  }
}

/**
 * Whether `user` has taken in a read of the Lease made after `other`'s first failed request: it
 * sent a second read after it (a candidate's requests are one after the other, so the first
 * read's answer was handled by then).
 */
function readAfterFailureOf(user: string, other: string): boolean {
  const all = server.requests({ resource: 'leases' });
  const failed = all.findIndex((r) => r.user === other && r.status === 500);
  return failed >= 0 && all.slice(failed).filter((r) => r.user === user && r.verb === 'get').length >= 2;
}

const renewalsBy = (user: string) => server.requests({ verb: 'update', resource: 'leases', user }).filter((r) => r.status === 200).length;

describe('LeaderElector', () => {
  it('lets exactly one of two candidates lead, which keeps renewing while the other waits', async () => {
    const { leader, follower } = await twoCandidates();
    const id = leader.elector.identity();
    const renewed = renewalsBy(id);
    await eventually(() => renewalsBy(id) >= renewed + 5, 5000, 'five more renewals');
    expect([leader.started, follower.started]).toEqual([1, 0]);
    expect(follower.leaders).toEqual([id]);
    const lease = await leases().get('controller-lock');
    expect(lease.spec).toMatchObject({ holderIdentity: id, leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(lease.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('stops leading at once when another writes the Lease; the other takes over once it expires by the clock', async () => {
    const { leader, follower } = await twoCandidates();
    await intrude();
    await eventually(() => leader.stopped === 1, 5000, 'the leader stops');
    expect(leader.leading?.aborted).toBe(true);
    // The lease runs from when the follower saw the intruder's write, by its clock.
    await eventually(() => follower.elector.leader() === 'intruder', 5000, 'the follower sees the intruder');
    expect(follower.started).toBe(0);
    server.clock.advance(16_000);
    await eventually(() => follower.started === 1, 5000, 'the follower takes over');
    expect((await leases().get('controller-lock')).spec).toMatchObject({
      holderIdentity: follower.elector.identity(),
      leaseTransitions: 1,
    });
  });

  it('a leader cut off from the server stops after the renew deadline, and the other takes over after the lease duration', async () => {
    const { leader, follower } = await twoCandidates();
    server.injectFault({ user: leader.elector.identity(), resource: 'leases', status: 500 });
    // The lease runs from when the follower last saw it renewed, by its clock.
    const [id, other] = [leader.elector.identity(), follower.elector.identity()];
    await eventually(() => readAfterFailureOf(other, id), 5000, 'a failed renewal, then a read by the follower');
    expect(leader.stopped).toBe(0); // within the renew deadline it keeps trying
    server.clock.advance(16_000); // past the renew deadline (10 s) and the lease duration (15 s)
    await eventually(() => leader.stopped === 1 && follower.started === 1, 5000, 'the leader stops and the follower leads');
    expect(leader.leading?.aborted).toBe(true);
    expect(follower.leaders).toEqual([leader.elector.identity(), follower.elector.identity()]);
  });

  it('releases the Lease on shutdown, so the other acquires it without waiting for it to expire', async () => {
    const { leader, follower } = await twoCandidates({ releaseOnCancel: true });
    leader.stop.abort();
    await leader.done;
    expect(leader.stopped).toBe(1);
    expect(leader.leaders.at(-1)).toBe(''); // it saw its own release
    // No clock jump: the released Lease (no holder) is free at once.
    await eventually(() => follower.started === 1, 5000, 'the follower acquires the released lease');
    expect((await leases().get('controller-lock')).spec).toMatchObject({
      holderIdentity: follower.elector.identity(),
      leaseTransitions: 1,
    });
  });

  it('keeps the Lease on shutdown without releaseOnCancel: the other waits for it to expire', async () => {
    const { leader, follower } = await twoCandidates();
    leader.stop.abort();
    await leader.done;
    const seen = (await leases().get('controller-lock')).spec?.holderIdentity;
    expect(seen).toBe(leader.elector.identity());
    const tries = server.requests({ verb: 'get', resource: 'leases', user: follower.elector.identity() }).length;
    await eventually(
      () => server.requests({ verb: 'get', resource: 'leases', user: follower.elector.identity() }).length >= tries + 3,
      5000,
      'three more tries',
    );
    expect(follower.started).toBe(0);
    server.clock.advance(16_000);
    await eventually(() => follower.started === 1, 5000, 'the follower acquires the expired lease');
  });

  it("runs a controller only while leading; after a release the other candidate's controller takes over", async () => {
    const reconciled: string[] = [];
    const controllerOf = (identity: 'a' | 'b') => (signal: AbortSignal) => {
      const informer = createClient(server.as(identity).clientConfig).core.v1.configMaps('default').informer();
      return new Controller({ informers: [informer], reconcile: async (key) => void reconciled.push(`${identity} ${key}`) }).run(signal);
    };
    const configMaps = createClient(server.clientConfig).core.v1.configMaps('default');
    await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first' } });
    const { leader, follower } = await twoCandidates((identity) => ({ releaseOnCancel: true, lead: controllerOf(identity) }));
    const [id, other] = [leader.elector.identity(), follower.elector.identity()];
    await eventually(() => reconciled.includes(`${id} default/first`), 5000, 'the leader reconciles');

    leader.stop.abort();
    await leader.done; // its controller drained and stopped before the Lease was released
    await eventually(() => follower.started === 1, 5000, 'the follower leads');
    await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'second' } });
    await eventually(() => reconciled.includes(`${other} default/second`), 5000, 'the new leader reconciles');
    expect(reconciled).toContain(`${other} default/first`); // its informer listed what was there
    expect(reconciled.filter((r) => r.startsWith(id))).toEqual([`${id} default/first`]);
  });

  it('refuses timings client-go refuses, and a lease duration that is not whole seconds', () => {
    const base = { leases: leases(), name: 'l', identity: 'x', onStartedLeading: () => undefined };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(
      /leaseDurationMs must be greater/,
    );
    expect(() => new LeaderElector({ ...base, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 })).toThrow(/retryPeriodMs\*1.2/);
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 15_500 })).toThrow(/whole seconds/);
    expect(() => new LeaderElector({ ...base, identity: '' })).toThrow(/identity/);
    expect(new LeaderElector(base).leader()).toBeUndefined();
  });
});
