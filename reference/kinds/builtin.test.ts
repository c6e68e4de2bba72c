import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startServer } from '../../runtime/server/server.testing.js';

describe('built-in kind behaviour declared in the registrations', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startServer();
  });
  afterEach(async () => {
    await h.close();
  });

  it("merges a Secret's stringData into data (base64, replacing a key) and drops it, on create and update", async () => {
    const secrets = `/api/v1/namespaces/${h.ns}/secrets`;
    const created = await h.create(secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { a: 'eA==', b: 'eQ==' },
      stringData: { b: 'two', c: 'três' },
    });
    expect(created.data).toEqual({ a: 'eA==', b: Buffer.from('two').toString('base64'), c: Buffer.from('três').toString('base64') });
    expect(created.stringData).toBeUndefined();
    const updated = await h.put(`${secrets}/s`, { ...created, stringData: { a: 'one' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data.a).toBe(Buffer.from('one').toString('base64'));
    expect(updated.body.stringData).toBeUndefined();
    expect((await h.read(`${secrets}/s`)).stringData).toBeUndefined();
  });

  it('tracks metadata.generation only on kinds that declare it', async () => {
    const cm = await h.create(`/api/v1/namespaces/${h.ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', generation: 7 },
      data: { a: '1' },
    });
    expect(cm.metadata.generation).toBeUndefined();
    const updated = await h.put(`/api/v1/namespaces/${h.ns}/configmaps/c`, { ...cm, data: { a: '2' } });
    expect(updated.body.metadata.generation).toBeUndefined();
    const tab = await h.createCronTab('gen');
    expect(tab.metadata.generation).toBe(1);
    const patched = await h.patch(`/apis/stable.example.svc.io/v1/namespaces/${h.ns}/crontabs/gen`, { spec: { replicas: 2 } });
    expect(patched.body.metadata.generation).toBe(2);
  });
});
