/**
 * `--secure`'s certificate folder holds the CA's key and the admin's client config: this user's
 * only (security audit, finding 3), whatever modes an older svckit or the umask left.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_CONFIG, prepareSecureServing, writeAdminClientConfig } from './secure-serving.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-secure-serving-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('the certificate folder', () => {
  it('is 0700 with 0600 keys and client config, an older client config included', () => {
    const pki = join(dir, 'state', 'pki');
    mkdirSync(pki, { recursive: true, mode: 0o755 });
    chmodSync(pki, 0o755);
    writeFileSync(join(pki, ADMIN_CONFIG), 'older', { mode: 0o644 });
    chmodSync(join(pki, ADMIN_CONFIG), 0o644);
    const secure = prepareSecureServing(pki, '127.0.0.1');
    writeAdminClientConfig(secure, 'https://127.0.0.1:1');
    expect(modeOf(pki)).toBe(0o700);
    for (const file of ['ca.key', 'serving.key', 'admin.key', ADMIN_CONFIG]) expect([file, modeOf(join(pki, file))]).toEqual([file, 0o600]);
  });

  it('is refused when other users may write it', () => {
    const pki = join(dir, 'shared');
    mkdirSync(pki);
    chmodSync(pki, 0o777);
    expect(() => prepareSecureServing(pki, '127.0.0.1')).toThrow(`${pki} may be written by other users (mode 0777)`);
  });
});
