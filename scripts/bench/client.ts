import * as k8s from '@kubernetes/client-node';
import { createClient } from '../../generated/client.js';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { protobufCodec } from '../../runtime/client/index.js';
import { nodeConnector } from '../../runtime/client-node/index.js';
import type { ConfigMap } from '../../generated/core/v1/index.js';
import { startReferenceServer } from '../../reference/index.js';
import { type BenchCase, runCases } from './harness.js';
import { startSvckit } from './processes.js';

const NAMESPACE = 'bench';
/** Objects in the listed collection. */
const OBJECTS = 500;
/** Sequential gets per timed run. */
const GETS = 300;
/** Gets in flight at once in the concurrent case. */
const CONCURRENCY = 16;
/** Lists of the whole collection per timed run. */
const LISTS = 10;
/**
 * Timed runs of each list case: a run is short (~0.3 s), and on a shared machine the median of
 * five swung 0.7x-1.9x between back-to-back runs of the same code.
 */
const LIST_RUNS = 15;

/**
 * Client throughput against the reference server (in memory, same process): the generated typed
 * client beside @kubernetes/client-node making the same requests (same paths, JSON) against the
 * same server. Both sides decode every response; client-node also maps it into its model classes,
 * which is part of what using it costs. Then the client's CPU alone, with the server in its own
 * process.
 */
export async function benchClient(): Promise<void> {
  const running = await startReferenceServer({ store: 'memory', port: 0 });
  try {
    const { cases, peer, check } = await jsonCases(running.url);
    await runCases('Client throughput (JSON) vs @kubernetes/client-node against the same reference server', cases);

    // The same requests with the Protobuf transport (client-node speaks JSON only).
    const proto = createClient({
      server: running.url,
      namespace: NAMESPACE,
      onWarning: () => {},
      connector: nodeConnector,
      codec: protobufCodec(allProtobufPackages),
    }).core.v1.configMaps();
    check(await proto.get('cm-1'), await peer.readNamespacedConfigMap({ name: 'cm-1', namespace: NAMESPACE }));
    await runCases('Client throughput (Protobuf) vs @kubernetes/client-node (JSON)', [
      {
        name: `get x${GETS} (${CONCURRENCY} in flight), Protobuf`,
        ours: () => inParallel(GETS, CONCURRENCY, (i) => proto.get(`cm-${i % OBJECTS}`)),
        peer: cases[1]!.peer,
      },
      {
        name: `list ${OBJECTS} objects x${LISTS}, Protobuf`,
        ours: async () => {
          for (let i = 0; i < LISTS; i++) await proto.list();
        },
        peer: cases[2]!.peer,
      },
    ]);
  } finally {
    await running.close();
  }

  // The client's own cost: the server in its own process (`svckit serve`), and each run timed by
  // this process's CPU (process.cpuUsage) rather than the clock, which the server's share and the
  // machine's other load blur above.
  const served = await startSvckit('svckit serve --store memory', ['--store', 'memory']);
  try {
    const { cases } = await jsonCases(served.url);
    await runCases(
      'Client CPU (ms) vs @kubernetes/client-node, the server in its own process',
      cases.map((c) => ({ ...c, ours: () => cpuOf(c.ours), peer: { name: c.peer.name, run: () => cpuOf(c.peer.run) } })),
    );
  } finally {
    await served.stop();
  }
}

/**
 * The JSON cases against the server at `url`, after writing the listed collection there. Each
 * client is built as its Node users build it: ours with the Node connector (what loadClientConfig
 * returns), client-node from a KubeConfig. On a loopback server ours asks for identity by default
 * while client-node asks for gzip (node-fetch's default), so the server compresses only
 * client-node's pages; the `gzip asked` row makes ours ask for gzip too, like for like.
 */
