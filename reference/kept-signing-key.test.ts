/**
 * The generated service-account signing key is never in the store in the clear (security audit,
 * finding 3): on SQLite it is a 0600 file beside a 0600 database in 0700 folders; on etcd it is
 * sealed by the encryption provider of `secrets`, or given by flag, and refused otherwise. After
 * start and a token, neither the store's bytes nor any of its values holds a private key in any
 * form (PEM, DER, the raw scalar in base64, base64url or hex). A clear key an older svckit kept is
 * removed; an existing database others could read is narrowed; a key file others could read is refused.
 */
import { createPrivateKey } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { allKinds } from '../generated/kinds.js';
import { generateSigningKey, signingKeyPem } from '../runtime/auth/index.js';
import { newKey, secretboxProvider, writeSecretsConfig } from './encryption-at-rest.testing.js';
import { EncryptionAtRest } from '../runtime/encryption/index.js';
import { createStore } from '../runtime/store/index.js';
import { type EtcdProcess, startEtcd } from '../runtime/store/etcd.testing.js';
import { KEPT_SIGNING_KEY, signingKeyFileOf } from './kept-signing-key.js';
import { type ReferenceServerOptions, type RunningServer, startReferenceServer } from './reference-server.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-kept-key-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => `0${(statSync(path).mode & 0o777).toString(8)}`;

async function post(s: RunningServer, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** A server that has issued a token (so the key was used), and the token. */
async function startAndIssue(options: ReferenceServerOptions): Promise<{ server: RunningServer; token: string }> {
  const server = await startReferenceServer({ port: 0, ...options });
  await post(server, '/api/v1/namespaces/default/serviceaccounts', {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'robot' },
  });
  const r = await post(server, '/api/v1/namespaces/default/serviceaccounts/robot/token', {
    apiVersion: 'authentication.svc.io/v1',
    kind: 'TokenRequest',
    spec: {},
  });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return { server, token: r.json.status.token };
}

/** Every form a private key could be stored in: PKCS#8 DER and the private scalar, raw and as text. */
function keyForms(pem: string): Buffer[] {
  const key = createPrivateKey(pem);
  const der = key.export({ type: 'pkcs8', format: 'der' });
  const scalar = Buffer.from((key.export({ format: 'jwk' }) as { d: string }).d, 'base64url');
  return [der, scalar].flatMap((raw) => [
    raw,
    Buffer.from(raw.toString('base64')),
    Buffer.from(raw.toString('base64url')),
    Buffer.from(raw.toString('hex')),
  ]);
}

/** What of a private key `bytes` holds: a PEM block, or any form of `pem`'s key. */
function keyMaterialIn(bytes: Buffer, pem?: string): string[] {
  const found: string[] = [];
  if (bytes.includes('PRIVATE KEY')) found.push('a PRIVATE KEY PEM block');
  if (pem) for (const [i, form] of keyForms(pem).entries()) if (bytes.includes(form)) found.push(`form ${i} of the signing key`);
  return found;
}

