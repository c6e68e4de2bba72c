/**
 * The client config file (the kubeconfig-like format of the spec's Authentication section 6): the
 * current context names a cluster (server address, CA, TLS options) and a user (token or client
 * certificate and key). Paths are relative to the file. Exec plugins are not supported by the kit.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Credentials } from './http.js';

export class ClientConfigError extends Error {
  override readonly name = 'ClientConfigError';
}

export interface ClientConfig extends Credentials {
  server: string;
}

type Entry = Record<string, unknown>;

function asEntry(v: unknown): Entry | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Entry) : undefined;
}

function named(list: unknown, name: string, what: string, file: string): Entry {
  const items = Array.isArray(list) ? list : [];
  for (const item of items) {
    const e = asEntry(item);
    if (e && e.name === name) {
      const inner = asEntry(e[what]);
      if (!inner) throw new ClientConfigError(`${file}: ${what} "${name}" has no "${what}" section`);
      return inner;
    }
  }
  const known = items.map((i) => String(asEntry(i)?.name ?? '?')).join(', ');
  throw new ClientConfigError(`${file}: no ${what} named "${name}" (${what}s: ${known || 'none'})`);
}

function str(e: Entry, key: string): string | undefined {
  const v = e[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function fileOrData(e: Entry, fileKey: string, dataKey: string, base: string): Buffer | undefined {
  const data = str(e, dataKey);
  if (data) return Buffer.from(data, 'base64');
  const path = str(e, fileKey);
  return path ? readFileSync(resolve(base, path)) : undefined;
}

export function readClientConfig(file: string, contextName?: string): ClientConfig {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ClientConfigError(`${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const root = asEntry(doc);
  if (!root) throw new ClientConfigError(`${file}: expected a mapping with clusters, users, contexts and current-context`);
  const name = contextName ?? str(root, 'current-context');
  if (!name) throw new ClientConfigError(`${file}: no current-context set and no context chosen`);
  const context = named(root.contexts, name, 'context', file);
  const clusterName = str(context, 'cluster');
  if (!clusterName) throw new ClientConfigError(`${file}: context "${name}" names no cluster`);
  const cluster = named(root.clusters, clusterName, 'cluster', file);
  const server = str(cluster, 'server');
  if (!server) throw new ClientConfigError(`${file}: cluster "${clusterName}" has no server`);
  const base = dirname(resolve(file));
  const out: ClientConfig = { server };
  const ca = fileOrData(cluster, 'certificate-authority', 'certificate-authority-data', base);
  if (ca) out.ca = ca;
  if (cluster['insecure-skip-tls-verify'] === true) out.insecureSkipTlsVerify = true;
  const serverName = str(cluster, 'tls-server-name');
  if (serverName) out.serverName = serverName;
  const userName = str(context, 'user');
  if (userName) {
    const user = named(root.users, userName, 'user', file);
    if (user.exec !== undefined)
      throw new ClientConfigError(
        `${file}: user "${userName}" uses an exec plugin, which the conformance kit does not run; use a token or a client certificate`,
      );
    const token =
      str(user, 'token') ?? (str(user, 'tokenFile') ? readFileSync(resolve(base, str(user, 'tokenFile') ?? ''), 'utf8').trim() : undefined);
    if (token) out.token = token;
    const cert = fileOrData(user, 'client-certificate', 'client-certificate-data', base);
    const key = fileOrData(user, 'client-key', 'client-key-data', base);
    if (cert) out.cert = cert;
    if (key) out.key = key;
    if (Boolean(cert) !== Boolean(key))
      throw new ClientConfigError(`${file}: user "${userName}" needs both a client certificate and a client key`);
  }
  return out;
}
