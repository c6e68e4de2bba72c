/**
 * The one HTTP client of this module: JSON over HTTPS to the OIDC issuer and to authorization
 * webhooks, trusting a given CA bundle instead of the process-wide roots when one is configured
 * (issuers and webhooks are usually private), with a hard timeout per call. Built on node:https so
 * that the CA applies to this call only.
 */
import * as http from 'node:http';
import * as https from 'node:https';

export interface HttpsJsonOptions {
  /** PEM CA bundle to verify the server with; the system roots when unset. */
  readonly ca?: string;
  /** Client certificate and key (PEM) for mutual TLS. */
  readonly cert?: string;
  readonly key?: string;
  readonly timeoutMs: number;
  readonly method?: 'GET' | 'POST';
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** A keep-alive agent to reuse connections (its own CA and client certificate then apply); default a new connection per call. */
  readonly agent?: http.Agent;
}

export interface HttpsJsonResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The parsed body, or undefined when it is empty or not JSON. */
  readonly json: unknown;
  readonly text: string;
}

/** A failure to get any HTTP response: connection, TLS or timeout. */
export class HttpsTransportError extends Error {
  override readonly name = 'HttpsTransportError';
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function httpsJson(url: string, options: HttpsJsonOptions): Promise<HttpsJsonResponse> {
  const target = new URL(url);
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const transport = target.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      target,
      {
        method: options.method ?? (payload ? 'POST' : 'GET'),
        headers: {
          accept: 'application/json',
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          ...options.headers,
        },
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
        ...(options.cert !== undefined ? { cert: options.cert, key: options.key } : {}),
        agent: options.agent ?? false,
        timeout: options.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY_BYTES) {
            req.destroy(new HttpsTransportError(`response from ${url} is larger than ${MAX_BODY_BYTES} bytes`, false));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json, text });
        });
        res.on('error', (e) => reject(new HttpsTransportError(`reading ${url}: ${e.message}`, false)));
      },
    );
    const timer = setTimeout(
      () => req.destroy(new HttpsTransportError(`${url}: timed out after ${options.timeoutMs}ms`, true)),
      options.timeoutMs,
    );
    req.on('timeout', () => req.destroy(new HttpsTransportError(`${url}: timed out after ${options.timeoutMs}ms`, true)));
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e instanceof HttpsTransportError ? e : new HttpsTransportError(`${url}: ${e.message}`, false));
    });
    req.on('close', () => clearTimeout(timer));
    req.end(payload);
  });
}

/**
 * Keep-alive agents by CA bundle, for callbacks made on every matching request (admission and
 * conversion webhooks): a TLS handshake per call would cost more than the call, and upstream's
 * webhook clients reuse connections too. At most 64 bundles are kept; the oldest goes first.
 */
const keepAliveAgents = new Map<string, https.Agent>();

export function keepAliveAgent(ca: string | undefined): https.Agent {
  const key = ca ?? '';
  let agent = keepAliveAgents.get(key);
  if (!agent) {
    if (keepAliveAgents.size >= 64) {
      const [oldest, old] = keepAliveAgents.entries().next().value!;
      old.destroy();
      keepAliveAgents.delete(oldest);
    }
    agent = new https.Agent({ keepAlive: true, maxSockets: 32, ...(ca ? { ca } : {}) });
    keepAliveAgents.set(key, agent);
  }
  return agent;
}
