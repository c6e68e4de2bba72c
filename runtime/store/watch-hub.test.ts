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
});
