/**
 * Encryption at rest for resources defined after the server started: a CustomResourceDefinition
 * created over HTTP whose resource the configuration names (by name, by `*.<group>` or by `*.*`)
 * has its objects sealed in the store from the first one, and read back in plain.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { type RunningServer, startReferenceServer } from '../reference-server.js';
import { type Store, createStore } from '../../runtime/store/index.js';
import { aescbc, createCronTab, defineCronTabs, newKey, writeEncryptionConfig } from '../encryption-at-rest.testing.js';
import { EncryptionAtRest } from '../../runtime/encryption/index.js';

const dir = mkdtempSync(join(tmpdir(), 'svckit-crd-at-rest-'));
beforeAll(() => {
  // The compiled kinds go to svckit's folder in the cache: a fresh one, not the user's.
});

const json = { 'content-type': 'application/json' };
const PREFIX = 'k8s:enc:aescbc:v1:key1:';

/** A server over a memory store (kept, to read the raw values) with `resources` encrypted by aescbc. */
async function start(resources: string[]): Promise<{ server: RunningServer; raw: Store }> {
  const file = writeEncryptionConfig(dir, resources.join('_').replace(/[^a-z]/g, '-'), resources, [aescbc(['key1', newKey()])]);
  const raw = await createStore('memory');
  const server = await startReferenceServer({ port: 0, store: raw, encryption: await EncryptionAtRest.load(file, allKinds) });
  return { server, raw };
}

async function call(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, { method, headers: json, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Creates a CronTab holding `sentinel`; returns its raw stored value and what a GET answers. */
async function storeCronTab(server: RunningServer, raw: Store, group: string, sentinel: string) {
  await createCronTab(server.url, group, 'nightly', sentinel);
  const stored = await raw.get(`/registry/${group}/crontabs/default/nightly`);
  const read = await call(server.url, 'GET', `/apis/${group}/v1/namespaces/default/crontabs/nightly`);
  return { stored: stored?.value ?? '', read };
}

describe('a CustomResourceDefinition created after start', () => {
  let running: { server: RunningServer; raw: Store } | undefined;
  afterAll(() => running?.server.close());

  for (const [what, names] of [
    ['named by its resource', ['crontabs.stable.example.com']],
    ['named by *.<group>', ['*.stable.example.com']],
    ['covered by *.*', ['*.*']],
  ] as const) {
    it(`has its objects encrypted in the store and read back in plain when ${what}`, async () => {
      running = await start([...names]);
      const { server, raw } = running;
      try {
        await defineCronTabs(server.url, 'stable.example.com');
        const sentinel = `* * * * */${what.length}`;
        const { stored, read } = await storeCronTab(server, raw, 'stable.example.com', sentinel);
        expect(stored.startsWith(PREFIX), stored).toBe(true);
        expect(stored).not.toContain(sentinel);
        expect(read.status).toBe(200);
        expect(read.body.spec.cronSpec).toBe(sentinel);
        // A list and an update go through the same transform.
        const list = await call(server.url, 'GET', '/apis/stable.example.com/v1/namespaces/default/crontabs');
        expect(list.body.items.map((o: { spec: { cronSpec: string } }) => o.spec.cronSpec)).toEqual([sentinel]);
        const put = await call(server.url, 'PUT', '/apis/stable.example.com/v1/namespaces/default/crontabs/nightly', {
          ...read.body,
          spec: { cronSpec: 'updated-in-plain' },
        });
        expect(put.status, JSON.stringify(put.body)).toBe(200);
        const after = await raw.get('/registry/stable.example.com/crontabs/default/nightly');
        expect(after?.value.startsWith(PREFIX)).toBe(true);
        expect(after?.value).not.toContain('updated-in-plain');
      } finally {
        await server.close();
        running = undefined;
      }
    });
  }

  it('leaves a resource of another group in plain (the configuration decides, not the kind of resource)', async () => {
    running = await start(['crontabs.stable.example.com']);
    const { server, raw } = running;
    try {
      await defineCronTabs(server.url, 'other.example.com');
      const { stored, read } = await storeCronTab(server, raw, 'other.example.com', 'plain-sentinel');
      expect(stored.startsWith('k8s:enc:')).toBe(false);
      expect(JSON.parse(stored).spec.cronSpec).toBe('plain-sentinel');
      expect(read.body.spec.cronSpec).toBe('plain-sentinel');
    } finally {
      await server.close();
      running = undefined;
    }
  });
});
