import { Agent, request } from 'undici';
import { post } from './requests.js';

const PATH = '/api/v1/namespaces/fanout/configmaps';
let writes = 0;

/** How long one write took to reach every watcher: the last one, and the 99th percentile. */
export interface FanOut {
  lastMs: number;
  p99Ms: number;
}

/** The ConfigMap a fan-out writes, by name. */
export type FanOutObject = (name: string) => Record<string, unknown>;

/** A small ConfigMap, as a client writes it. */
export const smallConfigMap: FanOutObject = (name) => ({ metadata: { name }, data: { a: 'b' } });

/**
 * Opens `n` watches of the namespace `fanout` (from its current revision), spread evenly over the
 * servers at `watchOn`, then creates one ConfigMap there through `writeTo` (`written`: a small one
 * by default); measures until each watcher has received it. The servers must serve the namespace
 * (the bare peer serves any path).
 */
export async function fanOut(watchOn: string[], writeTo: string, n: number, written: FanOutObject = smallConfigMap): Promise<FanOut> {
  const agent = new Agent({ connections: n + 4 });
  try {
    const rv = await currentRevision(agent, writeTo);
    // A watch that breaks (a connection reset among thousands opened at once) fails the run with
    // its error (the arrivals below); until those listen, and after its event arrived, a break
    // must not be an 'error' event no one listens to, which would end the bench process.
    const streams = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const s = await request(`${watchOn[i % watchOn.length]}${PATH}?watch=1&resourceVersion=${rv}`, { dispatcher: agent });
        s.body.on('error', () => {});
        return s;
      }),
    );
    const name = `fanout-${process.pid}-${writes++}`;
    let start = 0;
    const arrivals = streams.map(
      (s) =>
        new Promise<number>((resolve, reject) => {
          s.body.on('data', (chunk: Buffer) => {
            if (chunk.includes(name)) resolve(performance.now() - start);
          });
          s.body.on('error', (e: Error) => reject(new Error(`a watch of ${n} broke before the event arrived: ${e.message}`)));
        }),
    );
    start = performance.now();
    // Awaited together: a watch that breaks while the write is in flight is a handled rejection.
    const [times] = await Promise.all([Promise.all(arrivals), post(agent, writeTo, PATH, written(name))]);
    times.sort((a, b) => a - b);
    for (const s of streams) s.body.destroy();
    return { lastMs: times[times.length - 1]!, p99Ms: times[Math.floor(times.length * 0.99)]! };
  } finally {
    await agent.destroy();
  }
}

async function currentRevision(agent: Agent, base: string): Promise<string> {
  const res = await request(`${base}${PATH}?limit=1`, { dispatcher: agent });
  const list = (await res.body.json()) as { metadata: { resourceVersion?: string } };
  return list.metadata.resourceVersion ?? '0';
}
