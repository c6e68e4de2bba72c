import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { aesCbc, aesGcm } from './aes.js';
import { EncryptionAtRest, isEncryptionConfigError } from './config.js';
import { secretbox } from './secretbox.js';
import { type KeyTransformer, ProviderList, identity, isTransformError } from './transformer.js';

const KEY = '/registry/secrets/default/s1';
const PLAIN = JSON.stringify({ kind: 'Secret', data: { password: Buffer.from('hunter2-very-secret').toString('base64') } });

const providers: Record<string, (name: string, secret: Buffer) => KeyTransformer> = {
  aesgcm: aesGcm,
  aescbc: aesCbc,
  secretbox,
};

describe('providers', () => {
  for (const [type, make] of Object.entries(providers)) {
    it(`${type}: the value carries k8s:enc:${type}:v1:<key>:, holds no plaintext, and reads back`, async () => {
      const list = new ProviderList([make('key1', randomBytes(32))]);
      const stored = await list.write(PLAIN, KEY);
      expect(stored.startsWith(`k8s:enc:${type}:v1:key1:`)).toBe(true);
      expect(stored).not.toContain('hunter2');
      expect(stored).not.toContain(Buffer.from('hunter2-very-secret').toString('base64').slice(0, 12));
      // Random nonces/IVs: the same value seals differently each time.
      expect(await list.write(PLAIN, KEY)).not.toBe(stored);
      expect(await list.read(stored, KEY)).toEqual({ value: PLAIN, stale: false, keyName: `${type}/key1` });
    });

    it(`${type}: a wrong key with the same name is a clear error, not garbage`, async () => {
      const stored = await new ProviderList([make('key1', randomBytes(32))]).write(PLAIN, KEY);
      const other = new ProviderList([make('key1', randomBytes(32))]);
      const error = await other.read(stored, KEY).catch((e: unknown) => e);
      expect(isTransformError(error)).toBe(true);
      expect((error as Error).message).toMatch(new RegExp(`^${KEY}: ${type}/key1 could not decrypt the stored value: `));
    });
  }

  it('aesgcm authenticates the storage key: a value copied under another name does not open (upstream does the same)', async () => {
    const list = new ProviderList([aesGcm('k', randomBytes(16))]);
    const stored = await list.write(PLAIN, KEY);
    await expect(list.read(stored, '/registry/secrets/default/s2')).rejects.toThrow(/message authentication failed/);
  });

  it('reads by prefix with any listed key; a key other than the first is stale', async () => {
    const k1 = aesCbc('key1', randomBytes(32));
    const k2 = aesCbc('key2', randomBytes(32));
    const old = await new ProviderList([k1]).write(PLAIN, KEY);
    const rotated = new ProviderList([k2, k1]);
    expect(await rotated.read(old, KEY)).toEqual({ value: PLAIN, stale: true, keyName: 'aescbc/key1' });
    const fresh = await rotated.write(PLAIN, KEY);
    expect(fresh.startsWith('k8s:enc:aescbc:v1:key2:')).toBe(true);
    expect((await rotated.read(fresh, KEY)).stale).toBe(false);
    // Once key1 is removed, what it wrote is unreadable and says which key it needs.
    await expect(new ProviderList([k2]).read(old, KEY)).rejects.toThrow(
      /no configured provider reads this value \(k8s:enc:aescbc:v1:key1:\)/,
    );
  });

  it('identity refuses encrypted data, unless a later provider reads it; plaintext under an encrypting first provider is stale', async () => {
    const k1 = secretbox('key1', randomBytes(32));
    const sealed = await new ProviderList([k1]).write(PLAIN, KEY);
    await expect(new ProviderList([identity]).read(sealed, KEY)).rejects.toThrow(
      `${KEY}: identity transformer tried to read encrypted data`,
    );
    expect(await new ProviderList([identity, k1]).read(sealed, KEY)).toEqual({ value: PLAIN, stale: true, keyName: 'secretbox/key1' });
    expect(await new ProviderList([k1, identity]).read(PLAIN, KEY)).toEqual({ value: PLAIN, stale: true, keyName: 'identity' });
    await expect(new ProviderList([k1]).read(PLAIN, KEY)).rejects.toThrow(/unencrypted\); no matching prefix found/);
  });
});

