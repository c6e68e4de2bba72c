import type { ClientConfig } from '../client/index.js';
import { nodeConnector } from './connector.js';
import { tokenFile } from './token-file.js';

/**
 * In-cluster configuration, the spec's (the product word written `svc`: `SVC_SERVICE_HOST`,
 * `SVC_SERVICE_PORT`, `/var/run/secrets/svc.io/serviceaccount`) and the real system's
 * (`KUBERNETES_SERVICE_HOST`, `KUBERNETES_SERVICE_PORT`,
 * `/var/run/secrets/kubernetes.io/serviceaccount`), as client-go's `rest.InClusterConfig`.
 */
export const SERVICE_HOST_ENV = 'SVC_SERVICE_HOST';
export const SERVICE_PORT_ENV = 'SVC_SERVICE_PORT';
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/svc.io/serviceaccount';
export const KUBERNETES_SERVICE_HOST_ENV = 'KUBERNETES_SERVICE_HOST';
export const KUBERNETES_SERVICE_PORT_ENV = 'KUBERNETES_SERVICE_PORT';
export const KUBERNETES_SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Overrides the service account's namespace (set from the downward API), as client-go reads it. */
export const POD_NAMESPACE_ENV = 'POD_NAMESPACE';

/** Where a workload finds its server and service account: the spec's names first, then the real system's. */
const PLACES = [
  { host: SERVICE_HOST_ENV, port: SERVICE_PORT_ENV, dir: SERVICE_ACCOUNT_DIR },
  { host: KUBERNETES_SERVICE_HOST_ENV, port: KUBERNETES_SERVICE_PORT_ENV, dir: KUBERNETES_SERVICE_ACCOUNT_DIR },
] as const;

export interface InClusterOptions {
  env?: Record<string, string | undefined>;
  /** Folder of the service account files; default the one of the variables that are set. */
  serviceAccountDir?: string;
  /** How often the token file is re-read (it is rotated); default 60 s, and after every 401. */
  tokenReloadMs?: number;
}

type Place = { host: string; port: string; dir: string };

/** The first place whose host and port variables are set and whose token is a file. */
async function placeOf(options: InClusterOptions): Promise<Place | undefined> {
  const env = options.env ?? process.env;
  const { stat } = await import('node:fs/promises');
  for (const p of PLACES) {
    if (!env[p.host] || !env[p.port]) continue;
    const dir = options.serviceAccountDir ?? p.dir;
    const token = await stat(`${dir}/token`).catch(() => undefined);
    if (token?.isFile()) return { host: env[p.host]!, port: env[p.port]!, dir };
  }
  return undefined;
}

/** True when a host and port variable pair is set and its token file is there (client-go's `Possible`). Node only. */
export async function isInCluster(env: Record<string, string | undefined> = process.env, dir?: string): Promise<boolean> {
  return (await placeOf({ env, ...(dir !== undefined ? { serviceAccountDir: dir } : {}) })) !== undefined;
}

/** The ClientConfig of a workload running in the cluster. Node only. */
export async function inClusterConfig(options: InClusterOptions = {}): Promise<ClientConfig> {
  const env = options.env ?? process.env;
  const place = await placeOf(options);
  if (!place) {
    throw new Error(
      `not running in a cluster: ${PLACES.map((p) => `${p.host} and ${p.port} with ${options.serviceAccountDir ?? p.dir}/token`).join(', or ')} must be set`,
    );
  }
  const { readFile } = await import('node:fs/promises');
  // A missing CA file leaves the system roots, as client-go (which logs it).
  const ca = await readFile(`${place.dir}/ca.crt`, 'utf8').catch(() => undefined);
  const namespace = env[POD_NAMESPACE_ENV] || (await readFile(`${place.dir}/namespace`, 'utf8').catch(() => '')).trim() || 'default';
  const credentials = tokenFile(`${place.dir}/token`, options.tokenReloadMs !== undefined ? { reloadAfterMs: options.tokenReloadMs } : {});
  await credentials.credentials(); // fail now, with the path, when the token cannot be read
  return {
    server: `https://${place.host.includes(':') ? `[${place.host}]` : place.host}:${place.port}`,
    namespace,
    credentials,
    connector: nodeConnector,
    ...(ca !== undefined ? { tls: { ca } } : {}),
  };
}
