import { randomBytes } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client.js';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { front, replyStatus, serverWithFronts } from '../client/client.testing.js';
import { ConnectionError, StatusError, bearerToken, protobufCodec } from '../client/index.js';
import { nodeConnector } from './index.js';

const { server: running, frontOf } = serverWithFronts();

/**
 * A client of `server` that goes through the Node connector (what loadClientConfig returns), and
 * asks for gzip although the test servers are on loopback.
 */
const nodeClient = (server: string, options: { disableCompression?: boolean; onWarning?: (w: string) => void } = {}) =>
  createClient({ server, namespace: 'default', connector: nodeConnector, disableCompression: false, onWarning: () => {}, ...options });

describe('the Node connector over plain HTTP', () => {
  it('sends every request through the connector, with no TLS settings given', async () => {
    let made = 0;
    const counting: typeof nodeConnector = (...args) => {
      made++;
      return nodeConnector(...args);
    };
    const client = createClient({ server: running().url, connector: counting });
    await client.core.v1.namespaces.list();
    await client.core.v1.namespaces.list();
    expect(made).toBe(1);
    await client.transport.close();
  });

  it('asks for gzip, inflates gzip and deflate bodies, and asks for identity when compression is disabled', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'packed' } });
    const packing = await frontOf((req, res) => {
      if (!req.url?.startsWith('/api/v1/namespaces/packed')) return false;
      const deflate = req.url.endsWith('?deflate');
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': deflate ? 'deflate' : 'gzip' });
      res.end(deflate ? deflateSync(body) : gzipSync(body));
      return true;
    });
    const client = nodeClient(packing.url);
    expect((await client.core.v1.namespaces.get('packed')).metadata?.name).toBe('packed');
    expect(packing.seen.at(-1)!.headers['accept-encoding']).toMatch(/gzip/);
    const deflated = await client.transport.request<{ metadata: { name: string } }>({
      method: 'GET',
      path: '/api/v1/namespaces/packed',
      query: new URLSearchParams('deflate'),
    });
    expect(deflated.metadata.name).toBe('packed');
    await nodeClient(packing.url, { disableCompression: true }).core.v1.namespaces.list();
    expect(packing.seen.at(-1)!.headers['accept-encoding']).toBe('identity');
  });

  it('lists every page of a collection the server compresses, as the platform fetch does', async () => {
    const url = running().url;
    const configMaps = nodeClient(url).core.v1.configMaps('pages');
    await nodeClient(url).core.v1.namespaces.create({ metadata: { name: 'pages' } });
    // Incompressible text, so that the first page (400 KB) is inflated off the event loop and the
    // second (200 KB) at once; both above the server's gzip threshold.
    for (let i = 0; i < 30; i++)
      await configMaps.create({ metadata: { name: `cm-${i}` }, data: { text: randomBytes(15_000).toString('base64') } });
    const names: string[] = [];
    for await (const page of configMaps.listAll({ limit: 20 })) names.push(...page.items.map((c) => c.metadata?.name ?? ''));
    const viaFetch = await createClient({ server: url, namespace: 'pages' }).core.v1.configMaps().list();
    expect(names).toEqual(viaFetch.items.map((c) => c.metadata?.name));
    expect(names).toHaveLength(30);
  });

  it('reads Protobuf bodies as bytes', async () => {
    const client = createClient({ server: running().url, connector: nodeConnector, codec: protobufCodec(allProtobufPackages) });
    expect((await client.core.v1.namespaces.get('default')).metadata?.name).toBe('default');
  });

  it('hands every Warning header to the handler, and an error body to the StatusError', async () => {
    const warning = await frontOf((req, res) => {
      if (req.url !== '/api/v1/namespaces/warned') return false;
      // The second as the UTF-8 bytes a server writes, which HTTP carries as Latin-1.
      res.setHeader('warning', ['299 - "first"', Buffer.from('299 - "snow ☃, with comma"', 'utf8').toString('latin1')]);
      return replyStatus(res, 404, 'NotFound', 'namespaces "warned" not found');
    });
    const warnings: string[] = [];
    const e = await nodeClient(warning.url, { onWarning: (w) => warnings.push(w) })
      .core.v1.namespaces.get('warned')
      .catch((x: unknown) => x);
    expect(warnings).toEqual(['first', 'snow ☃, with comma']);
    expect(e).toBeInstanceOf(StatusError);
    expect(e).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "warned" not found' });
  });

  it('follows redirects as fetch does', async () => {
    const moved = await frontOf((req, res) => {
      if (req.url !== '/old/api/v1/namespaces/default') return false;
      res.writeHead(307, { location: '/api/v1/namespaces/default' });
      res.end();
      return true;
    });
    expect((await nodeClient(`${moved.url}/old`).core.v1.namespaces.get('default')).metadata?.name).toBe('default');
  });

  it('sends no credentials to another origin after a redirect, and fetches a 303 after a POST with GET', async () => {
    const other = await frontOf();
    const moving = await frontOf((req, res) => {
      if (req.url === '/api/v1/namespaces/away') res.writeHead(307, { location: `${other.url}/api/v1/namespaces/default` });
      else if (req.url === '/api/v1/namespaces' && req.method === 'POST') res.writeHead(303, { location: '/api/v1/namespaces/default' });
      else return false;
      res.end();
      return true;
    });
    const client = createClient({ server: moving.url, connector: nodeConnector, credentials: bearerToken('secret') });
    expect((await client.core.v1.namespaces.get('away')).metadata?.name).toBe('default');
    expect(moving.seen[0]!.headers.authorization).toBe('Bearer secret');
    expect(other.seen.map((r) => [r.url, r.headers.authorization])).toEqual([['/api/v1/namespaces/default', undefined]]);
    const created = await client.core.v1.namespaces.create({ metadata: { name: 'never' } });
    expect(created.metadata?.name).toBe('default');
    expect(moving.seen.slice(-2).map((r) => [r.method, r.url, r.headers['content-type']])).toEqual([
      ['POST', '/api/v1/namespaces', 'application/json'],
      ['GET', '/api/v1/namespaces/default', undefined],
    ]);
  });

  it('reports an unreachable server as a ConnectionError naming the URL', async () => {
    const closed = await front(running().url);
    await closed.close();
    const e = await nodeClient(closed.url)
      .core.v1.namespaces.list()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as Error).message).toBe(`GET ${closed.url}/api/v1/namespaces: ECONNREFUSED`);
  });

  it('rejects with the reason of an aborted signal', async () => {
    const stalled = await frontOf((req) => req.url === '/api/v1/namespaces/stalled');
    const controller = new AbortController();
    const pending = nodeClient(stalled.url).core.v1.namespaces.get('stalled', { signal: controller.signal });
    const reason = new Error('the caller gave up');
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });

  it('streams watch events until the caller stops', async () => {
    const url = running().url;
    const client = nodeClient(url);
    await client.core.v1.namespaces.create({ metadata: { name: 'watched' } });
    const configMaps = client.core.v1.configMaps('watched');
    await configMaps.create({ metadata: { name: 'a' } });
    await configMaps.create({ metadata: { name: 'b' } });
    const seen: string[] = [];
    for await (const event of configMaps.watch()) {
      seen.push(`${event.type} ${event.object.metadata?.name}`);
      if (seen.length === 2) await configMaps.delete('a');
      if (seen.length === 3) break;
    }
    expect(seen).toEqual(['ADDED a', 'ADDED b', 'DELETED a']);
    await client.transport.close();
  });
});
