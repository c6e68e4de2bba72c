import { once } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { RequestCredentials } from './authenticate.js';
import { credentialsFromRequest } from './credentials.js';

/** Sends one request to a real plain-HTTP server and returns what credentialsFromRequest saw. */
async function seen(headers: Record<string, string>): Promise<RequestCredentials> {
  let credentials: RequestCredentials | undefined;
  const server = http.createServer((req, res) => {
    credentials = credentialsFromRequest(req);
    res.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/', headers, agent: false }, (res) => res.resume().on('end', resolve)).on('error', reject);
  });
  server.close();
  return credentials as RequestCredentials;
}

describe('credentialsFromRequest over plain HTTP', () => {
  it('reads a bearer token and no certificate', async () => {
    expect(await seen({ authorization: 'Bearer abc' })).toEqual({ bearerToken: 'abc' });
  });
  it('finds nothing without an Authorization header, or with another scheme', async () => {
    expect(await seen({})).toEqual({});
    expect(await seen({ authorization: 'Basic dXNlcjpwYXNz' })).toEqual({});
  });
});
