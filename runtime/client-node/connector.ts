import type { Dispatcher } from 'undici';
import type { Connector } from '../client/index.js';
import { dispatcherFetch } from './dispatcher-fetch.js';

/**
 * The Node connector: a fetch bound to an undici Agent (or ProxyAgent) that carries the TLS
 * settings, the client certificate and the proxy, which a browser's fetch cannot be told, and
 * that speaks undici's request API rather than WHATWG fetch (dispatcherFetch). The client config
 * loaders of this module set it; undici is loaded when the first request is sent.
 */
export const nodeConnector: Connector = async (tls, proxyUrl, certificate) => {
  const undici = await import('undici');
  const connect = {
    ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
    ...(tls.serverName !== undefined ? { servername: tls.serverName } : {}),
    ...(certificate ? { cert: certificate.cert, key: certificate.key } : {}),
    rejectUnauthorized: tls.insecureSkipTlsVerify !== true,
  };
  const dispatcher: Dispatcher = proxyUrl ? new undici.ProxyAgent({ uri: proxyUrl, requestTls: connect }) : new undici.Agent({ connect });
  return { fetch: dispatcherFetch(dispatcher), close: () => dispatcher.close() };
};
