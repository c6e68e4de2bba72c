import type { Dispatcher } from 'undici';
import type { FetchLike } from './transport.js';

/** TLS settings of a connection: the client config file's cluster fields. */
export interface TlsOptions {
  /** PEM certificate authorities; absent means the system roots. */
  ca?: string;
  /** Name for SNI and the certificate check (`tls-server-name`); default the URL's host. */
  serverName?: string;
  /** Skip the server certificate check (`insecure-skip-tls-verify`): insecure, for tests. */
  insecureSkipTlsVerify?: boolean;
}

/**
 * A fetch bound to an undici Agent (or ProxyAgent) that carries the TLS settings, the client
 * certificate and the proxy: what a browser's fetch cannot be told. Loaded only when one of them
 * is set, so the browser path never imports undici.
 */
export async function dispatchingFetch(tls: TlsOptions, proxyUrl: string | undefined, certificate: { cert: string; key: string } | undefined): Promise<{ fetch: FetchLike; close(): Promise<void> }> {
  const undici = await import('undici');
  const connect = {
    ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
    ...(tls.serverName !== undefined ? { servername: tls.serverName } : {}),
    ...(certificate ? { cert: certificate.cert, key: certificate.key } : {}),
    rejectUnauthorized: tls.insecureSkipTlsVerify !== true,
  };
  const dispatcher: Dispatcher = proxyUrl ? new undici.ProxyAgent({ uri: proxyUrl, requestTls: connect }) : new undici.Agent({ connect });
  const fetch: FetchLike = (url, init) => undici.fetch(url, { ...init, dispatcher });
  return { fetch, close: () => dispatcher.close() };
}