async function jsonCases(url: string): Promise<{
  cases: BenchCase[];
  peer: k8s.CoreV1Api;
  check: (a: ConfigMap, b: k8s.V1ConfigMap) => void;
}> {
  const ours = createClient({ server: url, namespace: NAMESPACE, onWarning: () => {}, connector: nodeConnector });
  await ours.core.v1.namespaces.create({ metadata: { name: NAMESPACE } });
  const data = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`key-${i}`, 'x'.repeat(64)]));
  for (let i = 0; i < OBJECTS; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, OBJECTS - i) }, (_, j) =>
        ours.core.v1.configMaps().create({ metadata: { name: `cm-${i + j}`, labels: { app: 'bench' } }, data }),
      ),
    );
  }

  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'reference', server: url, skipTLSVerify: true }],
    users: [{ name: 'anonymous' }],
    contexts: [{ name: 'reference', cluster: 'reference', user: 'anonymous' }],
    currentContext: 'reference',
  });
  const peer = kc.makeApiClient(k8s.CoreV1Api);

  const configMaps = ours.core.v1.configMaps();
  const gzipConfigMaps = createClient({
    server: url,
    namespace: NAMESPACE,
    onWarning: () => {},
    connector: nodeConnector,
    disableCompression: false,
  }).core.v1.configMaps();
  const check = (a: ConfigMap, b: k8s.V1ConfigMap) => {
    if (a.metadata?.name !== b.metadata?.name || a.data?.['key-1'] !== b.data?.['key-1'])
      throw new Error('the two clients read different objects');
  };
  check(await configMaps.get('cm-1'), await peer.readNamespacedConfigMap({ name: 'cm-1', namespace: NAMESPACE }));
  const [ourList, peerList] = [await configMaps.list(), await peer.listNamespacedConfigMap({ namespace: NAMESPACE })];
  if (ourList.items.length !== OBJECTS || peerList.items.length !== OBJECTS)
    throw new Error('the two clients listed different collections');

  const peerName = '@kubernetes/client-node';
  const peerPagedLists = async () => {
    for (let i = 0; i < LISTS; i++) {
      let token: string | undefined;
      do {
        const page = await peer.listNamespacedConfigMap({ namespace: NAMESPACE, limit: 100, ...(token ? { _continue: token } : {}) });
        token = page.metadata?._continue || undefined;
      } while (token);
    }
  };
  const cases: BenchCase[] = [
    {
      name: `get x${GETS} (sequential)`,
      ours: async () => {
        for (let i = 0; i < GETS; i++) await configMaps.get(`cm-${i % OBJECTS}`);
      },
      peer: {
        name: peerName,
        run: async () => {
          for (let i = 0; i < GETS; i++) await peer.readNamespacedConfigMap({ name: `cm-${i % OBJECTS}`, namespace: NAMESPACE });
        },
      },
    },
    {
      name: `get x${GETS} (${CONCURRENCY} in flight)`,
      ours: () => inParallel(GETS, CONCURRENCY, (i) => configMaps.get(`cm-${i % OBJECTS}`)),
      peer: {
        name: peerName,
        run: () => inParallel(GETS, CONCURRENCY, (i) => peer.readNamespacedConfigMap({ name: `cm-${i % OBJECTS}`, namespace: NAMESPACE })),
      },
    },
    {
      name: `list ${OBJECTS} objects x${LISTS}`,
      runs: LIST_RUNS,
      ours: async () => {
        for (let i = 0; i < LISTS; i++) await configMaps.list();
      },
      peer: {
        name: peerName,
        run: async () => {
          for (let i = 0; i < LISTS; i++) await peer.listNamespacedConfigMap({ namespace: NAMESPACE });
        },
      },
    },
    {
      name: `list ${OBJECTS} in pages of 100 x${LISTS}`,
      runs: LIST_RUNS,
      ours: async () => {
        for (let i = 0; i < LISTS; i++) for await (const _page of configMaps.listAll({ limit: 100 }));
      },
      peer: {
        name: peerName,
        run: peerPagedLists,
      },
    },
    {
      name: `list ${OBJECTS} in pages of 100 x${LISTS}, gzip asked`,
      runs: LIST_RUNS,
      ours: async () => {
        for (let i = 0; i < LISTS; i++) for await (const _page of gzipConfigMaps.listAll({ limit: 100 }));
      },
      peer: {
        name: peerName,
        run: peerPagedLists,
      },
    },
  ];
  return { cases, peer, check };
}

/** This process's CPU time in ms (user and system) while `run` runs. */
async function cpuOf(run: () => unknown): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
}

/** Runs `count` calls with at most `width` in flight. */
async function inParallel(count: number, width: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await call(next++);
    }),
  );
}
