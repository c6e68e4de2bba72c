import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startServer } from '../server.testing.js';
import { type EventLimit, eventRateLimit } from './index.js';

const events = (ns: string) => `/api/v1/namespaces/${ns}/events`;
let counter = 0;
function event(ns: string, source = 'kubelet', object = 'pod-a') {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `e${++counter}`, namespace: ns },
    involvedObject: { kind: 'Pod', namespace: ns, name: object, apiVersion: 'v1' },
    source: { component: source },
    reason: 'Test',
  };
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A server whose EventRateLimit reads `clock.ms`. */
async function serverWith(limits: EventLimit[]) {
  const clock = { ms: 1_000_000 };
  h = await startServer({ server: { admission: [eventRateLimit(limits, { now: () => clock.ms })] } });
  return { h, clock };
}

async function statuses(h: Harness, n: number, body: () => unknown, path = events(h.ns)): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await h.post(path, body())).status);
  return out;
}

describe('EventRateLimit', () => {
  it('a bucket starts full at burst, refuses with 429 once spent, and refills qps tokens a second', async () => {
    const { h, clock } = await serverWith([{ type: 'Server', qps: 2, burst: 3 }]);
    expect(await statuses(h, 4, () => event(h.ns))).toEqual([201, 201, 201, 429]);
    const refused = await h.post(events(h.ns), event(h.ns));
    expect(refused.body).toMatchObject({
      reason: 'TooManyRequests',
      code: 429,
      message: 'Too many requests: limit reached on type Server for key ',
    });
    expect(refused.headers['retry-after']).toBeUndefined();
    clock.ms += 1000; // two tokens
    expect(await statuses(h, 3, () => event(h.ns))).toEqual([201, 201, 429]);
    clock.ms += 60_000; // refill stops at burst
    expect(await statuses(h, 4, () => event(h.ns))).toEqual([201, 201, 201, 429]);
  });

  it('non-events and dry runs are never counted', async () => {
    const { h } = await serverWith([{ type: 'Server', qps: 1, burst: 1 }]);
    for (let i = 0; i < 3; i++) {
      const res = await h.post(`/api/v1/namespaces/${h.ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `c${i}` },
      });
      expect(res.status).toBe(201);
    }
    expect((await h.post(`${events(h.ns)}?dryRun=All`, event(h.ns))).status).toBe(201);
    expect(await statuses(h, 2, () => event(h.ns))).toEqual([201, 429]);
  });

  it('Namespace, User and SourceAndObject keep a bucket per key', async () => {
    const { h } = await serverWith([{ type: 'Namespace', qps: 1, burst: 1 }]);
    await h.createNamespace('other');
    expect((await h.post(events(h.ns), event(h.ns))).status).toBe(201);
    expect((await h.post(events(h.ns), event(h.ns))).status).toBe(429);
    expect((await h.post(events('other'), event('other'))).status).toBe(201);
    await h.close();

    const s = await serverWith([{ type: 'SourceAndObject', qps: 1, burst: 1 }]);
    expect((await s.h.post(events(s.h.ns), event(s.h.ns, 'kubelet', 'a'))).status).toBe(201);
    expect((await s.h.post(events(s.h.ns), event(s.h.ns, 'kubelet', 'a'))).status).toBe(429);
    expect((await s.h.post(events(s.h.ns), event(s.h.ns, 'kubelet', 'b'))).status).toBe(201);
    expect((await s.h.post(events(s.h.ns), event(s.h.ns, 'scheduler', 'a'))).status).toBe(201);
    await s.h.close();

    // Every request here is anonymous: one User bucket.
    const u = await serverWith([{ type: 'User', qps: 1, burst: 1 }]);
    expect(await statuses(u.h, 2, () => event(u.h.ns))).toEqual([201, 429]);
  });

  it('an evicted bucket (LRU past cacheSize) starts again with a full burst', async () => {
    const { h } = await serverWith([{ type: 'SourceAndObject', qps: 1, burst: 1, cacheSize: 2 }]);
    expect((await h.post(events(h.ns), event(h.ns, 's', 'a'))).status).toBe(201);
    expect((await h.post(events(h.ns), event(h.ns, 's', 'a'))).status).toBe(429);
    // b and c push a out of a cache of two.
    expect((await h.post(events(h.ns), event(h.ns, 's', 'b'))).status).toBe(201);
    expect((await h.post(events(h.ns), event(h.ns, 's', 'c'))).status).toBe(201);
    expect((await h.post(events(h.ns), event(h.ns, 's', 'a'))).status).toBe(201);
  });

  it('every limit is charged, and the refusal names each limit reached', async () => {
    const { h, clock } = await serverWith([
      { type: 'Server', qps: 1, burst: 3 },
      { type: 'SourceAndObject', qps: 1, burst: 1 },
    ]);
    expect((await h.post(events(h.ns), event(h.ns, 's', 'a'))).status).toBe(201);
    // Refused by SourceAndObject, but the Server bucket is charged too.
    expect((await h.post(events(h.ns), event(h.ns, 's', 'a'))).status).toBe(429);
    expect((await h.post(events(h.ns), event(h.ns, 's', 'b'))).status).toBe(201);
    const both = await h.post(events(h.ns), event(h.ns, 's', 'b'));
    expect(both.status).toBe(429);
    expect(both.body.message).toBe(
      `Too many requests: [limit reached on type Server for key , limit reached on type SourceAndObject for key sPod${h.ns}bv1]`,
    );
    clock.ms += 1000;
    expect((await h.post(events(h.ns), event(h.ns, 's', 'c'))).status).toBe(201);
  });
});
