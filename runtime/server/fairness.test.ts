import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { beginTurn, letOthersRun } from './fairness.js';

/** Holds the event loop for `ms`, as a stage of a large write does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('letOthersRun', () => {
  it('lets a waiting callback (another request) run first once the request has held the loop a slice', async () => {
    const raw = {} as IncomingMessage;
    beginTurn(raw);
    busy(30);
    const order: string[] = [];
    setImmediate(() => order.push('other request'));
    await letOthersRun(raw);
    order.push('next stage');
    expect(order).toEqual(['other request', 'next stage']);
  });

  it('goes straight on for a request whose body was never read (no turn began)', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other request'));
    await letOthersRun({} as IncomingMessage);
    order.push('next stage');
    expect(order).toEqual(['next stage']);
  });
});
