/**
 * Key rotation end to end with the shipped commands: `svckit encryption rewrite` over a SQLite
 * file, a rewrite under a running server on etcd (conditional writes lose nothing), and KMS v2
 * through `svckit kms-plugin` on a real unix socket, its key rotated.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import {
  aescbc,
  aesgcm,
  createCronTab,
  createSecret,
  defineCronTabs,
  decoded,
  getSecret,
  kms,
  newKey,
  putSecret,
  startEncrypted,
  writeEncryptionConfig,
  writeSecretsConfig,
} from '../../reference/encryption-at-rest.testing.js';
import { EncryptionAtRest, encryptStore, rewriteStored } from '../../runtime/encryption/index.js';
import { ResourceRegistry } from '../../runtime/server/index.js';
import { type EtcdProcess, startEtcd } from '../../runtime/store/etcd.testing.js';
import { type Store, type WriteOptions, createStore } from '../../runtime/store/index.js';
import { cliArgs } from './cli.testing.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'svckit-rotation-'));

function run(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, cliArgs(...args), { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** The stored value of each Secret, read without the encryption layer. */
async function rawSecrets(store: string): Promise<Record<string, string>> {
  const raw = await createStore(store);
  try {
    const list = await raw.list('/registry/secrets/');
    return Object.fromEntries(list.items.map((kv) => [kv.key.split('/').pop()!, kv.value]));
  } finally {
    await raw.close();
  }
}

const prefixesOf = (raw: Record<string, string>) =>
  Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, value.split(':', 5).join(':')]));

