/**
 * Encryption at rest end to end: the reference server over SQLite and over a real etcd, with each
 * provider first (KMS v2 through the shipped plugin on a real unix socket); the raw bytes the
 * backend wrote hold no Secret in plaintext, while a resource the configuration does not name
 * stays readable there (so the search is known to see the data).
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningKey } from '../runtime/auth/index.js';
import { createStore } from '../runtime/store/index.js';
import { type EtcdProcess, startEtcd } from '../runtime/store/etcd.testing.js';
import {
  IDENTITY,
  aescbc,
  aesgcm,
  createConfigMap,
  createSecret,
  decoded,
  foundInFiles,
  getSecret,
  kms,
  newKey,
  putSecret,
  secretboxProvider,
  startEncrypted,
  writeSecretsConfig,
} from './encryption-at-rest.testing.js';
import { type RunningKmsPlugin, startKmsPlugin } from '../runtime/encryption/index.js';
import { randomBytes } from 'node:crypto';

const dir = mkdtempSync(join(tmpdir(), 'svckit-at-rest-'));
let plugin: RunningKmsPlugin;

beforeAll(async () => {
  plugin = await startKmsPlugin({ socket: join(dir, 'kms.sock'), keys: [randomBytes(32)] });
});
afterAll(async () => {
  await plugin?.close();
});

const providers = (): [string, string, string][] => [
  ['aesgcm', aesgcm(['key1', newKey(32)]), 'k8s:enc:aesgcm:v1:key1:'],
  ['aescbc', aescbc(['key1', newKey()]), 'k8s:enc:aescbc:v1:key1:'],
  ['secretbox', secretboxProvider(['key1', newKey()]), 'k8s:enc:secretbox:v1:key1:'],
  ['kms', kms('plugin1', plugin.endpoint), 'k8s:enc:kms:v2:plugin1:'],
];

describe('on SQLite', () => {
  it('no provider leaves a Secret in plaintext in the database file; each reads its Secrets back', async () => {
    const db = join(dir, 'each.db');
    const sentinels: string[] = [];
    for (const [type, provider, prefix] of providers()) {
      const server = await startEncrypted(`sqlite:${db}`, writeSecretsConfig(dir, `each-${type}`, [provider]));
      try {
        const sentinel = `sqlite-${type}-plaintext-sentinel`;
        sentinels.push(sentinel);
        await createSecret(server.url, `s-${type}`, sentinel);
        await createConfigMap(server.url, `c-${type}`, `visible-${type}-configmap`);
        const back = await getSecret(server.url, `s-${type}`);
        expect(back.status).toBe(200);
        expect(decoded(back.body)).toBe(sentinel);
      } finally {
        await server.close();
      }
      // The row as the file holds it, read with the driver, beside the store.
      const file = new Database(db, { readonly: true });
      const row = file
        .prepare('SELECT value FROM kv WHERE key = ? AND deleted = 0 ORDER BY revision DESC LIMIT 1')
        .get(`/registry/secrets/default/s-${type}`) as { value: string };
      file.close();
      expect(row.value.startsWith(prefix)).toBe(true);
    }
    const files = readdirSync(dir)
      .filter((f) => f.startsWith('each.db'))
      .map((f) => join(dir, f));
    expect(files.flatMap((f) => foundInFiles(f, sentinels))).toEqual([]);
    // The unencrypted ConfigMaps are there in the same bytes: the search sees what the file holds.
    expect(new Set(files.flatMap((f) => foundInFiles(f, ['visible-aescbc-configmap'])))).toEqual(new Set(['visible-aescbc-configmap']));
  });
});

describe('on etcd', () => {
  let etcd: EtcdProcess | undefined;
  beforeAll(async () => {
    etcd = await startEtcd();
  }, 30_000);
  afterAll(async () => {
    await etcd?.dispose();
  });

  it('a watch that meets a value it cannot open ends with an ERROR event (500), as upstream', async () => {
    const store = `etcd://${etcd!.endpoint}?prefix=/enc-watch`;
    // Encrypted with different keys, so they share a signing key by flag: neither could open a sealed one of the other.
    const serviceAccounts = { signingKey: generateSigningKey() };
    const writer = await startEncrypted(store, writeSecretsConfig(dir, 'watch-writer', [aescbc(['key1', newKey()])]), { serviceAccounts });
    const reader = await startEncrypted(store, writeSecretsConfig(dir, 'watch-reader', [aescbc(['key1', newKey()])]), { serviceAccounts });
    try {
      const res = await fetch(`${reader.url}/api/v1/namespaces/default/secrets?watch=true&resourceVersion=0`);
      expect(res.status).toBe(200);
      const lines = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      await createSecret(writer.url, 'w', 'watch-sentinel');
      let text = '';
      for (;;) {
        const { value, done } = await lines.read();
        if (done) break;
        text += value;
      }
      const events = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; object: Record<string, any> });
      expect(events.map((e) => e.type)).toEqual(['ERROR']);
      expect(events[0]!.object).toMatchObject({ kind: 'Status', code: 500, reason: 'InternalError' });
      // About one wrong key in 256 unpads by chance (a last byte of 1 is valid PKCS#7): the
      // "opened" text is then no JSON, and that is the error (without the text).
      expect(events[0]!.object.message).toMatch(
        /^Internal error occurred: (\/registry\/secrets\/default\/w: aescbc\/key1 could not decrypt the stored value: invalid padding|the stored value is not JSON \(corrupt, or decrypted with another key than it was written with\)$)/,
      );
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it('no provider leaves a Secret in plaintext in etcd (its values, its WAL and database files)', async () => {
    const sentinels: string[] = [];
    for (const [type, provider, prefix] of providers()) {
      const store = `etcd://${etcd!.endpoint}?prefix=/enc-${type}`;
      const server = await startEncrypted(store, writeSecretsConfig(dir, `etcd-${type}`, [provider]));
      const sentinel = `etcd-${type}-plaintext-sentinel`;
      sentinels.push(sentinel);
      try {
        await createSecret(server.url, `s-${type}`, sentinel);
        await createConfigMap(server.url, `c-${type}`, `visible-${type}-configmap`);
        expect(decoded((await getSecret(server.url, `s-${type}`)).body)).toBe(sentinel);
      } finally {
        await server.close();
      }
      // The values as etcd holds them, read without the encryption layer.
      const raw = await createStore(store);
      try {
        const secret = await raw.get(`/registry/secrets/default/s-${type}`);
        expect(secret!.value.startsWith(prefix)).toBe(true);
        expect(secret!.value).not.toContain(Buffer.from(sentinel).toString('base64'));
        expect((await raw.get(`/registry/configmaps/default/c-${type}`))!.value).toContain(`visible-${type}-configmap`);
      } finally {
        await raw.close();
      }
    }
    // etcd's own files, once it has stopped and flushed everything it holds.
    await etcd!.stop();
    expect(foundInFiles(etcd!.dataDir, sentinels)).toEqual([]);
    expect(foundInFiles(etcd!.dataDir, ['visible-kms-configmap'])).toEqual(['visible-kms-configmap']);
  }, 60_000);
});

describe('reading with the wrong provider', () => {
  it('identity first refuses encrypted data with a 500 naming the cause; identity before the old key reads it and writes plain', async () => {
    const db = `sqlite:${join(dir, 'identity.db')}`;
    const key1 = newKey();
    let server = await startEncrypted(db, writeSecretsConfig(dir, 'id-1', [aescbc(['key1', key1])]));
    const created = await createSecret(server.url, 'sealed', 'identity-sentinel');
    await createConfigMap(server.url, 'plain', 'x');
    await server.close();

    server = await startEncrypted(db, writeSecretsConfig(dir, 'id-2', [IDENTITY]));
    try {
      const got = await getSecret(server.url, 'sealed');
      expect(got.status).toBe(500);
      expect(got.body).toMatchObject({ kind: 'Status', reason: 'InternalError', code: 500 });
      expect(got.body.message).toBe(
        'Internal error occurred: /registry/secrets/default/sealed: identity transformer tried to read encrypted data',
      );
      const list = await fetch(`${server.url}/api/v1/namespaces/default/secrets`);
      expect(list.status).toBe(500);
      // The server goes on serving everything else.
      expect((await fetch(`${server.url}/api/v1/namespaces/default/configmaps/plain`)).status).toBe(200);
    } finally {
      await server.close();
    }

    server = await startEncrypted(db, writeSecretsConfig(dir, 'id-3', [IDENTITY, aescbc(['key1', key1])]));
    try {
      const got = await getSecret(server.url, 'sealed');
      expect(decoded(got.body)).toBe('identity-sentinel');
      // Stale (read with the second provider): an unchanged update writes it again, now plain.
      const put = await putSecret(server.url, got.body);
      expect(put.status).toBe(200);
      expect(put.body.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    } finally {
      await server.close();
    }
    const raw = await createStore(db);
    expect((await raw.get('/registry/secrets/default/sealed'))!.value).toContain(Buffer.from('identity-sentinel').toString('base64'));
    await raw.close();
  });

  it('a wrong key under the same name is a clear 500, not a crash or garbage', async () => {
    const db = `sqlite:${join(dir, 'wrong.db')}`;
    let server = await startEncrypted(db, writeSecretsConfig(dir, 'wrong-1', [aesgcm(['key1', newKey()])]));
    await createSecret(server.url, 's', 'wrong-key-sentinel');
    await server.close();
    server = await startEncrypted(db, writeSecretsConfig(dir, 'wrong-2', [aesgcm(['key1', newKey()])]));
    try {
      const got = await getSecret(server.url, 's');
      expect(got.status).toBe(500);
      expect(got.body.message).toMatch(
        /^Internal error occurred: \/registry\/secrets\/default\/s: aesgcm\/key1 could not decrypt the stored value: message authentication failed/,
      );
      expect((await fetch(`${server.url}/api/v1/namespaces/default/configmaps`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