describe('on SQLite', () => {
  it('keeps the store and the key in files only this user can read, and no key material in the database', async () => {
    const folder = join(dir, 'fresh', 'state');
    const db = join(folder, 'data.db');
    const { server } = await startAndIssue({ store: `sqlite:${db}` });
    try {
      expect(modeOf(join(dir, 'fresh'))).toBe('0700');
      expect(modeOf(folder)).toBe('0700');
      expect(modeOf(db)).toBe('0600');
      expect(modeOf(`${db}-wal`)).toBe('0600');
      expect(existsSync(`${db}-shm`)).toBe(false); // the exclusive lock: no shared-memory file
      expect(modeOf(join(folder, 'pki'))).toBe('0700');
      expect(modeOf(signingKeyFileOf(db))).toBe('0600');
    } finally {
      await server.close();
    }
    const pem = readFileSync(signingKeyFileOf(db), 'utf8');
    for (const file of readdirSync(folder).filter((f) => f.startsWith('data.db'))) {
      expect(keyMaterialIn(readFileSync(join(folder, file)), pem), file).toEqual([]);
    }
    const rows = new Database(db, { readonly: true }).prepare('SELECT key, value FROM kv').all() as { key: string; value: string }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(keyMaterialIn(Buffer.from(row.value), pem), row.key).toEqual([]);
  });

  it('removes the key an older svckit kept in the clear in the store, with a line saying so, and signs with a new one', async () => {
    const db = join(dir, 'older.db');
    const old = signingKeyPem(generateSigningKey());
    const older = await createStore(`sqlite:${db}`);
    await older.create(KEPT_SIGNING_KEY, old);
    await older.close();
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let lines: string;
    try {
      const { server } = await startAndIssue({ store: `sqlite:${db}` });
      await server.close();
    } finally {
      lines = stderr.mock.calls.map((c) => String(c[0])).join('');
      stderr.mockRestore();
    }
    expect(lines).toContain(`removed the service-account signing key an older svckit kept unencrypted in the store at ${KEPT_SIGNING_KEY}`);
    const store = await createStore(`sqlite:${db}`);
    try {
      expect(await store.get(KEPT_SIGNING_KEY)).toBeUndefined();
    } finally {
      await store.close();
    }
    expect(readFileSync(signingKeyFileOf(db), 'utf8')).not.toBe(old);
  });

  it('narrows an existing database that other users could read to 0600, with a warning', async () => {
    const db = join(dir, 'wide', 'wide.db');
    mkdirSync(join(dir, 'wide'));
    writeFileSync(db, '');
    chmodSync(db, 0o644);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const server = await startReferenceServer({ port: 0, store: `sqlite:${db}` });
      await server.close();
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(modeOf(db)).toBe('0600');
    expect(warnings).toContain(`${db} was readable by other users (mode 0644); its mode is now 0600`);
  });

  it('refuses a key file other users could read, and leaves the store closed', async () => {
    const db = join(dir, 'leaked', 'leaked.db');
    mkdirSync(join(dir, 'leaked', 'pki'), { recursive: true, mode: 0o700 });
    writeFileSync(signingKeyFileOf(db), signingKeyPem(generateSigningKey()), { mode: 0o644 });
    chmodSync(signingKeyFileOf(db), 0o644);
    await expect(startReferenceServer({ port: 0, store: `sqlite:${db}` })).rejects.toThrow(
      `${signingKeyFileOf(db)} may be read by other users (mode 0644), so the key in it must be taken as known`,
    );
    rmSync(signingKeyFileOf(db));
    const server = await startReferenceServer({ port: 0, store: `sqlite:${db}` }); // the refused start let go of the database
    await server.close();
  });
});

describe('on etcd', () => {
  let etcd: EtcdProcess;
  beforeAll(async () => {
    etcd = await startEtcd({ unsafeNoFsync: true });
  }, 30_000);
  afterAll(async () => {
    await etcd?.dispose();
  });

  /** Every key and value under the store's prefix, read with the store's own range read. */
  async function everything(spec: string): Promise<{ key: string; value: string }[]> {
    const store = await createStore(spec);
    try {
      return (await store.list('')).items.map((i) => ({ key: i.key, value: i.value }));
    } finally {
      await store.close();
    }
  }

  it('refuses to generate a key replicas could not share: a key file or an encryption provider is needed', async () => {
    await expect(startReferenceServer({ port: 0, store: `etcd://${etcd.endpoint}?prefix=/bare` })).rejects.toThrow(
      /give every replica the same --service-account-signing-key-file \(as upstream\), or an --encryption-provider-config/,
    );
  });

  it('keeps a generated key sealed by the provider of secrets, shared by replicas, and no key material in the clear', async () => {
    const spec = `etcd://${etcd.endpoint}?prefix=/sealed`;
    const encryption = await EncryptionAtRest.load(writeSecretsConfig(dir, 'sealed', [secretboxProvider(['k1', newKey()])]), allKinds);
    const { server: a } = await startAndIssue({ store: spec, encryption });
    const b = await startReferenceServer({ port: 0, store: spec, encryption });
    try {
      const jwks = async (s: RunningServer) => (await fetch(`${s.url}/openid/v1/jwks`)).json();
      expect(await jwks(b)).toEqual(await jwks(a));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const all = await everything(spec);
    const kept = all.find((e) => e.key === KEPT_SIGNING_KEY);
    expect(kept?.value).toMatch(/^k8s:enc:secretbox:v1:k1:/);
    const pem = (await encryption.providersFor('', 'secrets').read(kept!.value, KEPT_SIGNING_KEY)).value;
    for (const e of all) expect(keyMaterialIn(Buffer.from(e.value), pem), e.key).toEqual([]);
  });

  it('signs with the key file given by flag, and keeps no key in the store', async () => {
    const spec = `etcd://${etcd.endpoint}?prefix=/flagged`;
    const signingKey = generateSigningKey();
    const { server } = await startAndIssue({ store: spec, serviceAccounts: { signingKey } });
    await server.close();
    const all = await everything(spec);
    expect(all.length).toBeGreaterThan(0);
    for (const e of all) expect(keyMaterialIn(Buffer.from(e.value), signingKeyPem(signingKey)), e.key).toEqual([]);
  });
});
