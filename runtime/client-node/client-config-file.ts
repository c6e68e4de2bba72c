import { parse as parseYaml } from 'yaml';
import { type ClientConfig, type CredentialSource, type Credentials, bearerToken, clientCertificate } from '../client/index.js';
import { nodeConnector } from './connector.js';
import { type ExecClusterInfo, type ExecConfig, execCredential, isKubernetesExecVersion } from './exec-credential.js';
import { type InClusterOptions, inClusterConfig, isInCluster } from './in-cluster.js';
import { tokenFile } from './token-file.js';

/**
 * The client config file: the real system's kubeconfig format (clusters, users, contexts,
 * current-context). svckit's own names write the product word `svc`: the file list `SVCCONFIG`
 * (as `KUBECONFIG`), the file `~/.svc/config` (as `~/.kube/config`), the exec extension
 * `client.authentication.svc.io/exec`; the real system's names are read too, after them.
 */
export const CLIENT_CONFIG_ENV = 'SVCCONFIG';
export const KUBECONFIG_ENV = 'KUBECONFIG';
export const EXEC_CLUSTER_EXTENSION = 'client.authentication.svc.io/exec';
export const KUBERNETES_EXEC_CLUSTER_EXTENSION = 'client.authentication.k8s.io/exec';

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
  /** Read only to refuse them by name: svckit's client does not offer these. */
  'auth-provider'?: { name?: string };
  username?: string;
  password?: string;
  as?: string;
  'as-uid'?: string;
  'as-groups'?: string[];
  'as-user-extra'?: Record<string, string[]>;
}

/** User fields svckit's client does not offer, and what to do instead; ignoring them would act as another user. */
const UNSUPPORTED_USER_FIELDS: Record<string, string> = {
  'auth-provider':
    'auth-provider plugins were removed from the real system in 1.26; use the exec plugin that replaces it (gke-gcloud-auth-plugin, kubelogin)',
  username: 'basic authentication is not supported; use a token, a client certificate or an exec plugin',
  password: 'basic authentication is not supported; use a token, a client certificate or an exec plugin',
  as: 'impersonation is not supported by the client config loader',
  'as-uid': 'impersonation is not supported by the client config loader',
  'as-groups': 'impersonation is not supported by the client config loader',
  'as-user-extra': 'impersonation is not supported by the client config loader',
};

/** Proxy schemes the Node connector (undici's ProxyAgent) can use; client-go also takes socks5. */
const PROXY_SCHEMES = ['http:', 'https:'];

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
  if (cluster['proxy-url']) config.proxyUrl = checkedProxyUrl(cluster['proxy-url'], context.cluster);
  // An explicit false asks for gzip even on loopback (the transport's default there is off).
  if (cluster['disable-compression'] !== undefined) config.disableCompression = cluster['disable-compression'];
  if (user) {
    const credentials = await credentialsOf(user, cluster, ca, selection, resolvePath, readText, decode);
    if (credentials) config.credentials = credentials;
  }
  return config;
}

function checkedProxyUrl(url: string, cluster: string): string {
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    throw new Error(`cluster ${JSON.stringify(cluster)}: proxy-url is not a URL`);
  }
  if (!PROXY_SCHEMES.includes(scheme))
    throw new Error(
      `cluster ${JSON.stringify(cluster)}: proxy-url scheme ${scheme.slice(0, -1)} is not supported (http and https proxies are; SOCKS is not)`,
    );
  return url;
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
  for (const [field, why] of Object.entries(UNSUPPORTED_USER_FIELDS))
    if (user[field as keyof UserEntry] !== undefined) throw new Error(`the user's ${field}: ${why}`);
  if (user.exec) {
    const info: ExecClusterInfo = { server: cluster.server };
    if (cluster['tls-server-name']) info['tls-server-name'] = cluster['tls-server-name'];
    if (cluster['insecure-skip-tls-verify']) info['insecure-skip-tls-verify'] = true;
    if (ca !== undefined) info['certificate-authority-data'] = btoa(ca);
    if (cluster['proxy-url']) info['proxy-url'] = cluster['proxy-url'];
    if (cluster['disable-compression']) info['disable-compression'] = true;
    const extensionName = isKubernetesExecVersion(user.exec.apiVersion) ? KUBERNETES_EXEC_CLUSTER_EXTENSION : EXEC_CLUSTER_EXTENSION;
    const extension = cluster.extensions?.find((e) => e.name === extensionName);
    if (extension) info.config = extension.extension;
    return execCredential(user.exec, {
      cluster: info,
      ...(selection.baseDir ? { baseDir: selection.baseDir } : {}),
      ...(selection.stdinIsTerminal !== undefined ? { stdinIsTerminal: selection.stdinIsTerminal } : {}),
    });
  }
  // As client-go: `token` over `tokenFile`; a token and a client certificate are both sent.
  const token = user.token ? bearerToken(user.token) : user.tokenFile ? tokenFile(resolvePath(user.tokenFile)) : undefined;
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
  const certificate = cert !== undefined && key !== undefined ? clientCertificate(cert, key) : undefined;
  return token && certificate ? new TokenAndCertificate(token, certificate) : (token ?? certificate);
}

