import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client.js';
import { type Codec, ConnectionError, type FetchLike, StatusError, Transport, jsonCodec } from './index.js';
import { front, replyStatus, serverWithFronts } from './client.testing.js';
import { parseWarningHeader } from './warnings.js';

const { server: running, frontOf } = serverWithFronts();

describe('warnings', () => {
  it('parses every item of a Warning header, commas and escapes in the text included', () => {
    expect(parseWarningHeader('299 - "a, with comma", 299 - "b \\"quoted\\""')).toEqual(['a, with comma', 'b "quoted"']);
    expect(parseWarningHeader('299 svckit "dated" "Sat, 01 Jan 2000 00:00:00 GMT"')).toEqual(['dated']);
    expect(parseWarningHeader(null)).toEqual([]);
  });

  it('reads the text as the UTF-8 the server wrote, and Latin-1 bytes that are not UTF-8 as they came', () => {
    const wire = Buffer.from('299 - "snow ☃ 中"', 'utf8').toString('latin1');
    expect(parseWarningHeader(wire)).toEqual(['snow ☃ 中']);
    expect(parseWarningHeader('299 - "caf\u00e9"')).toEqual(['caf\u00e9']);
  });
});

describe('retries', () => {
  it('retries 429 and 504 that carry Retry-After, then succeeds', async () => {
    let failures = 0;
    const throttling = await frontOf((req, res) => {
      if (!req.url?.startsWith('/api/v1/namespaces') || failures >= 2) return false;
      failures++;
      return replyStatus(res, failures === 1 ? 429 : 504, failures === 1 ? 'TooManyRequests' : 'Timeout', 'slow down', {
        'retry-after': '0',
      });
    });
    const list = await createClient({ server: throttling.url }).core.v1.namespaces.list();
    expect(list.kind).toBe('NamespaceList');
    expect(throttling.seen.filter((r) => r.url.startsWith('/api/v1/namespaces'))).toHaveLength(3);
  });

  it('gives up after maxRetries with the StatusError, retryAfterSeconds included', async () => {
    const always = await frontOf((_req, res) => replyStatus(res, 429, 'TooManyRequests', 'always busy', { 'retry-after': '0' }));
    const e = await createClient({ server: always.url, retry: { maxRetries: 2 } })
      .core.v1.namespaces.list()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StatusError);
    expect(e).toMatchObject({ code: 429, reason: 'TooManyRequests', message: 'always busy', details: { retryAfterSeconds: 0 } });
    expect(always.seen).toHaveLength(3);
  });

  it('does not retry a 429 without Retry-After, nor other errors', async () => {
    const once = await frontOf((_req, res) => replyStatus(res, 429, 'TooManyRequests', 'no hint'));
    await expect(createClient({ server: once.url }).core.v1.namespaces.list()).rejects.toMatchObject({ code: 429 });
    expect(once.seen).toHaveLength(1);
  });
});

describe('errors', () => {
  it('turns a body that is not a Status into a StatusError with the body as a cause', async () => {
    const html = await frontOf((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
      return true;
    });
    const e = await createClient({ server: html.url })
      .core.v1.namespaces.get('x')
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StatusError);
    expect(e).toMatchObject({ code: 502, message: 'GET /api/v1/namespaces/x: the server answered 502: <html>bad gateway</html>' });
    expect((e as StatusError).findCause('UnexpectedServerResponse')?.message).toBe('<html>bad gateway</html>');
  });

  it('reports an unreachable server as a ConnectionError naming the URL', async () => {
    const closed = await front(running().url);
    await closed.close();
    const e = await createClient({ server: closed.url })
      .core.v1.namespaces.list()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as Error).message).toBe(`GET ${closed.url}/api/v1/namespaces: ECONNREFUSED`);
  });
});

describe('encoding', () => {
  it('decodes gzip responses', async () => {
    const gzipping = await frontOf((req, res) => {
      if (req.url !== '/api/v1/namespaces/gz') return false;
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gz' } })));
      return true;
    });
    expect((await createClient({ server: gzipping.url, disableCompression: false }).core.v1.namespaces.get('gz')).metadata?.name).toBe(
      'gz',
    );
    expect(gzipping.seen[0]!.headers['accept-encoding']).toMatch(/gzip/);
    await createClient({ server: gzipping.url, disableCompression: true }).core.v1.namespaces.list();
    expect(gzipping.seen.at(-1)!.headers['accept-encoding']).toBe('identity');
  });

  it('asks a loopback server for identity unless told otherwise, and leaves any other host to the fetch (gzip)', async () => {
    const asked = async (server: string, disableCompression?: boolean) => {
      let headers: Record<string, string> = {};
      const fetch: FetchLike = async (_url, init) => {
        headers = init.headers;
        return new Response('{"kind":"NamespaceList","items":[]}', { headers: { 'content-type': 'application/json' } });
      };
      await createClient({ server, fetch, ...(disableCompression !== undefined ? { disableCompression } : {}) }).core.v1.namespaces.list();
      return headers['accept-encoding'] ?? 'the fetch default';
    };
    for (const local of ['http://localhost:8080', 'https://api.localhost', 'http://127.0.0.1:1', 'http://127.1.2.3', 'http://[::1]:6443'])
      expect(await asked(local), local).toBe('identity');
    expect(await asked('http://localhost:8080', false)).toBe('the fetch default');
    for (const remote of ['https://api.example.com', 'http://10.0.0.1:6443', 'http://[::2]', 'http://127.example.com'])
      expect(await asked(remote), remote).toBe('the fetch default');
    expect(await asked('https://api.example.com', true)).toBe('identity');
  });

  it('falls back to JSON for a resource whose server answers 406 to a plugged-in codec', async () => {
    const binary: Codec = { ...jsonCodec, mediaType: 'application/vnd.svc.protobuf', binary: true, supports: (r) => !r.custom };
    const strict = await frontOf((req, res) =>
      req.headers.accept?.startsWith('application/vnd.svc.protobuf') ? replyStatus(res, 406, 'NotAcceptable', 'only JSON') : false,
    );
    const client = createClient({ server: strict.url, codec: binary });
    await client.core.v1.namespaces.list();
    await client.core.v1.namespaces.list();
    expect(strict.seen.map((r) => r.headers.accept)).toEqual([
      'application/vnd.svc.protobuf, application/json',
      'application/json',
      'application/json',
    ]);
  });
});

describe('Transport', () => {
  it('serves requests the typed accessors do not cover', async () => {
    const transport = new Transport({ server: `${running().url}/` });
    const version = await transport.request<{ gitVersion: string }>({ method: 'GET', path: '/version' });
    expect(version.gitVersion).toMatch(/^v1\.30/);
  });
});
