/**
 * EncryptingStore is the fourth Store: the shared suite runs against it (over a memory backend),
 * with most of the suite's keys under encrypted resources and some passing through plain.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { MemoryStore } from '../store/index.js';
import { runStoreSuite } from '../store/store-suite.testing.js';
import { EncryptingStore, EncryptionAtRest, type StoredResource } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'svckit-encrypting-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = join(dir, 'encryption.yaml');
writeFileSync(
  config,
  `apiVersion: apiserver.config.svc.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["secrets"]
    providers:
      - aesgcm: {keys: [{name: k1, secret: "${randomBytes(32).toString('base64')}"}]}
`,
);
const encryption = await EncryptionAtRest.load(config, allKinds);

/** The suite's `/k/` and `/pods/` keys are sealed as Secrets; `/other/` is a resource no entry names; the rest belong to none. */
const RESOURCES: readonly StoredResource[] = [
  { group: '', resource: 'secrets', storagePrefix: '/k/' },
  { group: '', resource: 'secrets', storagePrefix: '/pods/' },
  { group: '', resource: 'configmaps', storagePrefix: '/other/' },
];

runStoreSuite('encrypting (aesgcm over memory)', (options) => new EncryptingStore(new MemoryStore(options), encryption, RESOURCES));

describe('the encrypting store under the suite', () => {
  it('seals the values of encrypted resources in its backend and opens them on every read', async () => {
    const inner = new MemoryStore();
    const store = new EncryptingStore(inner, encryption, RESOURCES);
    try {
      const watch = store.watch('/', 0);
      const events = watch[Symbol.asyncIterator]();
      await store.create('/k/a', 'secret-1');
      await store.create('/other/c', 'plain-1');
      await store.create('/unrelated', 'plain-2');
      expect((await inner.get('/k/a'))?.value).toMatch(/^k8s:enc:aesgcm:v1:k1:/);
      expect((await inner.get('/k/a'))?.value).not.toContain('secret-1');
      expect((await inner.get('/other/c'))?.value).toBe('plain-1');
      expect((await inner.get('/unrelated'))?.value).toBe('plain-2');
      expect((await store.get('/k/a'))?.value).toBe('secret-1');
      expect((await store.list('/k/')).items.map((kv) => kv.value)).toEqual(['secret-1']);
      expect((await events.next()).value).toMatchObject({ type: 'create', key: '/k/a', value: 'secret-1' });
      watch.close();
    } finally {
      await store.close();
    }
  });
});
