/**
 * `svckit/testing`: the reference server for tests. `startTestServer()` starts it in-process on a
 * free loopback port over an in-memory store, and returns its URL, a client config for the
 * generated client, a client config file (kubeconfig format) for kubectl and other tools, and
 * `close()`. Each call is its own server, so parallel tests do not share state.
 *
 * Built for tests: `reset()` to the state just after start (or `restore(snapshot)`) without a
 * restart; a `clock` tests move; `compactHistory()` to reach the 410 relist paths; `faults` per
 * request pattern; identities (an administrator and named users with groups) under RBAC; and a
 * `record` of the requests received and the warnings sent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonApiObject } from '../../runtime/api/index.js';
import { type ClientConfig, ResourceClient, type TokenRequestSpec, Transport, bearerToken } from '../../runtime/client/index.js';
import { nodeConnector } from '../../runtime/client-node/index.js';
import { createStore } from '../../runtime/store/index.js';
import { type ReferenceServerOptions, type RunningServer, compactionIntervalMs, startReferenceServer } from '../reference-server.js';
import { TestClock } from './clock.js';
import { type Fault, FaultInjector, type FaultRule } from './faults.js';
import { ADMIN, Identities } from './identities.js';
import { installObjects, readManifests } from './install.js';
import { type RecordedRequest, RequestRecord } from './request-record.js';
import { type Snapshot, restoreSnapshot, takeSnapshot } from './snapshot.js';
import { testServingCertificate } from './tls.js';

export { TestClock } from './clock.js';
export type { Fault, FaultRule, FaultStatus } from './faults.js';
export { ADMIN } from './identities.js';
export type { RequestPattern } from './request-pattern.js';
export type { RecordedRequest } from './request-record.js';
export type { Snapshot } from './snapshot.js';

/** The test server's history window unless told otherwise: as `svckit serve`'s default, 5 minutes of its clock. */
const HISTORY_WINDOW_MS = 5 * 60_000;

export interface TestServerOptions
  extends Omit<ReferenceServerOptions, 'host' | 'port' | 'store' | 'storeSpec' | 'now' | 'testStages' | 'access'> {
  /** Default `memory`; `sqlite:<path>` for tests of durability. */
  store?: string;
  /** The server's clock; default a new {@link TestClock} that follows the system's time until moved. */
  clock?: TestClock;
  /**
   * Users (name to groups) besides the administrator `admin` (in `system:masters`): each gets a
   * token, and requests are authorized by RBAC. Without it every request is allowed.
   */
  users?: Readonly<Record<string, readonly string[]>>;
  /**
   * Serve HTTPS, with a certificate of a CA made for this process ({@link TestServer.ca}); the
   * client config and the config file trust it. kubectl and Go clients send tokens only over TLS,
   * so tests driving `users` through them need it. Default false (plain HTTP, fetch as is).
   */
  tls?: boolean;
}

/** How to reach the server as one identity. */
export interface Connection {
  /** For `createClient(config)` of the generated client. */
  clientConfig: ClientConfig;
  /** A client config file (kubeconfig format), for `kubectl --kubeconfig`, `@kubernetes/client-node`'s `loadFromFile` and other tools. */
  configFile: string;
}