describe('key rotation on SQLite: add key2 second, restart, move it first, rewrite, remove key1', () => {
  it('keeps every Secret readable and ends with every one under key2', async () => {
    const db = `sqlite:${join(dir, 'rotation.db')}`;
    const [key1, key2] = [newKey(), newKey()];
    const names = ['s0', 's1', 's2', 's3', 's4'];

    let server = await startEncrypted(db, writeSecretsConfig(dir, 'r1', [aescbc(['key1', key1])]));
    for (const n of names) await createSecret(server.url, n, `rotation-${n}`);
    await server.close();

    // key2 known but not yet used: everything reads, new writes still use key1.
    server = await startEncrypted(db, writeSecretsConfig(dir, 'r2', [aescbc(['key1', key1], ['key2', key2])]));
    for (const n of names) expect(decoded((await getSecret(server.url, n)).body)).toBe(`rotation-${n}`);
    await createSecret(server.url, 's5', 'rotation-s5');
    await server.close();

    const current = writeSecretsConfig(dir, 'r3', [aescbc(['key2', key2], ['key1', key1])]);
    server = await startEncrypted(db, current);
    // A stale object is written again by an update that changes nothing.
    const s0 = (await getSecret(server.url, 's0')).body;
    const put = await putSecret(server.url, s0);
    expect(put.status).toBe(200);
    expect(Number(put.body.metadata.resourceVersion)).toBeGreaterThan(Number(s0.metadata.resourceVersion));
    await createSecret(server.url, 's6', 'rotation-s6');
    // A SQLite file belongs to its server: the rewrite refuses to share it, with a clear message.
    const refused = await run('encryption', 'rewrite', '--store', db, '--encryption-provider-config', current);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^svckit encryption rewrite: --store sqlite:.*rotation\.db: .*already open in another store/);
    expect(refused.stderr).not.toContain('    at ');
    await server.close();

    expect(Object.values(prefixesOf(await rawSecrets(db))).sort()).toEqual([
      ...Array(5).fill('k8s:enc:aescbc:v1:key1'),
      ...Array(2).fill('k8s:enc:aescbc:v1:key2'),
    ]);
    const rewrite = await run('encryption', 'rewrite', '--store', db, '--encryption-provider-config', current);
    expect(rewrite.stderr).toContain('rewrite: 7/7');
    expect(rewrite.code).toBe(0);
    expect(rewrite.stdout).toBe('rewrote 5 of 7 objects with aescbc/key2\n  aescbc/key1: 5\n  aescbc/key2: 2\n');
    expect(new Set(Object.values(prefixesOf(await rawSecrets(db))))).toEqual(new Set(['k8s:enc:aescbc:v1:key2']));

    // key1 removed: everything is still readable, and nothing is stale any more.
    const last = writeSecretsConfig(dir, 'r4', [aescbc(['key2', key2])]);
    server = await startEncrypted(db, last);
    try {
      for (const n of [...names, 's5', 's6']) expect(decoded((await getSecret(server.url, n)).body)).toBe(`rotation-${n}`);
      const s1 = (await getSecret(server.url, 's1')).body;
      expect((await putSecret(server.url, s1)).body.metadata.resourceVersion).toBe(s1.metadata.resourceVersion);
    } finally {
      await server.close();
    }
    const again = await run('encryption', 'rewrite', '--store', db, '--encryption-provider-config', last);
    expect(again.stdout).toBe('rewrote 0 of 7 objects with aescbc/key2\n  aescbc/key2: 7\n');
  }, 60_000);

  it("rewrites the objects of a CustomResourceDefinition's resource kept in the store", async () => {
    const db = `sqlite:${join(dir, 'crontabs.db')}`;
    const [key1, key2] = [newKey(), newKey()];
    const names = ['crontabs.stable.example.com'];
    let server = await startEncrypted(db, writeEncryptionConfig(dir, 'crd-1', names, [aescbc(['key1', key1])]));
    try {
      await defineCronTabs(server.url, 'stable.example.com');
      await createCronTab(server.url, 'stable.example.com', 'nightly', '0 0 * * *');
    } finally {
      await server.close();
    }
    const current = writeEncryptionConfig(dir, 'crd-2', names, [aescbc(['key2', key2], ['key1', key1])]);
    const rewrite = await run('encryption', 'rewrite', '--store', db, '--encryption-provider-config', current);
    expect(rewrite.stderr).not.toContain('    at ');
    expect(rewrite.code).toBe(0);
    expect(rewrite.stdout).toBe('rewrote 1 of 1 objects with aescbc/key2\n  aescbc/key1: 1\n');
    const raw = await createStore(db);
    try {
      expect((await raw.get('/registry/stable.example.com/crontabs/default/nightly'))?.value).toMatch(/^k8s:enc:aescbc:v1:key2:/);
    } finally {
      await raw.close();
    }
    // Readable with key2 alone, served again from the stored definition.
    server = await startEncrypted(db, writeEncryptionConfig(dir, 'crd-3', names, [aescbc(['key2', key2])]));
    try {
      const res = await fetch(`${server.url}/apis/stable.example.com/v1/namespaces/default/crontabs/nightly`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { spec: { cronSpec: string } }).spec.cronSpec).toBe('0 0 * * *');
    } finally {
      await server.close();
    }
  });

  it('a rewrite that meets a value no key opens names it and exits 1 without a stack', async () => {
    const db = `sqlite:${join(dir, 'lost.db')}`;
    const server = await startEncrypted(db, writeSecretsConfig(dir, 'lost-1', [aescbc(['key1', newKey()])]));
    await createSecret(server.url, 'lost', 'x');
    await server.close();
    const result = await run(
      'encryption',
      'rewrite',
      '--store',
      db,
      '--encryption-provider-config',
      writeSecretsConfig(dir, 'lost-2', [aescbc(['key2', newKey()])]),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'svckit encryption rewrite: Internal error occurred: /registry/secrets/default/lost: no configured provider reads this value (k8s:enc:aescbc:v1:key1:)',
    );
    expect(result.stderr).not.toContain('    at ');
  });

  it('svckit serve --encryption-provider-config stores Secrets sealed by the first provider', async () => {
    const db = join(dir, 'serve.db');
    const child = spawn(
      process.execPath,
      cliArgs(
        'serve',
        '--port',
        '0',
        '--store',
        `sqlite:${db}`,
        '--encryption-provider-config',
        writeSecretsConfig(dir, 'serve', [aesgcm(['served', newKey(24)])]),
      ),
      { cwd: ROOT },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', (line) => resolve(line.replace(/^listening on /, '')));
      child.once('exit', (code) => reject(new Error(`svckit serve exited with ${code}`)));
    });
    try {
      await createSecret(url, 'served', 'served-sentinel');
      expect(decoded((await getSecret(url, 'served')).body)).toBe('served-sentinel');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect((await rawSecrets(`sqlite:${db}`)).served!.startsWith('k8s:enc:aesgcm:v1:served:')).toBe(true);
  });

  it('a bad configuration file is a usage error (exit 2) naming file, line and field', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'apiVersion: apiserver.config.svc.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers: []\n',
    );
    for (const args of [
      ['encryption', 'rewrite', '--store', 'memory', '--encryption-provider-config', bad],
      ['serve', '--port', '0', '--store', 'memory', '--encryption-provider-config', bad],
    ]) {
      const result = await run(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          `--encryption-provider-config: invalid encryption provider configuration:\\n${bad}:5:\\d+: resources\\[0\\]\\.providers`,
        ),
      );
    }
  });
});

