import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JsonHandler, isWebhookRequestError } from './handler.js';
import type { KeyPair } from '../auth/index.js';
import { selfSignedCertificate } from './tls.js';

export interface ServeWebhookOptions {
  /** The certificate to serve; default a fresh self-signed one for localhost. */
  tls?: KeyPair;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Largest accepted request body; default 3 MiB (the server's own request limit). */
  maxBodyBytes?: number;
}

export interface ServedWebhook {
  /** `https://127.0.0.1:<port>`: any path reaches the handler. */
  url: string;
  /** The PEM certificate to trust (the `caBundle` of a webhook configuration, base64-encoded there). */
  caBundle: string;
  close(): Promise<void>;
}

/**
 * Serves a callback over HTTPS: every POST body is decoded as JSON and given to `handler`, whose
 * result is the JSON answer. A body that is not JSON or that the handler cannot read is a 400, a
 * handler that throws otherwise a 500, another method a 405.
 */
export async function serveWebhook(handler: JsonHandler, options: ServeWebhookOptions = {}): Promise<ServedWebhook> {
  const tls = options.tls ?? selfSignedCertificate();
  const limit = options.maxBodyBytes ?? 3 * 1024 * 1024;
  const server = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => void answer(handler, req, res, limit));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `https://${host}:${address.port}`,
    caBundle: tls.cert,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(handler: JsonHandler, req: IncomingMessage, res: ServerResponse, limit: number): Promise<void> {
  const reply = (status: number, body: unknown) => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method !== 'POST') return reply(405, { message: `callbacks are POSTed, not sent with ${req.method}` });
  let body: unknown;
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) return reply(413, { message: `the request body is larger than ${limit} bytes` });
      chunks.push(chunk as Buffer);
    }
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (e) {
    return reply(400, { message: `the request body is not JSON: ${(e as Error).message}` });
  }
  try {
    reply(200, await handler(body));
  } catch (e) {
    reply(isWebhookRequestError(e) ? 400 : 500, { message: (e as Error).message });
  }
}
