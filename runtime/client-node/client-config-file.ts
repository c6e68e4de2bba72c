import { parse as parseYaml } from 'yaml';
import { type ClientConfig, type CredentialSource, bearerToken, clientCertificate } from '../client/index.js';
import { nodeConnector } from './connector.js';
import { type ExecClusterInfo, type ExecConfig, execCredential } from './exec-credential.js';
import { inClusterConfig, isInCluster } from './in-cluster.js';
import { tokenFile } from './token-file.js';

/**
 * The client config file: the real system's kubeconfig format (clusters, users, contexts,
 * current-context), with the product word written `svc` in names: the file list comes from
 * `SVCCONFIG` (as `KUBECONFIG`), the default file is `~/.svc/config` (as `~/.kube/config`), and
 * the exec extension of a cluster is `client.authentication.svc.io/exec`.
 */
export const CLIENT_CONFIG_ENV = 'SVCCONFIG';
export const EXEC_CLUSTER_EXTENSION = 'client.authentication.svc.io/exec';

export interface ClusterEntry {
  server: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  extensions?: { name: string; extension: unknown }[];
}

export interface UserEntry {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  exec?: ExecConfig;
}

export interface ContextEntry {
  cluster: string;
  user?: string;
  namespace?: string;
}

export interface ClientConfigFile {
  apiVersion?: string;
  kind?: string;
  clusters?: { name: string; cluster: ClusterEntry }[];
  users?: { name: string; user: UserEntry }[];
  contexts?: { name: string; context: ContextEntry }[];
  'current-context'?: string;
}

/** Parses a client config file (YAML or JSON); errors name the source and the field. */
export function parseClientConfigFile(text: string, source = 'client config'): ClientConfigFile {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new Error(`${source}: not valid YAML: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${source}: expected a mapping with clusters, users and contexts`);
  const file = doc as Record<string, unknown>;
  for (const section of ['clusters', 'users', 'contexts'] as const) {
    const list = file[section];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw new Error(`${source}: ${section}: expected a list`);
    const field = section.slice(0, -1);
    list.forEach((entry: unknown, i) => {
      const e = entry as Record<string, unknown> | null;
      if (!e || typeof e.name !== 'string' || e.name === '') throw new Error(`${source}: ${section}[${i}].name: required`);
      if (!e[field] || typeof e[field] !== 'object')
        throw new Error(`${source}: ${section}[${i}].${field}: required (entry ${JSON.stringify(e.name)})`);
    });
  }
  for (const [i, c] of ((file.clusters as { cluster: Record<string, unknown> }[] | undefined) ?? []).entries()) {
    if (typeof c.cluster.server !== 'string' || c.cluster.server === '')
      throw new Error(`${source}: clusters[${i}].cluster.server: required`);
  }
  return file as ClientConfigFile;
}

export interface ClientConfigSelection {
  /** The context to use; default the file's current-context. */
  context?: string;
  /** Relative file references resolve against this folder (the file's own). */
  baseDir?: string;
  /** Overrides the context's namespace. */
  namespace?: string;
  /** Passed to exec plugins (tests set it). */
  stdinIsTerminal?: boolean;
}

