import { runCases } from './harness.js';
import { startSvckit } from './processes.js';

const KEYS = 18_000;

/**
 * `npm run bench -- large-writes`: create and server-side apply of a ConfigMap of 18,000 keys
 * (about 1 MB of JSON, near the 1.5 MiB stored limit with its managed fields), against
 * `svckit serve --store memory` in its own process, beside JSON.parse + JSON.stringify of the same
 * bytes here; and the slowest /healthz answered while each write runs.
 */
export async function benchLargeWrites(): Promise<void> {
  const server = await startSvckit('svckit serve --store memory', ['--store', 'memory']);
  try {
    const cms = `${server.url}/api/v1/namespaces/default/configmaps`;
    let n = 0;
    const body = (name: string) => JSON.stringify(configMap(name, n++));
    const sample = body('sample');
    const roundTrip = () => JSON.stringify(JSON.parse(sample));
    const healthz: Record<string, number[]> = { create: [], apply: [] };
    await runCases(`Large writes: a ConfigMap of ${KEYS} keys (${(sample.length / 1024).toFixed(0)} KB), server in its own process`, [
      {
        name: 'create (POST)',
        ours: () => whileProbing(server.url, healthz.create!, () => send('POST', cms, body(`c${n}`), 'application/json')),
        peer: { name: 'JSON parse+stringify', run: roundTrip },
      },
      {
        name: 'apply (changes every value)',
        ours: () =>
          whileProbing(server.url, healthz.apply!, () =>
            send('PATCH', `${cms}/applied?fieldManager=bench`, body('applied'), 'application/apply-patch+yaml'),
          ),
        peer: { name: 'JSON parse+stringify', run: roundTrip },
      },
    ]);
    for (const [what, ms] of Object.entries(healthz)) {
      process.stdout.write(
        `/healthz during ${what}: slowest ${Math.max(...ms).toFixed(0)} ms (median of the slowest per run ${median(ms).toFixed(0)} ms)\n`,
      );
    }
  } finally {
    await server.stop();
  }
}

function configMap(name: string, tag: number) {
  const data: Record<string, string> = {};
  for (let i = 0; i < KEYS; i++) data[`key-${i}`] = `${tag}-${i}-${'v'.repeat(30)}`;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data };
}

/** Runs `write` while asking /healthz every 5 ms; records the slowest answer. */
async function whileProbing(base: string, slowest: number[], write: () => Promise<void>): Promise<void> {
  let done = false;
  let max = 0;
  const probe = (async () => {
    while (!done) {
      const t = performance.now();
      await fetch(`${base}/healthz`).then((r) => r.text());
      max = Math.max(max, performance.now() - t);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  try {
    await write();
  } finally {
    done = true;
    await probe;
    slowest.push(max);
  }
}

async function send(method: string, url: string, body: string, type: string): Promise<void> {
  const res = await fetch(url, { method, body, headers: { 'content-type': type } });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 200)}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? 0;
}
