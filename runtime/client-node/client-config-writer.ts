import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { privateFile } from '../files/index.js';

/** What a client config file written for one server says: where it is, how to trust it, who the client is. */
export interface ClientConfigFileContent {
  /** The server's URL. */
  server: string;
  /** The CA (PEM) that signed the server's certificate; over plain HTTP, none. */
  ca?: string;
  /** The user's credentials; none: requests are anonymous. */
  user?: { name: string; token?: string; cert?: string; key?: string };
  /** The name of the cluster and the context; default "svckit". */
  name?: string;
  namespace?: string;
}

/**
 * The real system's client config format (kubeconfig) with one cluster, user and context, which
 * kubectl, `loadClientConfig` and @kubernetes/client-node read. Over plain HTTP the cluster says
 * insecure-skip-tls-verify: @kubernetes/client-node 1.x refuses an http:// server otherwise, and
 * kubectl and `loadClientConfig` ignore it for HTTP; over HTTPS it never does.
 */
export function formatClientConfigFile(c: ClientConfigFileContent): string {
  const name = c.name ?? 'svckit';
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const userName = c.user?.name ?? name;
  const user: Record<string, string> = {};
  if (c.user?.token !== undefined) user.token = c.user.token;
  if (c.user?.cert !== undefined) user['client-certificate-data'] = b64(c.user.cert);
  if (c.user?.key !== undefined) user['client-key-data'] = b64(c.user.key);
  const trust =
    c.ca !== undefined
      ? { 'certificate-authority-data': b64(c.ca) }
      : c.server.startsWith('http:')
        ? { 'insecure-skip-tls-verify': true }
        : {}; // HTTPS without a CA: the system's trusted roots
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: c.server, ...trust } }],
    users: [{ name: userName, user }],
    contexts: [{ name, context: { cluster: name, user: userName, namespace: c.namespace ?? 'default' } }],
    'current-context': name,
  });
}

/**
 * Writes the file owner-only (0600: it may hold a key or a token); an existing file is narrowed
 * before it is written, as it keeps its mode. `narrowed` hears when an existing file was wider.
 */
export function writeClientConfigFile(path: string, c: ClientConfigFileContent, narrowed: (line: string) => void = () => {}): void {
  privateFile(path, narrowed);
  writeFileSync(path, formatClientConfigFile(c));
}
