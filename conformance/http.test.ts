import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from './http.js';

describe('HttpClient', () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.end('{}');
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the path as written: dot segments and percent-encodings are not resolved', async () => {
    const client = new HttpClient({ baseUrl: base });
    seen.length = 0;
    for (const p of ['/a/configmaps/.', '/a/configmaps/..', '/a/configmaps/%2E', '/a/configmaps/%2e%2E', '/a/%73ecrets/x']) {
      await client.send('DELETE', p, { query: { dryRun: 'All' } });
    }
    await client.close();
    expect(seen).toEqual([
      '/a/configmaps/.?dryRun=All',
      '/a/configmaps/..?dryRun=All',
      '/a/configmaps/%2E?dryRun=All',
      '/a/configmaps/%2e%2E?dryRun=All',
      '/a/%73ecrets/x?dryRun=All',
    ]);
  });

  it('keeps the path prefix of the base URL', async () => {
    const client = new HttpClient({ baseUrl: `${base}/prefix/` });
    seen.length = 0;
    const res = await client.send('GET', '/api/v1/./x');
    await client.close();
    expect(seen).toEqual(['/prefix/api/v1/./x']);
    expect(res.url).toBe(`${base}/prefix/api/v1/./x`);
  });
});
