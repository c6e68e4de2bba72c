import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** A request of the server to itself (bootstrap objects, `--crds`): the status code and the response text. */
export type LoopbackClient = (
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
  contentType?: string,
) => Promise<{ status: number; text: string }>;

/**
 * Requests to the server's own socket over node:http(s), which the server has loaded already:
 * fetch or undici would cost a start a quarter of a second in module loading alone (issue 27).
 * One kept-alive connection carries the start's requests. Over HTTPS the certificate is not
 * checked: the socket was just opened by this process (upstream's loopback client trusts a
 * certificate it made for itself). `token`: the bearer token of `system:apiserver`, when the
 * server authenticates.
 */
export function loopbackClient(url: string, token?: string): LoopbackClient {
  const secure = url.startsWith('https:');
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })
    : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  // Idle sockets must not keep the process alive, nor delay the server's close.
  agent.on('free', (socket) => socket.unref());
  const send = secure ? httpsRequest : httpRequest;
  return (method, path, body, contentType = 'application/json') =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = send(
        `${url}${path}`,
        {
          method,
          agent,
          headers: {
            'content-type': contentType,
            ...(payload === undefined ? {} : { 'content-length': Buffer.byteLength(payload) }),
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
}
