/**
 * The KMS v2 provider against the shipped plugin on a real unix socket: one seed per start and per
 * key id change, seeds decrypted by the plugin once, staleness by key id, clear errors.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kmsV2, type KmsV2Transformer } from './kms-v2.js';
import { type RunningKmsPlugin, kmsKeyId, startKmsPlugin } from './kms-plugin.js';
import { DekSourceType, encryptedObject } from './kms-wire.js';

const dir = mkdtempSync(join(tmpdir(), 'svckit-kms-'));
const KEY = '/registry/secrets/default/s';
const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

async function plugin(socket: string, keys: Buffer[]): Promise<RunningKmsPlugin> {
  const p = await startKmsPlugin({ socket, keys });
  open.push(p);
  return p;
}
async function provider(endpoint: string, statusIntervalMs?: number): Promise<KmsV2Transformer> {
  const t = await kmsV2({ name: 'p', endpoint, timeoutMs: 2000, ...(statusIntervalMs !== undefined ? { statusIntervalMs } : {}) });
  open.unshift(t);
  return t;
}
const envelope = (sealed: Buffer) => encryptedObject.deserialize(sealed);

describe('KMS v2 provider', () => {
  it("uses one plugin-encrypted seed per start, a fresh derived key per write, and reads another start's values", async () => {
    const k = randomBytes(32);
    const p = await plugin(join(dir, 'a.sock'), [k]);
    const first = await provider(p.endpoint);
    const [x, y] = [await first.seal(Buffer.from('one'), KEY), await first.seal(Buffer.from('one'), KEY)];
    const [ex, ey] = [envelope(x), envelope(y)];
    expect(ex.keyID).toBe(kmsKeyId(k));
    expect(ex.encryptedDEKSourceType).toBe(DekSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED);
    expect(ex.encryptedDEKSource.equals(ey.encryptedDEKSource)).toBe(true);
    // 32 bytes of KDF info, then nonce, ciphertext and tag: every write differs.
    expect(ex.encryptedData.subarray(0, 32).equals(ey.encryptedData.subarray(0, 32))).toBe(false);

    const second = await provider(p.endpoint);
    const z = envelope(await second.seal(Buffer.from('two'), KEY));
    expect(z.encryptedDEKSource.equals(ex.encryptedDEKSource)).toBe(false);
    expect(await second.open(x, KEY)).toEqual({ plaintext: Buffer.from('one'), stale: false });
    // The storage key is authenticated.
    await expect(second.open(x, '/registry/secrets/default/other')).rejects.toThrow(/message authentication failed/);
  });

  it('a cached seed needs no plugin; an uncached one fails clearly while the plugin is down', async () => {
    const socket = join(dir, 'b.sock');
    const p = await plugin(socket, [randomBytes(32)]);
    const t = await provider(p.endpoint);
    const mine = await t.seal(Buffer.from('cached'), KEY);
    const other = await (await provider(p.endpoint)).seal(Buffer.from('elsewhere'), KEY);
    await p.close();
    expect((await t.open(mine, KEY)).plaintext.toString()).toBe('cached');
    await expect(t.open(other, KEY)).rejects.toThrow(new RegExp(`^KMS plugin unix://${socket} Decrypt: `));
  });

  it('a new plugin key id makes old values stale and, on the next status check, a new seed', async () => {
    const socket = join(dir, 'c.sock');
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    let p = await plugin(socket, [oldKey]);
    const t = await provider(p.endpoint, 0);
    const before = await t.seal(Buffer.from('before'), KEY);
    await p.close();
    p = await plugin(socket, [newKey, oldKey]);
    // statusIntervalMs 0: every write checks the key id (upstream polls each minute).
    let after: Buffer | undefined;
    // The client reconnects to the restarted plugin by itself; poll until a write goes through.
    for (let i = 0; i < 200 && !after; i++) {
      after = await t.seal(Buffer.from('after'), KEY).catch(() => undefined);
      if (!after) await new Promise((r) => setTimeout(r, 50));
    }
    expect(envelope(after!).keyID).toBe(kmsKeyId(newKey));
    expect(envelope(after!).encryptedDEKSource.equals(envelope(before).encryptedDEKSource)).toBe(false);
    expect(await t.open(before, KEY)).toEqual({ plaintext: Buffer.from('before'), stale: true });
    expect(await t.open(after!, KEY)).toEqual({ plaintext: Buffer.from('after'), stale: false });
  });

  it('refuses an envelope that is not one', async () => {
    const p = await plugin(join(dir, 'd.sock'), [randomBytes(32)]);
    const t = await provider(p.endpoint);
    await expect(t.open(Buffer.from('not protobuf at all'), KEY)).rejects.toThrow(
      /the stored envelope is not an EncryptedObject|unknown encryptedDEKSourceType|empty/,
    );
    const good = envelope(await t.seal(Buffer.from('x'), KEY));
    await expect(t.open(encryptedObject.serialize({ ...good, encryptedDEKSourceType: 7 }), KEY)).rejects.toThrow(
      'unknown encryptedDEKSourceType: 7',
    );
  });

  it('an unhealthy or silent plugin fails the start', async () => {
    await expect(kmsV2({ name: 'p', endpoint: `unix://${join(dir, 'nobody.sock')}`, timeoutMs: 300 })).rejects.toThrow(
      /KMS plugin unix:\/\/.*nobody\.sock Status: /,
    );
  });
});
