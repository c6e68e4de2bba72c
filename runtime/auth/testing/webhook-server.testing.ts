/**
 * A real authorization webhook for tests: an HTTPS server that reads each SubjectAccessReview,
 * records it, and answers with whatever the test's `respond` returns (a status, a body, a delay).
 */
import { once } from 'node:events';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KeyPair } from './pki.testing.js';

export interface WebhookReply {
  readonly status?: number;
  readonly body?: unknown;
  /** Wait this long before answering (to test timeouts). */
  readonly delayMs?: number;
}

export interface TestWebhook {
  readonly url: string;
  /** Every review received, in order. */
  readonly reviews: Record<string, unknown>[];
  respond: (review: Record<string, unknown>, callIndex: number) => WebhookReply;
  close(): Promise<void>;
}

export function allow(reason = 'ok'): WebhookReply {
  return { body: { apiVersion: 'authorization.svc.io/v1', kind: 'SubjectAccessReview', status: { allowed: true, reason } } };
}

export function deny(reason = 'no', denied = true): WebhookReply {
  return { body: { apiVersion: 'authorization.svc.io/v1', kind: 'SubjectAccessReview', status: { allowed: false, denied, reason } } };
}

export async function startTestWebhook(tls: KeyPair): Promise<TestWebhook> {
  const reviews: Record<string, unknown>[] = [];
  const hook: Omit<TestWebhook, 'url' | 'close'> = { reviews, respond: () => allow() };
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      reviews.push(review);
      const reply = hook.respond(review, reviews.length - 1);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
  return Object.assign(hook, {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  }) as TestWebhook;
}
