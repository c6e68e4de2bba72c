/**
 * The work queue's semantics as client-go's util/workqueue tests state them (queue_test.go,
 * delaying_queue_test.go, rate_limiting_queue_test.go, default_rate_limiters_test.go): the
 * expected delays and counts are theirs; time is a ManualClock, so nothing waits.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { WorkQueue } from './queue.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import { BucketRateLimiter, ItemExponentialRateLimiter, MaxOfRateLimiter, defaultControllerRateLimiter } from './rate-limiter.js';

/** Whether a promise has settled by the time queued microtasks have run. */
async function settled<T>(promise: Promise<T>): Promise<{ value: T } | undefined> {
  let result: { value: T } | undefined;
  void promise.then((value) => {
    result = { value };
  });
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return result;
}

describe('WorkQueue', () => {
  it('queues an item once however often it is added, in first-added order', async () => {
    const q = new WorkQueue<string>();
    for (const item of ['a', 'b', 'a', 'c', 'b']) q.add(item);
    expect(q.len()).toBe(3);
    expect([await q.get(), await q.get(), await q.get()]).toEqual(['a', 'b', 'c']);
  });

  it('never hands out an item being processed; one added meanwhile comes back once, after done', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    expect(await q.get()).toBe('a');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(0); // dirty, but not queued while processed
    const next = q.get();
    expect(await settled(next)).toBeUndefined();
    q.done('a');
    expect(await next).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('keeps first-added order across a long queue that is taken from while it grows', async () => {
    const q = new WorkQueue<number>();
    const out: number[] = [];
    for (let i = 0; i < 3000; i++) q.add(i);
    for (let i = 0; i < 2500; i++) out.push((await q.get())!);
    for (let i = 3000; i < 4000; i++) q.add(i);
    expect(q.len()).toBe(1500);
    while (q.len() > 0) out.push((await q.get())!);
    expect(out).toEqual(Array.from({ length: 4000 }, (_, i) => i));
  });

  it('get waits for an add', async () => {
    const q = new WorkQueue<string>();
    const waiting = q.get();
    expect(await settled(waiting)).toBeUndefined();
    q.add('x');
    expect(await waiting).toBe('x');
  });

  it('after shutDown ignores adds, still hands out what is queued, then undefined', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.shutDown();
    q.add('b');
    expect(q.shuttingDown()).toBe(true);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBeUndefined();
  });

  it('wakes waiting workers with undefined on shutDown', async () => {
    const q = new WorkQueue<string>();
    const workers = [q.get(), q.get()];
    q.shutDown();
    expect(await Promise.all(workers)).toEqual([undefined, undefined]);
  });

  it('shutDownWithDrain resolves only once queued and processing items are done', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    expect(await q.get()).toBe('a');
    q.add('a'); // dirty while processing: processed again before the drain ends
    const drained = q.shutDownWithDrain();
    q.add('c'); // after shutdown: ignored
    const processed = ['a'];
    q.done('a');
    for (let item = await q.get(); item !== undefined; item = await q.get()) {
      expect(await settled(drained)).toBeUndefined();
      processed.push(item);
      q.done(item);
    }
    expect(await settled(drained)).toEqual({ value: undefined });
    expect(processed).toEqual(['a', 'b', 'a']);
  });

  it('addAfter adds once the delay has passed, keeping the earlier of two due times', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue<string>({ clock });
    q.addAfter('a', 50);
    q.addAfter('a', 100); // later: ignored
    q.addAfter('b', 30);
    q.addAfter('b', 10); // earlier: wins
    q.addAfter('c', 0); // no delay: at once
    expect(q.len()).toBe(1);
    clock.advance(10);
    expect(q.len()).toBe(2);
    clock.advance(39);
    expect(q.len()).toBe(2);
    clock.advance(1);
    expect(q.len()).toBe(3);
    clock.advance(1000);
    expect(q.len()).toBe(3);
    expect([await q.get(), await q.get(), await q.get()]).toEqual(['c', 'b', 'a']);
  });

  it('shutDown drops items waiting for their delay', () => {
    const clock = new ManualClock();
    const q = new WorkQueue<string>({ clock });
    q.addAfter('a', 10);
    q.shutDown();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(100);
    expect(q.len()).toBe(0);
  });
});

describe('rate limiters', () => {
  it('per item: doubles from the base delay, counts failures, forget starts over (TestItemExponentialFailureRateLimiter)', () => {
    const limiter = new ItemExponentialRateLimiter<string>(1, 1000);
    expect([1, 2, 3, 4, 5].map(() => limiter.when('one'))).toEqual([1, 2, 4, 8, 16]);
    expect(limiter.numRequeues('one')).toBe(5);
    expect([limiter.when('two'), limiter.when('two')]).toEqual([1, 2]);
    expect(limiter.numRequeues('two')).toBe(2);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(1);
  });

  it('per item: capped at the maximum, without overflow (TestItemExponentialFailureRateLimiterOverFlow)', () => {
    const limiter = new ItemExponentialRateLimiter<string>(1, 1_000_000);
    for (let i = 0; i < 5; i++) limiter.when('one');
    expect(limiter.when('one')).toBe(32);
    for (let i = 0; i < 1100; i++) limiter.when('overflow');
    expect(limiter.when('overflow')).toBe(1_000_000);
  });

  it('token bucket: a burst at once, then one per 1/qps, refilled as the clock moves', () => {
    const clock = new ManualClock();
    const limiter = new BucketRateLimiter<string>(10, 100, clock);
    const delays = Array.from({ length: 103 }, (_, i) => limiter.when(`item-${i}`));
    expect(delays.slice(0, 100).every((d) => d === 0)).toBe(true);
    expect(delays.slice(100).map(Math.round)).toEqual([100, 200, 300]);
    clock.advance(1000); // 10 tokens back; 3 were owed
    expect(Math.round(limiter.when('x'))).toBe(0);
    expect(limiter.numRequeues('item-0')).toBe(0);
  });

  it('the default controller limiter is the larger of 5 ms doubling per item and 10 qps over all', () => {
    const clock = new ManualClock();
    const limiter = defaultControllerRateLimiter<string>(clock);
    expect([limiter.when('a'), limiter.when('a'), limiter.when('a')]).toEqual([5, 10, 20]);
    for (let i = 0; i < 97; i++) limiter.when(`burst-${i}`);
    // The bucket is empty: a new item's first retry waits for a token, not 5 ms.
    expect(Math.round(limiter.when('b'))).toBe(100);
    expect(limiter.numRequeues('a')).toBe(3);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(new MaxOfRateLimiter<string>().when('x')).toBe(0);
  });
});

describe('RateLimitingQueue', () => {
  it('addRateLimited waits the growing delay; forget resets it (TestRateLimitingQueue)', async () => {
    const clock = new ManualClock();
    const q = new RateLimitingQueue<string>({ clock, rateLimiter: new ItemExponentialRateLimiter(1, 1000) });
    q.addRateLimited('one');
    q.addRateLimited('one'); // 1 ms, then 2 ms: the earlier due time stays
    q.addRateLimited('two');
    expect(q.numRequeues('one')).toBe(2);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(2);
    expect([await q.get(), await q.get()]).toEqual(['one', 'two']);
    q.done('one');
    q.addRateLimited('one'); // third failure: 4 ms
    clock.advance(3);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    q.forget('one');
    expect(q.numRequeues('one')).toBe(0);
  });

  it('ignores addRateLimited once shutting down, without counting a failure', () => {
    const q = new RateLimitingQueue<string>({ clock: new ManualClock() });
    q.shutDown();
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(0);
  });
});
