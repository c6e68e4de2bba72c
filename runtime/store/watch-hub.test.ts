import { describe, expect, it } from 'vitest';
import type { WatchEvent } from './types.js';
import { WatchHub } from './watch-hub.js';

const event = (revision: number, key = '/k/a'): WatchEvent => ({
  type: 'update',
  key,
  revision,
  value: String(revision),
  createRevision: 1,
});

describe('watch hub', () => {
  it('delivers thousands of buffered events in order', async () => {
    const hub = new WatchHub(100_000);
    const watch = hub.open('/k/', [event(1), event(2)]);
    for (let r = 3; r <= 5000; r++) hub.publish(event(r));
    hub.publish(event(5001, '/other/x'));
    const seen: number[] = [];
    for await (const e of watch) {
      seen.push(e.revision);
      if (seen.length === 4999) hub.publish(event(5002));
      if (e.revision === 5002) break;
    }
    expect(seen).toEqual([...Array.from({ length: 5000 }, (_, i) => i + 1), 5002]);
    expect(hub.size).toBe(0);
  });

  it('hands an event straight to a waiting reader', async () => {
    const hub = new WatchHub(1);
    const watch = hub.open('/k/', []);
    const iterator = watch[Symbol.asyncIterator]();
    const first = iterator.next();
    const second = iterator.next();
    hub.publish(event(1));
    hub.publish(event(2));
    expect((await first).value).toMatchObject({ revision: 1 });
    expect((await second).value).toMatchObject({ revision: 2 });
    hub.closeAll();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('ends every watch with the error of its source, after the events already queued', async () => {
    const hub = new WatchHub(10);
    const queued = hub.open('/k/', []);
    const waiting = hub.open('/k/', []);
    const pending = waiting[Symbol.asyncIterator]().next();
    hub.publish(event(1, '/k/b'));
    await pending;
    hub.publish(event(2));
    const gone = new Error('etcd went away');
    hub.closeAll(gone);
    const iterator = queued[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ revision: 1 });
    expect((await iterator.next()).value).toMatchObject({ revision: 2 });
    await expect(iterator.next()).rejects.toBe(gone);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    const other = waiting[Symbol.asyncIterator]();
    expect((await other.next()).value).toMatchObject({ revision: 2 });
    await expect(other.next()).rejects.toBe(gone);
    expect(hub.size).toBe(0);
  });

  it('does not count replayed events against the limit, only live ones', async () => {
    const hub = new WatchHub(2);
    const watch = hub.open('/k/', [event(1)]);
    for (let r = 2; r <= 6; r++) hub.publish(event(r), true);
    hub.publish(event(7));
    hub.publish(event(8));
    const seen: number[] = [];
    for await (const e of watch) {
      seen.push(e.revision);
      if (e.revision === 8) break;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const slow = hub.open('/k/', []);
    for (let r = 9; r <= 11; r++) hub.publish(event(r));
    // Three live events unread past a limit of two: ended.
    const rest: number[] = [];
    for await (const e of slow) rest.push(e.revision);
    expect(rest).toEqual([]);
  });
});
