import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type Harness, startServer } from './server.testing.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(() => h.close());

// A client that reads slower than events arrive makes the stream wait for 'drain' many times; each
// wait must leave no listener behind (they piled up on the response: Node warned of a leak).
it('a watch that waits for a slow reader again and again leaves no listeners behind', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  try {
    const collection = `/api/v1/namespaces/${h.ns}/configmaps`;
    const rv = (await h.read(`${collection}?limit=1`)).metadata.resourceVersion;
    const total = 120;
    const data = { blob: 'x'.repeat(64 * 1024) };
    for (let i = 0; i < total; i++) await h.create(collection, { metadata: { name: `big-${i}` }, data });
    const res = await new Promise<IncomingMessage>((resolve, reject) =>
      httpRequest(`${h.url}${collection}?watch=1&resourceVersion=${rv}`, resolve).on('error', reject).end(),
    );
    // Read in small sips, pausing between them, so the server's writes keep meeting a full socket.
    let received = 0;
    let tail = '';
    await new Promise<void>((resolve) => {
      res.on('data', (chunk: Buffer) => {
        const lines = (tail + chunk.toString()).split('\n');
        tail = lines.pop()!;
        received += lines.length;
        res.pause();
        setTimeout(() => res.resume(), 1);
        if (received >= total) resolve();
      });
    });
    res.destroy();
    expect(received).toBe(total);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  } finally {
    process.off('warning', onWarning);
  }
});
