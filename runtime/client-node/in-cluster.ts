import type { ClientConfig } from '../client/index.js';
import { nodeConnector } from './connector.js';
import { tokenFile } from './token-file.js';

/**
 * In-cluster configuration, the real system's with the product word written `svc`: the server
 * from `SVC_SERVICE_HOST` and `SVC_SERVICE_PORT` (as `KUBERNETES_SERVICE_HOST/PORT`), and the
 * service account's `token`, `ca.crt` and `namespace` files in
 * `/var/run/secrets/svc.io/serviceaccount` (as `.../kubernetes.io/serviceaccount`).
 */
export const SERVICE_HOST_ENV = 'SVC_SERVICE_HOST';
export const SERVICE_PORT_ENV = 'SVC_SERVICE_PORT';
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/svc.io/serviceaccount';

export interface InClusterOptions {
  env?: Record<string, string | undefined>;
  /** Folder of the service account files; default SERVICE_ACCOUNT_DIR. */
  serviceAccountDir?: string;
  /** How often the token file is re-read (it is rotated); default 60 s, and after every 401. */
  tokenReloadMs?: number;
}

/** True when the host variable and the token file are both there. Node only. */
export async function isInCluster(env: Record<string, string | undefined> = process.env, dir = SERVICE_ACCOUNT_DIR): Promise<boolean> {
  if (!env[SERVICE_HOST_ENV]) return false;
  const { access } = await import('node:fs/promises');
  return access(`${dir}/token`).then(
    () => true,
    () => false,
  );
}

/** The ClientConfig of a workload running in the cluster. Node only. */
export async function inClusterConfig(options: InClusterOptions = {}): Promise<ClientConfig> {
  const env = options.env ?? process.env;
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = env[SERVICE_HOST_ENV];
  const port = env[SERVICE_PORT_ENV];
  if (!host || !port) throw new Error(`not running in a cluster: ${SERVICE_HOST_ENV} and ${SERVICE_PORT_ENV} must be set`);
  const { readFile } = await import('node:fs/promises');
  const ca = await readFile(`${dir}/ca.crt`, 'utf8').catch(() => undefined);
  const namespace = (await readFile(`${dir}/namespace`, 'utf8').catch(() => 'default')).trim() || 'default';
  const credentials = tokenFile(`${dir}/token`, options.tokenReloadMs !== undefined ? { reloadAfterMs: options.tokenReloadMs } : {});
  await credentials.credentials(); // fail now, with the path, when the token is missing
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    namespace,
    credentials,
    connector: nodeConnector,
    ...(ca !== undefined ? { tls: { ca } } : {}),
  };
}
