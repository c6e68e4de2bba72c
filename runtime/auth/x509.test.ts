import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import * as tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestCredentials } from './authenticate.js';
import { createTestCa, type TestCa } from './testing/pki.testing.js';
import { ClientCertificateAuthenticator } from './x509.js';

const authenticator = new ClientCertificateAuthenticator();
let ca: TestCa;
let otherCa: TestCa;

beforeAll(() => {
  ca = createTestCa();
  otherCa = createTestCa('untrusted CA');
});
afterAll(() => {
  ca.dispose();
  otherCa.dispose();
});

/** Runs a real mutual-TLS handshake and returns what the server side sees of the client. */
async function handshake(client: { cert: string; key: string }): Promise<RequestCredentials> {
  const server = tls.createServer({ ...ca.issueServer(), ca: ca.cert, requestCert: true, rejectUnauthorized: false });
  const seen = new Promise<RequestCredentials>((resolve) => {
    server.on('secureConnection', (socket) => {
      const peer = socket.getPeerCertificate();
      resolve({
        peerCertificate: peer,
        peerCertificateVerified: socket.authorized,
        ...(socket.authorizationError ? { peerCertificateError: String(socket.authorizationError) } : {}),
      });
      socket.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const socket = tls.connect({ port, host: '127.0.0.1', servername: 'localhost', ca: ca.cert, ...client });
  socket.on('error', () => {});
  const credentials = await seen;
  socket.destroy();
  server.close();
  return credentials;
}

describe('ClientCertificateAuthenticator over a real TLS handshake', () => {
  it('takes the user from CN and the groups from O', async () => {
    const c = await handshake(ca.issueClient({ cn: 'alice', o: ['devs', 'ops'] }));
    const r = authenticator.authenticate(c);
    expect(r).toMatchObject({ outcome: 'user', user: { username: 'alice', groups: ['devs', 'ops'] } });
  });

  it('rejects a certificate without the clientAuth usage (OpenSSL flags the purpose, and so do we)', async () => {
    const c = await handshake(ca.issueClient({ cn: 'server-pretending' }, 'serverAuth'));
    expect(authenticator.authenticate(c)).toEqual({
      outcome: 'reject',
      reason: 'client certificate not verified by the TLS layer: INVALID_PURPOSE',
    });
    // A TLS layer that checks only the chain still cannot let it through.
    const r = authenticator.authenticate({ ...c, peerCertificateVerified: true });
    expect(r).toEqual({ outcome: 'reject', reason: 'client certificate lacks the clientAuth extended key usage' });
  });

  it('rejects a certificate the TLS layer did not verify', async () => {
    const c = await handshake(otherCa.issueClient({ cn: 'mallory' }));
    const r = authenticator.authenticate(c);
    expect(r.outcome).toBe('reject');
    expect(r.outcome === 'reject' && r.reason).toMatch(/not verified by the TLS layer/);
  });
});

describe('ClientCertificateAuthenticator with crypto.X509Certificate', () => {
  it('reads the subject string form', () => {
    const peerCertificate = new X509Certificate(ca.issueClient({ cn: 'bob', o: ['a'] }).cert);
    const r = authenticator.authenticate({ peerCertificate, peerCertificateVerified: true });
    expect(r).toMatchObject({ outcome: 'user', user: { username: 'bob', groups: ['a'] } });
  });

  it('checks the extended key usage of the X509Certificate form', () => {
    const peerCertificate = new X509Certificate(ca.issueClient({ cn: 'bob' }, 'serverAuth').cert);
    expect(authenticator.authenticate({ peerCertificate, peerCertificateVerified: true }).outcome).toBe('reject');
  });

  it('rejects an empty common name', () => {
    const r = authenticator.authenticate({
      peerCertificate: { subject: { O: 'x' }, ext_key_usage: ['1.3.6.1.5.5.7.3.2'] },
      peerCertificateVerified: true,
    });
    expect(r).toEqual({ outcome: 'reject', reason: 'common name of the client certificate is empty' });
  });

  it('skips a request without a certificate', () => {
    expect(authenticator.authenticate({ bearerToken: 't' })).toEqual({ outcome: 'skip' });
  });
});
