/**
 * `svckit/testing`: the reference server for tests. `startTestServer()` starts it in-process on a
 * free loopback port over an in-memory store, and returns its URL, a client config for the
 * generated client, a client config file (kubeconfig format) for kubectl and other tools, and
 * `close()`. Each call is its own server, so parallel tests do not share state.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientConfig } from '../runtime/client/index.js';
import { type ReferenceServerOptions, type RunningServer, startReferenceServer } from './reference-server.js';

export interface TestServerOptions extends Omit<ReferenceServerOptions, 'host' | 'port' | 'store'> {
  /** Default `memory`; `sqlite:<path>` for tests of durability. */
  store?: string;
}

export interface TestServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** For `createClient(config)` of the generated client. */
  clientConfig: ClientConfig;
  /** A client config file (kubeconfig format) naming this server, for `kubectl --kubeconfig` and other tools. */
  configFile: string;
  server: RunningServer['server'];
  /** Stops the server, closes its watches and removes the config file. */
  close(): Promise<void>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const running = await startReferenceServer({ ...options, store: options.store ?? 'memory', host: '127.0.0.1', port: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'svckit-test-server-'));
  const configFile = join(dir, 'config');
  writeFileSync(configFile, clientConfigFile(running.url));
  return {
    url: running.url,
    clientConfig: { server: running.url, namespace: 'default' },
    configFile,
    server: running.server,
    close: async () => {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The real system's client config file format, with one cluster, user and context. */
function clientConfigFile(server: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: svckit-test\n  cluster:\n    server: ${server}`,
    'users:',
    '- name: svckit-test\n  user: {}',
    'contexts:',
    '- name: svckit-test\n  context:\n    cluster: svckit-test\n    user: svckit-test\n    namespace: default',
    'current-context: svckit-test',
    '',
  ].join('\n');
}