describe('rewrite under a running server on etcd', () => {
  let etcd: EtcdProcess | undefined;
  beforeAll(async () => {
    etcd = await startEtcd({ unsafeNoFsync: true });
  }, 30_000);
  afterAll(async () => {
    await etcd?.dispose();
  });

  it('loses no acknowledged write: conflicting objects are read again, not overwritten', async () => {
    const store = `etcd://${etcd!.endpoint}?prefix=/rotation`;
    const [key1, key2] = [newKey(), newKey()];
    let server = await startEncrypted(store, writeSecretsConfig(dir, 'e1', [aescbc(['key1', key1])]));
    for (let i = 0; i < 40; i++) await createSecret(server.url, `s${i}`, `v0-${i}`);
    await server.close();

    const current = writeSecretsConfig(dir, 'e2', [aescbc(['key2', key2], ['key1', key1])]);
    server = await startEncrypted(store, current);
    try {
      // The server keeps changing every Secret while the rewrite runs; the last acknowledged value must stay.
      const acknowledged = new Map<string, string>();
      let stop = false;
      const writer = (async () => {
        for (let round = 1; !stop; round++) {
          for (let i = 0; i < 40 && !stop; i++) {
            const object = (await getSecret(server.url, `s${i}`)).body;
            object.data.password = Buffer.from(`v${round}-${i}`).toString('base64');
            const put = await putSecret(server.url, object);
            if (put.status === 200) acknowledged.set(`s${i}`, `v${round}-${i}`);
          }
        }
      })();
      const encryption = await EncryptionAtRest.load(current, allKinds);
      const resources = new ResourceRegistry(allKinds).resources();
      const rewriting = encryptStore(await createStore(store), encryption, resources);
      let result: Awaited<ReturnType<typeof rewriteStored>>;
      try {
        // Start once the writer has acknowledged something, so the two overlap.
        while (acknowledged.size === 0) await new Promise((r) => setImmediate(r));
        result = await rewriteStored(rewriting, resources);
      } finally {
        stop = true;
        await writer;
        await rewriting.close();
      }
      expect(result.total).toBe(40);
      for (const [name, value] of acknowledged) expect(decoded((await getSecret(server.url, name)).body)).toBe(value);
    } finally {
      await server.close();
    }
    expect(new Set(Object.values(prefixesOf(await rawSecrets(store))))).toEqual(new Set(['k8s:enc:aescbc:v1:key2']));
  }, 60_000);

  it('a server write between the rewrite reading an object and writing it wins; the rewrite reads again', async () => {
    const store = `etcd://${etcd!.endpoint}?prefix=/rotation-race`;
    const [key1, key2] = [newKey(), newKey()];
    let server = await startEncrypted(store, writeSecretsConfig(dir, 'race-1', [aescbc(['key1', key1])]));
    await createSecret(server.url, 'a', 'before');
    await createSecret(server.url, 'b', 'untouched');
    await server.close();
    const current = writeSecretsConfig(dir, 'race-2', [aescbc(['key2', key2], ['key1', key1])]);
    server = await startEncrypted(store, current);
    try {
      const backend = await createStore(store);
      let raced = false;
      // The backend as the rewrite sees it, with the server's write slipped in before the rewrite's first one.
      const update = async (key: string, value: string, options?: WriteOptions) => {
        if (!raced && key.endsWith('/a')) {
          raced = true;
          const a = (await getSecret(server.url, 'a')).body;
          a.data.password = Buffer.from('during').toString('base64');
          expect((await putSecret(server.url, a)).status).toBe(200);
        }
        return backend.update(key, value, options);
      };
      const racing = new Proxy(backend, {
        get: (target, name) => {
          if (name === 'update') return update;
          const value = Reflect.get(target, name, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }) as Store;
      const resources = new ResourceRegistry(allKinds).resources();
      const rewriting = encryptStore(racing, await EncryptionAtRest.load(current, allKinds), resources);
      const result = await rewriteStored(rewriting, resources);
      await rewriting.close();
      expect(raced).toBe(true);
      // 'a' was rewritten by the server itself (key2), so only 'b' needed the rewrite.
      expect(result).toMatchObject({ total: 2, rewritten: 1 });
      expect(decoded((await getSecret(server.url, 'a')).body)).toBe('during');
      expect(decoded((await getSecret(server.url, 'b')).body)).toBe('untouched');
    } finally {
      await server.close();
    }
    expect(prefixesOf(await rawSecrets(store))).toEqual({ a: 'k8s:enc:aescbc:v1:key2', b: 'k8s:enc:aescbc:v1:key2' });
  });
});

/** Starts `svckit kms-plugin` and resolves once it listens. */
async function kmsPlugin(
  socket: string,
  keys: string[],
): Promise<{ child: ChildProcessWithoutNullStreams; endpoint: string; keyId: string }> {
  const keyFile = join(dir, `keys-${keys.length}-${Date.now()}`);
  writeFileSync(keyFile, `${keys.join('\n')}\n`);
  const child = spawn(process.execPath, cliArgs('kms-plugin', '--socket', socket, '--key-file', keyFile), { cwd: ROOT });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => {
      const m = /^listening on (unix:\/\/\S+) \(key id (\S+)\)$/.exec(line);
      if (m) resolve({ child, endpoint: m[1]!, keyId: m[2]! });
      else reject(new Error(`unexpected first line: ${line}`));
    });
    child.once('exit', (code) => reject(new Error(`svckit kms-plugin exited with ${code}`)));
  });
}

