import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client.js';
import { replyStatus, serverWithFronts } from '../client/client.testing.js';
import { ConnectionError, clientCertificate } from '../client/index.js';
import { nodeConnector } from './index.js';

const { server: running, frontOf } = serverWithFronts();

describe('without a connector', () => {
  it('refuses TLS settings, a proxy and client certificates with a message naming the Node entry point', async () => {
    const client = createClient({ server: running().url, tls: { insecureSkipTlsVerify: true } });
    await expect(client.core.v1.namespaces.list()).rejects.toThrow('need a connector: use a config from svckit/client/node');
  });
});

describe('TLS', () => {
  let pki: Record<'ca' | 'serverCert' | 'serverKey' | 'clientCert' | 'clientKey', string>;
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-tls-'));
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=test-ca');
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=DNS:api.internal\n');
    for (const [name, cn, ext] of [
      ['server', 'api.internal', ['-extfile', 'san.ext']],
      ['client', 'tester', []],
    ] as const) {
      ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
      ssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.crt`,
        '-days',
        '1',
        ...ext,
      );
    }
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    pki = {
      ca: read('ca.crt'),
      serverCert: read('server.crt'),
      serverKey: read('server.key'),
      clientCert: read('client.crt'),
      clientKey: read('client.key'),
    };
  });

  it('checks the server against the CA bundle and tls-server-name, and presents the client certificate', async () => {
    const secure = await frontOf(
      (req, res) => {
        const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
        return peer.subject?.CN === 'tester' ? false : replyStatus(res, 401, 'Unauthorized', 'no client certificate');
      },
      { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, rejectUnauthorized: false },
    );
    const ok = createClient({
      server: secure.url,
      connector: nodeConnector,
      tls: { ca: pki.ca, serverName: 'api.internal' },
      credentials: clientCertificate(pki.clientCert, pki.clientKey),
    });
    expect((await ok.core.v1.namespaces.list()).kind).toBe('NamespaceList');
    await ok.transport.close();

    const wrongName = createClient({
      server: secure.url,
      connector: nodeConnector,
      tls: { ca: pki.ca, serverName: 'other.internal' },
      credentials: clientCertificate(pki.clientCert, pki.clientKey),
    });
    await expect(wrongName.core.v1.namespaces.list()).rejects.toBeInstanceOf(ConnectionError);
    const noCert = createClient({ server: secure.url, connector: nodeConnector, tls: { ca: pki.ca, serverName: 'api.internal' } });
    await expect(noCert.core.v1.namespaces.list()).rejects.toMatchObject({ code: 401 });
    const insecure = createClient({
      server: secure.url,
      connector: nodeConnector,
      tls: { insecureSkipTlsVerify: true },
      credentials: clientCertificate(pki.clientCert, pki.clientKey),
    });
    expect((await insecure.core.v1.namespaces.list()).kind).toBe('NamespaceList');
    for (const c of [wrongName, noCert, insecure]) await c.transport.close();
  });
});

describe('proxy', () => {
  it('sends requests through proxyUrl', async () => {
    const { createServer } = await import('node:http');
    const { connect } = await import('node:net');
    const tunnels: string[] = [];
    const proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req, client, head) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client).pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as import('node:net').AddressInfo;
    const client = createClient({ server: running().url, connector: nodeConnector, proxyUrl: `http://127.0.0.1:${port}` });
    expect((await client.core.v1.namespaces.list()).kind).toBe('NamespaceList');
    expect(tunnels).toEqual([new URL(running().url).host]);
    await client.transport.close();
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  });
});