export interface TestServer extends Connection {
  /** `http://127.0.0.1:<port>`, or `https://` with the `tls` option. */
  url: string;
  /** With the `tls` option: the PEM CA that signed the server's certificate (trust it in your own HTTPS clients). */
  ca: string | undefined;
  server: RunningServer['server'];
  /** The clock the server and its store read. */
  clock: TestClock;
  /** As the administrator when `users` were given, or anonymously (everything is allowed) otherwise. */
  readonly user: string | undefined;
  /** Another identity's connection (`users` option); a name that was not configured is an error. */
  as(user: string): Connection;
  /** The bearer token of an identity (`users` option). */
  token(user: string): string;
  /** A new token of an identity that the server refuses (401) once `ttlMs` of its clock have passed. */
  issueToken(user: string, options: { ttlMs: number }): string;
  /**
   * A token of a service account that exists, from its `token` subresource (asked as the
   * administrator): the spec's audiences, expirationSeconds (default 3600) and boundObjectRef. It
   * authenticates as `system:serviceaccount:<namespace>:<name>` when the server has `users`.
   */
  serviceAccountToken(namespace: string, name: string, spec?: TokenRequestSpec): Promise<string>;
  /**
   * Creates objects through the API as the administrator: the objects given, or every document of
   * a YAML/JSON file or folder (CustomResourceDefinitions included); namespaces first. Returns them as created.
   */
  install(source: string | readonly JsonApiObject[]): Promise<JsonApiObject[]>;
  /** The objects now (restore it with {@link restore}). */
  snapshot(): Promise<Snapshot>;
  /** Back to a snapshot's objects in place: watchers see the changes; faults and the record are kept. */
  restore(snapshot: Snapshot): Promise<void>;
  /**
   * Back to the state just after start (the system namespaces with their `default` ServiceAccount
   * and, over TLS, `kube-root-ca.crt`; RBAC's bootstrap roles) plus the CustomResourceDefinitions
   * {@link install} created, as they were then (a suite installs its CRDs once and resets between
   * tests); clears faults and the record. `restore(snapshot)` returns to exactly a snapshot.
   */
  reset(): Promise<void>;
  /** Drops the history up to now: lists and watches at any resource version seen so far answer 410 Expired. */
  compactHistory(): Promise<void>;
  /** Makes requests matching the rule wait, fail or drop their connection. */
  injectFault(rule: FaultRule): Fault;
  /** Removes every injected fault. */
  clearFaults(): void;
  /** The requests received that match `pattern` (all when none), oldest first. */
  requests(pattern?: Parameters<RequestRecord['requests']>[0]): RecordedRequest[];
  /** Every warning sent, with its request. */
  warnings(): { warning: string; request: RecordedRequest }[];
  /** Waits until the server's background work (garbage collection, namespace deletion, namespaces' defaults) has caught up with every write so far. */
  settle(): Promise<void>;
  /** Stops the server, closes its watches and removes the config files. */
  close(): Promise<void>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { clock = new TestClock(), users, tls, store: storeSpec = 'memory', ...rest } = options;
  const historyWindowMs = options.historyWindowMs ?? HISTORY_WINDOW_MS;
  // The store's clock runs ahead of the server's by what compactHistory() has skipped: history is
  // dropped by age, so moving only the store's time expires it without moving the test's clock.
  let skipped = 0;
  const store = await createStore(storeSpec, {
    historyWindowMs,
    compactionIntervalMs: compactionIntervalMs(historyWindowMs),
    now: () => clock.ms() + skipped,
  });
  const faults = new FaultInjector();
  const record = new RequestRecord(clock.now);
  const identities = users ? new Identities(users, () => clock.ms()) : undefined;
  const serving = tls ? testServingCertificate() : undefined;
  const running = await startReferenceServer({
    ...rest,
    store,
    storeSpec,
    now: clock.now,
    host: '127.0.0.1',
    port: 0,
    testStages: [record.stage, faults.stage],
    ...(serving ? { rootCa: serving.ca } : {}),
    ...(identities || serving
      ? { access: { ...identities?.accessControl(), ...(serving ? { tls: { cert: serving.cert, key: serving.key } } : {}) } }
      : {}),
  });
  // The server's own requests (install) trust its CA as any client would.
  const connector = serving ? await nodeConnector({ ca: serving.ca }, undefined, undefined) : undefined;
  const server = running.server;
  const objects = server.context.store;
  // The baseline is the server at rest: collected, and its controllers' writes (aggregated roles) done.
  await server.garbageCollector?.idle();
  await server.context.hooks.idle();
  const baseline = new Map(await takeSnapshot(objects));
  record.clear(); // the server's own start-up requests are not the test's
  const dir = mkdtempSync(join(tmpdir(), 'svckit-test-server-'));