const stopped = (child: ChildProcessWithoutNullStreams) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

describe('KMS v2 through svckit kms-plugin on a unix socket', () => {
  it('seals Secrets with a seed the plugin encrypts; a new plugin key makes them stale; rewrite; the old key can go', async () => {
    const socket = join(dir, 'plugin.sock');
    const db = `sqlite:${join(dir, 'kms.db')}`;
    const [old, fresh] = [newKey(), newKey()];
    let plugin = await kmsPlugin(socket, [old]);
    const config = writeSecretsConfig(dir, 'kms', [kms('plugin1', plugin.endpoint)]);
    let server = await startEncrypted(db, config);
    try {
      for (const n of ['a', 'b', 'c']) await createSecret(server.url, n, `kms-${n}`);
    } finally {
      await server.close();
    }
    const raw = await rawSecrets(db);
    for (const value of Object.values(raw)) {
      expect(value.startsWith('k8s:enc:kms:v2:plugin1:')).toBe(true);
      // The envelope names the plugin's key id (protobuf field 2, a string, stored in clear).
      expect(Buffer.from(value.slice('k8s:enc:kms:v2:plugin1:'.length), 'base64').includes(Buffer.from(plugin.keyId))).toBe(true);
    }
    await stopped(plugin.child);

    // The plugin's key rotates: new key first, the old one still decrypts.
    plugin = await kmsPlugin(socket, [fresh, old]);
    server = await startEncrypted(db, config);
    try {
      const a = (await getSecret(server.url, 'a')).body;
      expect(decoded(a)).toBe('kms-a');
      const put = await putSecret(server.url, a);
      expect(Number(put.body.metadata.resourceVersion)).toBeGreaterThan(Number(a.metadata.resourceVersion));
    } finally {
      await server.close();
    }
    const rewrite = await run('encryption', 'rewrite', '--store', db, '--encryption-provider-config', config);
    expect(rewrite.code).toBe(0);
    expect(rewrite.stdout).toBe('rewrote 2 of 3 objects with kms/plugin1\n  kms/plugin1: 3\n');
    await stopped(plugin.child);

    plugin = await kmsPlugin(socket, [fresh]);
    server = await startEncrypted(db, config);
    try {
      for (const n of ['a', 'b', 'c']) expect(decoded((await getSecret(server.url, n)).body)).toBe(`kms-${n}`);
    } finally {
      await server.close();
      await stopped(plugin.child);
    }
  }, 60_000);
});
