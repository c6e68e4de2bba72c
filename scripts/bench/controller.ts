import { createClient } from '../../generated/client.js';
import { Controller, LeaderElector, WorkQueue } from '../../runtime/controller/index.js';
import { startTestServer } from '../../reference/testing/index.js';

const ITEMS = 100_000;
const OBJECTS = 200;

/**
 * `npm run bench -- controller`: what svckit/controller costs. The work queue's add, get and done
 * per item (in memory); a controller's latency from a create's answer to its reconcile, against
 * the test server; and how long a released Lease takes to reach the other candidate with
 * client-go's default timings (retry period 2 s, jittered up to 2.2x).
 */
export async function benchController(): Promise<void> {
  process.stdout.write('\n## svckit/controller: queue, reconcile latency, failover\n');

  const queue = new WorkQueue<string>();
  const started = performance.now();
  for (let i = 0; i < ITEMS; i++) queue.add(`default/item-${i % 1000}-${i}`);
  for (
    let item = queue.len() > 0 ? await queue.get() : undefined;
    item !== undefined;
    item = queue.len() > 0 ? await queue.get() : undefined
  )
    queue.done(item);
  const queueMs = performance.now() - started;
  process.stdout.write(
    `work queue: ${ITEMS} items added, got and done in ${queueMs.toFixed(0)} ms (${((ITEMS / queueMs) * 1000).toFixed(0)} items/s)\n`,
  );

  const server = await startTestServer();
  try {
    const configMaps = createClient(server.clientConfig).core.v1.configMaps('default');
    const informer = configMaps.informer();
    const reconciledAt = new Map<string, number>();
    const waiting = new Map<string, () => void>();
    const controller = new Controller({
      informers: [informer],
      reconcile: async (key) => {
        if (!reconciledAt.has(key)) reconciledAt.set(key, performance.now());
        waiting.get(key)?.();
      },
    });
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    await informer.waitForSync();
    const latencies: number[] = [];
    for (let i = 0; i < OBJECTS; i++) {
      const key = `default/cm-${i}`;
      const done = new Promise<void>((resolve) => waiting.set(key, resolve));
      await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } });
      const answered = performance.now();
      await done;
      latencies.push(reconciledAt.get(key)! - answered);
    }
    stop.abort();
    await running;
    report(`create answered to reconcile (${OBJECTS} objects, one at a time)`, latencies);

    const failovers: number[] = [];
    for (let run = 0; run < 3; run++) {
      const leases = createClient(server.clientConfig).coordination.v1.leases('default');
      let took: (() => void) | undefined;
      const followerLeads = new Promise<void>((resolve) => (took = resolve));
      const leaderStop = new AbortController();
      const leaderLeads = new Promise<void>((resolve) => {
        void new LeaderElector({
          leases,
          name: `bench-${run}`,
          identity: 'a',
          releaseOnCancel: true,
          onStartedLeading: () => resolve(),
        }).run(leaderStop.signal);
      });
      await leaderLeads;
      const followerStop = new AbortController();
      const follower = new LeaderElector({ leases, name: `bench-${run}`, identity: 'b', onStartedLeading: () => took?.() });
      const followerRun = follower.run(followerStop.signal);
      while (follower.leader() === undefined) await new Promise((r) => setTimeout(r, 10));
      const released = performance.now();
      leaderStop.abort();
      await followerLeads;
      failovers.push(performance.now() - released);
      followerStop.abort();
      await followerRun;
    }
    report('released Lease to the next leader (default timings, 3 runs)', failovers);
  } finally {
    await server.close();
  }
}

function report(what: string, ms: number[]): void {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
  process.stdout.write(`${what}: median ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms\n`);
}