  const connections = new Map<string, Connection>();
  const connect = (user: string | undefined): Connection => {
    const key = user ?? '';
    let c = connections.get(key);
    if (!c) {
      const token = user === undefined ? undefined : identities!.token(user);
      const configFile = join(dir, user === undefined ? 'config' : `config-${user}`);
      writeFileSync(configFile, clientConfigFile(running.url, token, serving?.ca), { mode: 0o600 }); // holds a token
      c = {
        clientConfig: {
          server: running.url,
          namespace: 'default',
          ...(token ? { credentials: bearerToken(token) } : {}),
          ...(serving ? { tls: { ca: serving.ca }, connector: nodeConnector } : {}),
        },
        configFile,
      };
      connections.set(key, c);
    }
    return c;
  };
  const user = identities ? ADMIN : undefined;
  const restore = async (snapshot: Snapshot) => {
    // The server's controllers wait meanwhile: they would put back what the restore is removing.
    const resumes = await Promise.all(server.context.hooks.all().map((h) => h.pause?.()));
    const write = () => restoreSnapshot(objects, snapshot);
    try {
      await (server.garbageCollector ? server.garbageCollector.pauseWhile(write) : write());
    } finally {
      for (const resume of resumes) resume?.();
    }
    await settle();
  };
  const settle = async () => {
    await server.garbageCollector?.idle();
    await server.context.hooks.idle();
  };

  return {
    url: running.url,
    ca: serving?.ca,
    ...connect(user),
    server,
    clock,
    user,
    as: (name) => {
      if (!identities)
        throw new TypeError('the test server was started without users; pass startTestServer({ users: { name: [groups] } })');
      return connect(name);
    },
    token: (name) => {
      if (!identities)
        throw new TypeError('the test server was started without users; pass startTestServer({ users: { name: [groups] } })');
      return identities.token(name);
    },
    install: async (source) => {
      const created = await installObjects(
        server,
        running.url,
        user === undefined ? undefined : identities!.token(user),
        typeof source === 'string' ? readManifests(source) : source,
        connector?.fetch,
      );
      // The definitions join what reset() returns to, as they are now (Established).
      const definitions = created
        .filter((o) => o.kind === 'CustomResourceDefinition')
        .map((o) => `/customresourcedefinitions/${o.metadata?.name}`);
      if (definitions.length > 0) {
        for (const [key, value] of await takeSnapshot(objects)) if (definitions.some((d) => key.endsWith(d))) baseline.set(key, value);
      }
      return created;
    },
    issueToken: (name, { ttlMs }) => {
      if (!identities)
        throw new TypeError('the test server was started without users; pass startTestServer({ users: { name: [groups] } })');
      return identities.issue(name, ttlMs);
    },
    serviceAccountToken: async (namespace, name, spec = {}) => {
      const client = new ResourceClient(
        new Transport(connect(user).clientConfig),
        {
          group: '',
          version: 'v1',
          resource: 'serviceaccounts',
          kind: 'ServiceAccount',
          listKind: 'ServiceAccountList',
          namespaced: true,
          subresources: ['token'],
        },
        namespace,
      );
      return (await client.createToken(name, spec)).status.token;
    },
    snapshot: () => takeSnapshot(objects),
    restore,
    reset: async () => {
      faults.clear();
      await restore(baseline);
      record.clear();
    },
    compactHistory: async () => {
      skipped += historyWindowMs + 1;
      await objects.compact();
    },
    injectFault: (rule) => faults.inject(rule),
    clearFaults: () => faults.clear(),
    requests: (pattern) => record.requests(pattern),
    warnings: () => record.warnings(),
    settle,
    close: async () => {
      await running.close();
      await connector?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The real system's client config file format, with one cluster, user and context. Over HTTPS the
 * cluster carries the CA; over plain HTTP it says insecure-skip-tls-verify: @kubernetes/client-node
 * 1.x refuses an http:// server otherwise, and kubectl and svckit's loader ignore it for HTTP.
 */
function clientConfigFile(server: string, token: string | undefined, ca: string | undefined): string {
  const trust = ca ? `certificate-authority-data: ${Buffer.from(ca).toString('base64')}` : 'insecure-skip-tls-verify: true';
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: svckit-test\n  cluster:\n    server: ${server}\n    ${trust}`,
    'users:',
    token === undefined ? '- name: svckit-test\n  user: {}' : `- name: svckit-test\n  user:\n    token: ${token}`,
    'contexts:',
    '- name: svckit-test\n  context:\n    cluster: svckit-test\n    user: svckit-test\n    namespace: default',
    'current-context: svckit-test',
    '',
  ].join('\n');
}
