import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, type Json, expectStatus, startServer } from './server.testing.js';

/**
 * Writes of objects near the 1.5 MiB stored-object limit, in every form a client writes them:
 * they must succeed and read back whole (the real system stores a ConfigMap of 15,000 keys).
 */
describe('large writes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startServer();
  });
  afterAll(() => h.close());

  const KEYS = 15_000;
  const data = (tag: string) => Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`key-${i}`, `${tag}-${i}-${'v'.repeat(36)}`]));
  const configMap = (name: string, tag: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: data(tag) });
  const cms = () => `/api/v1/namespaces/${h.ns}/configmaps`;
  const apply = (name: string, body: string, manager = 'x') =>
    h.patch(`${cms()}/${name}?fieldManager=${manager}`, body, 'application/apply-patch+yaml');
  const yaml = (obj: Json) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${obj.metadata.name}\ndata:\n${Object.entries(obj.data)
      .map(([k, v]) => `  ${k}: ${v}\n`)
      .join('')}`;

  it('creates, updates and patches a ConfigMap of 15,000 keys (about 1 MiB stored)', async () => {
    const created = await h.post(cms(), configMap('many', 'a'));
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body).length).toBeGreaterThan(1024 * 1024);
    const put = await h.put(`${cms()}/many`, {
      ...configMap('many', 'b'),
      metadata: { name: 'many', resourceVersion: created.body.metadata.resourceVersion },
    });
    expect(put.status).toBe(200);
    const patched = await h.patch(`${cms()}/many`, JSON.stringify({ data: data('c') }), 'application/strategic-merge-patch+json');
    expect(patched.status).toBe(200);
    expect((await h.get(`${cms()}/many`)).body.data).toEqual(data('c'));
  });

  it('applies a ConfigMap of 15,000 keys as JSON and as YAML, and another manager takes it over with force', async () => {
    expect((await apply('applied', JSON.stringify(configMap('applied', 'a')))).status).toBe(201);
    expect((await apply('applied', yaml(configMap('applied', 'b')))).status).toBe(200);
    expectStatus(await apply('applied', JSON.stringify(configMap('applied', 'c')), 'y'), 409, 'Conflict');
    const forced = await h.patch(
      `${cms()}/applied?fieldManager=y&force=true`,
      JSON.stringify(configMap('applied', 'c')),
      'application/apply-patch+yaml',
    );
    expect(forced.status).toBe(200);
    expect(forced.body.data).toEqual(data('c'));
    expect(forced.body.metadata.managedFields.map((e: Json) => e.manager)).toEqual(['y']);
  });

  it('reports a key given twice at the end of a 15,000-key YAML apply configuration', async () => {
    const body = `${yaml(configMap('twice', 'a'))}  key-0: again\n`;
    const res = await h.patch(`${cms()}/twice?fieldManager=x&fieldValidation=Strict`, body, 'application/apply-patch+yaml');
    expect(expectStatus(res, 400, 'BadRequest').message).toBe('strict decoding error: duplicate field "data.key-0"');
  });
});