/** A ClientConfig from a parsed file: server, TLS, credentials and namespace of one context. */
export async function clientConfigFromFile(file: ClientConfigFile, selection: ClientConfigSelection = {}): Promise<ClientConfig> {
  const contextName = selection.context ?? file['current-context'];
  if (!contextName)
    throw new Error(
      `the client config has no current-context; name one of: ${(file.contexts ?? []).map((c) => c.name).join(', ') || 'none'}`,
    );
  const context = file.contexts?.find((c) => c.name === contextName)?.context;
  if (!context)
    throw new Error(
      `the client config has no context ${JSON.stringify(contextName)}; it has: ${(file.contexts ?? []).map((c) => c.name).join(', ') || 'none'}`,
    );
  const cluster = file.clusters?.find((c) => c.name === context.cluster)?.cluster;
  if (!cluster)
    throw new Error(
      `context ${JSON.stringify(contextName)} names cluster ${JSON.stringify(context.cluster)}, which the client config does not have`,
    );
  const user = context.user ? file.users?.find((u) => u.name === context.user)?.user : undefined;
  if (context.user && !user)
    throw new Error(
      `context ${JSON.stringify(contextName)} names user ${JSON.stringify(context.user)}, which the client config does not have`,
    );

  const path = await import('node:path');
  const fs = await import('node:fs/promises');
  const resolvePath = (p: string) => (selection.baseDir ? path.resolve(selection.baseDir, p) : p);
  const readText = async (what: string, p: string) => {
    try {
      return await fs.readFile(resolvePath(p), 'utf8');
    } catch (e) {
      throw new Error(`cannot read ${what} ${resolvePath(p)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  const decode = (data: string) => atob(data.replace(/\s+/g, ''));

  const ca = cluster['certificate-authority-data']
    ? decode(cluster['certificate-authority-data'])
    : cluster['certificate-authority']
      ? await readText('certificate-authority', cluster['certificate-authority'])
      : undefined;
  const config: ClientConfig = {
    server: cluster.server,
    namespace: selection.namespace ?? context.namespace ?? 'default',
    connector: nodeConnector,
  };
  if (ca !== undefined || cluster['tls-server-name'] || cluster['insecure-skip-tls-verify']) {
    config.tls = {
      ...(ca !== undefined ? { ca } : {}),
      ...(cluster['tls-server-name'] ? { serverName: cluster['tls-server-name'] } : {}),
      ...(cluster['insecure-skip-tls-verify'] ? { insecureSkipTlsVerify: true } : {}),
    };
  }
  if (cluster['proxy-url']) config.proxyUrl = cluster['proxy-url'];
  if (cluster['disable-compression']) config.disableCompression = true;
  if (user) {
    const credentials = await credentialsOf(user, cluster, ca, selection, resolvePath, readText, decode);
    if (credentials) config.credentials = credentials;
  }
  return config;
}

async function credentialsOf(
  user: UserEntry,
  cluster: ClusterEntry,
  ca: string | undefined,
  selection: ClientConfigSelection,
  resolvePath: (p: string) => string,
  readText: (what: string, p: string) => Promise<string>,
  decode: (data: string) => string,
): Promise<CredentialSource | undefined> {
  if (user.exec) {
    const info: ExecClusterInfo = { server: cluster.server };
    if (cluster['tls-server-name']) info['tls-server-name'] = cluster['tls-server-name'];
    if (cluster['insecure-skip-tls-verify']) info['insecure-skip-tls-verify'] = true;
    if (ca !== undefined) info['certificate-authority-data'] = btoa(ca);
    if (cluster['proxy-url']) info['proxy-url'] = cluster['proxy-url'];
    if (cluster['disable-compression']) info['disable-compression'] = true;
    const extension = cluster.extensions?.find((e) => e.name === EXEC_CLUSTER_EXTENSION);
    if (extension) info.config = extension.extension;
    return execCredential(user.exec, {
      cluster: info,
      ...(selection.baseDir ? { baseDir: selection.baseDir } : {}),
      ...(selection.stdinIsTerminal !== undefined ? { stdinIsTerminal: selection.stdinIsTerminal } : {}),
    });
  }
  if (user.token) return bearerToken(user.token);
  if (user.tokenFile) return tokenFile(resolvePath(user.tokenFile));
  const cert = user['client-certificate-data']
    ? decode(user['client-certificate-data'])
    : user['client-certificate']
      ? await readText('client-certificate', user['client-certificate'])
      : undefined;
  const key = user['client-key-data']
    ? decode(user['client-key-data'])
    : user['client-key']
      ? await readText('client-key', user['client-key'])
      : undefined;
  if ((cert === undefined) !== (key === undefined))
    throw new Error(`the user has a client ${cert ? 'certificate without a key' : 'key without a certificate'}`);
  if (cert !== undefined && key !== undefined) return clientCertificate(cert, key);
  return undefined;
}

export interface LoadClientConfigOptions extends Omit<ClientConfigSelection, 'baseDir'> {
  /** Files to read; default `$SVCCONFIG` (a path list), else `~/.svc/config`. */
  paths?: string[];
  env?: Record<string, string | undefined>;
}

/**
 * Reads and merges the client config files as kubectl does (the first file that sets a name or the
 * current-context wins; relative paths resolve against the file they appear in) and returns the
 * ClientConfig of the selected context. Node only.
 */
export async function loadClientConfig(options: LoadClientConfigOptions = {}): Promise<ClientConfig> {
  const path = await import('node:path');
  const fs = await import('node:fs/promises');
  const os = await import('node:os');
  const env = options.env ?? process.env;
  const listed = env[CLIENT_CONFIG_ENV]?.split(path.delimiter).filter((p) => p !== '');
  const paths = options.paths ?? (listed && listed.length > 0 ? listed : [path.join(os.homedir(), '.svc', 'config')]);
  const merged: ClientConfigFile = { clusters: [], users: [], contexts: [] };
  let read = 0;
  for (const p of paths) {
    let text: string;
    try {
      text = await fs.readFile(p, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && paths.length > 1) continue;
      throw new Error(`cannot read the client config file ${p}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    read++;
    const file = absolutize(parseClientConfigFile(text, p), path.dirname(path.resolve(p)), path.resolve);
    merged['current-context'] ??= file['current-context'];
    for (const section of ['clusters', 'users', 'contexts'] as const) {
      const into = merged[section] as { name: string }[];
      for (const entry of (file[section] ?? []) as { name: string }[]) if (!into.some((e) => e.name === entry.name)) into.push(entry);
    }
  }
  if (read === 0) throw new Error(`no client config file found (looked at ${paths.join(', ')}); set ${CLIENT_CONFIG_ENV}`);
  return clientConfigFromFile(merged, options);
}

/** File references made absolute against the file's folder, so merged entries keep their meaning. */
function absolutize(file: ClientConfigFile, dir: string, resolve: (...p: string[]) => string): ClientConfigFile {
  const abs = (p: string | undefined) => (p === undefined ? undefined : resolve(dir, p));
  return {
    ...file,
    clusters: file.clusters?.map((c) => ({
      ...c,
      cluster: {
        ...c.cluster,
        ...(c.cluster['certificate-authority'] ? { 'certificate-authority': abs(c.cluster['certificate-authority'])! } : {}),
      },
    })),
    users: file.users?.map((u) => ({
      ...u,
      user: {
        ...u.user,
        ...(u.user.tokenFile ? { tokenFile: abs(u.user.tokenFile)! } : {}),
        ...(u.user['client-certificate'] ? { 'client-certificate': abs(u.user['client-certificate'])! } : {}),
        ...(u.user['client-key'] ? { 'client-key': abs(u.user['client-key'])! } : {}),
        ...(u.user.exec && /[\\/]/.test(u.user.exec.command) ? { exec: { ...u.user.exec, command: abs(u.user.exec.command)! } } : {}),
      },
    })),
  };
}

/** In a cluster (service account files and SVC_SERVICE_HOST present): that; otherwise the client config file. */
export async function defaultClientConfig(options: LoadClientConfigOptions = {}): Promise<ClientConfig> {
  if (await isInCluster(options.env)) return inClusterConfig(options.env ? { env: options.env } : {});
  return loadClientConfig(options);
}