/** A user's token and client certificate together; the token source decides about refreshing. */
class TokenAndCertificate implements CredentialSource {
  constructor(
    private readonly token: CredentialSource,
    private readonly certificate: CredentialSource,
  ) {}

  async credentials(signal?: AbortSignal): Promise<Credentials> {
    return { ...(await this.certificate.credentials(signal)), ...(await this.token.credentials(signal)) };
  }

  async refresh(): Promise<boolean> {
    return (await this.token.refresh?.()) ?? false;
  }
}

export interface LoadClientConfigOptions extends Omit<ClientConfigSelection, 'baseDir'>, InClusterOptions {
  /** Files to read and merge instead of the search below (as kubectl's `--kubeconfig`). */
  paths?: string[];
  /** The home folder of `~/.svc/config` and `~/.kube/config`; default the user's. */
  home?: string;
}

/**
 * The files `loadClientConfig` reads, as client-go's loading rules choose them: the list in
 * `$SVCCONFIG`, else the list in `$KUBECONFIG` (each deduplicated; listed files that do not exist
 * are skipped), else `~/.svc/config`, else `~/.kube/config`.
 */
export async function clientConfigPaths(env: Record<string, string | undefined>, home?: string): Promise<string[]> {
  const path = await import('node:path');
  for (const name of [CLIENT_CONFIG_ENV, KUBECONFIG_ENV]) {
    const listed = (env[name] ?? '').split(path.delimiter).filter((p) => p !== '');
    if (listed.length > 0) return [...new Set(listed)];
  }
  const os = await import('node:os');
  const { access } = await import('node:fs/promises');
  const homeFiles = ['.svc', '.kube'].map((dir) => path.join(home ?? os.homedir(), dir, 'config'));
  for (const file of homeFiles)
    if (
      await access(file).then(
        () => true,
        () => false,
      )
    )
      return [file];
  return homeFiles;
}

/**
 * The ClientConfig of the selected context of the client config files (`clientConfigPaths`,
 * merged as client-go merges them: the first file that sets a name or the current-context wins,
 * relative paths resolve against the file they appear in), or, when no file has any, the
 * in-cluster configuration (`inClusterConfig`). Node only.
 */
export async function loadClientConfig(options: LoadClientConfigOptions = {}): Promise<ClientConfig> {
  const env = options.env ?? process.env;
  const paths = options.paths ?? (await clientConfigPaths(env, options.home));
  const merged = await readClientConfigFiles(paths, options.paths !== undefined);
  if (isEmpty(merged) && (await isInCluster(env, options.serviceAccountDir))) {
    const config = await inClusterConfig(options);
    return options.namespace ? { ...config, namespace: options.namespace } : config;
  }
  if (isEmpty(merged))
    throw new Error(
      `no client config found: looked at ${paths.join(', ')} and the in-cluster configuration; set ${CLIENT_CONFIG_ENV} or ${KUBECONFIG_ENV}`,
    );
  return clientConfigFromFile(merged, options);
}

/** Reads and merges the files; a missing one is skipped unless it was named alone and explicitly. */
async function readClientConfigFiles(paths: string[], explicit: boolean): Promise<ClientConfigFile> {
  const path = await import('node:path');
  const fs = await import('node:fs/promises');
  const merged: ClientConfigFile = { clusters: [], users: [], contexts: [] };
  for (const p of paths) {
    let text: string;
    try {
      text = await fs.readFile(p, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !(explicit && paths.length === 1)) continue;
      throw new Error(`cannot read the client config file ${p}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const file = absolutize(parseClientConfigFile(text, p), path.dirname(path.resolve(p)), path.resolve);
    merged['current-context'] ??= file['current-context'] || undefined;
    for (const section of ['clusters', 'users', 'contexts'] as const) {
      const into = merged[section] as { name: string }[];
      for (const entry of (file[section] ?? []) as { name: string }[]) if (!into.some((e) => e.name === entry.name)) into.push(entry);
    }
  }
  return merged;
}

/** Nothing to select (client-go's empty config, after which it tries in-cluster). */
function isEmpty(file: ClientConfigFile): boolean {
  return !file['current-context'] && !file.clusters?.length && !file.users?.length && !file.contexts?.length;
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

/**
 * In a cluster (a service host variable and its token file present): the in-cluster config first,
 * as controller-runtime's `GetConfig` prefers it to a home file; otherwise `loadClientConfig`.
 */
export async function defaultClientConfig(options: LoadClientConfigOptions = {}): Promise<ClientConfig> {
  if (await isInCluster(options.env, options.serviceAccountDir)) return inClusterConfig(options);
  return loadClientConfig(options);
}