describe('EncryptionAtRest.load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-enc-config-'));
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const key32 = randomBytes(32).toString('base64');
  const failure = async (file: string) => {
    const e = await EncryptionAtRest.load(file, allKinds).catch((x: unknown) => x);
    expect(isEncryptionConfigError(e)).toBe(true);
    return (e as Error).message;
  };

  it('picks the first entry naming a resource: exact names, *.<group>, *. for core, *.* for everything', async () => {
    const file = write(
      'ok.yaml',
      `apiVersion: apiserver.config.svc.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets, deployments.apps]
    providers: [{aescbc: {keys: [{name: a, secret: ${key32}}]}}]
  - resources: ['*.batch']
    providers: [{secretbox: {keys: [{name: b, secret: ${key32}}]}}]
  - resources: ['*.']
    providers: [{aesgcm: {keys: [{name: c, secret: ${randomBytes(16).toString('base64')}}]}}]
`,
    );
    const enc = await EncryptionAtRest.load(file, allKinds);
    expect(enc.providersFor('', 'secrets').writeKeyName).toBe('aescbc/a');
    expect(enc.providersFor('apps', 'deployments').writeKeyName).toBe('aescbc/a');
    expect(enc.providersFor('batch', 'jobs').writeKeyName).toBe('secretbox/b');
    expect(enc.providersFor('', 'configmaps').writeKeyName).toBe('aesgcm/c');
    expect(enc.covers('apps', 'replicasets')).toBe(false);
    expect(enc.providersFor('apps', 'replicasets')).toBe(EncryptionAtRest.unconfigured);
  });

  it('names file, line, column and field for schema errors (a 16-byte aescbc key)', async () => {
    const file = write(
      'short.yaml',
      `apiVersion: apiserver.config.svc.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aescbc: {keys: [{name: a, secret: ${randomBytes(16).toString('base64')}}]}
`,
    );
    expect(await failure(file)).toMatch(new RegExp(`${file}:6:\\d+: resources\\[0\\]\\.providers\\[0\\]: .*aescbc keys must be 32 bytes`));
  });

  it('never prints a secret, even a malformed one', async () => {
    const secret = `${key32.slice(0, 40)}!!!=`;
    const file = write(
      'malformed.yaml',
      `apiVersion: apiserver.config.svc.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers: [{secretbox: {keys: [{name: a, secret: "${secret}"}]}}]
`,
    );
    const message = await failure(file);
    expect(message).toMatch(
      new RegExp(`${file}:5:\\d+: resources\\[0\\]\\.providers\\[0\\]\\.secretbox\\.keys\\[0\\]\\.secret: Invalid value: "REDACTED"`),
    );
    expect(message).not.toContain(secret.slice(0, 20));
  });

  it('refuses what the schema cannot see: duplicate key names, KMS v1, a non-unix endpoint', async () => {
    const file = write(
      'semantic.yaml',
      `apiVersion: apiserver.config.svc.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - secretbox: {keys: [{name: a, secret: ${key32}}, {name: a, secret: ${key32}}]}
      - kms: {name: p, endpoint: "tcp://127.0.0.1:1"}
`,
    );
    const message = await failure(file);
    expect(message).toContain(`${file}: resources[0].providers[0].secretbox.keys[1].name: Duplicate value: "a"`);
    expect(message).toContain(`${file}: resources[0].providers[1].kms.apiVersion: Invalid value: "v1": KMS v1 is deprecated`);
    expect(message).toContain(`${file}: resources[0].providers[1].kms.endpoint: Invalid value: "tcp://127.0.0.1:1": must be a unix socket`);
    expect(message).not.toContain(key32);
  });

  it('fails the start when a KMS plugin does not answer, naming the provider and endpoint', async () => {
    const socket = join(dir, 'nobody.sock');
    const file = write(
      'kms.yaml',
      `apiVersion: apiserver.config.svc.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers: [{kms: {apiVersion: v2, name: p, endpoint: "unix://${socket}", timeout: 1s}}]
`,
    );
    expect(await failure(file)).toMatch(
      new RegExp(`${file}: resources\\[0\\]\\.providers\\[0\\]\\.kms: KMS plugin p at unix://${socket}: `),
    );
  });

  it('names an unreadable file and a document of another kind', async () => {
    expect(await failure(join(dir, 'missing.yaml'))).toMatch(/cannot read the encryption provider configuration .*missing\.yaml: ENOENT/);
    const other = write('other.yaml', 'apiVersion: apiserver.config.svc.io/v1\nkind: AdmissionConfiguration\nplugins: []\n');
    expect(await failure(other)).toContain('expected apiVersion apiserver.config.svc.io/v1 and kind EncryptionConfiguration');
  });
});
