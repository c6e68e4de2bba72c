/**
 * Private files and folders: made owner-only, and existing ones checked before use. Another
 * user's file is simulated by asking for another uid (the tests may not run as root to chown).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSecretFile, NotPrivateError, privateFile, privateFolder } from './index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-private-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;
const me = process.getuid?.() ?? 0;

describe('privateFolder', () => {
  it('creates missing folders 0700, and narrows one that others may only read', () => {
    privateFolder(join(dir, 'a', 'b'));
    expect(modeOf(join(dir, 'a'))).toBe(0o700);
    expect(modeOf(join(dir, 'a', 'b'))).toBe(0o700);
    mkdirSync(join(dir, 'readable'), { mode: 0o755 });
    chmodSync(join(dir, 'readable'), 0o755);
    privateFolder(join(dir, 'readable'));
    expect(modeOf(join(dir, 'readable'))).toBe(0o700);
  });

  it('refuses a folder others may write, another user has, or a link', () => {
    mkdirSync(join(dir, 'shared'));
    chmodSync(join(dir, 'shared'), 0o777);
    expect(() => privateFolder(join(dir, 'shared'))).toThrow(
      new NotPrivateError(
        `${join(dir, 'shared')} may be written by other users (mode 0777); svckit refuses to use it: remove it or run chmod 700 on it`,
      ),
    );
    mkdirSync(join(dir, 'theirs'), { mode: 0o700 });
    expect(() => privateFolder(join(dir, 'theirs'), me + 1)).toThrow(`belongs to user ${me}, not to this user (${me + 1})`);
    symlinkSync(join(dir, 'theirs'), join(dir, 'link'));
    expect(() => privateFolder(join(dir, 'link'))).toThrow('is not a folder (a link or a file is there)');
  });
});

describe('privateFile', () => {
  it('creates a file 0600, and narrows an existing one, saying so', () => {
    const narrowed: string[] = [];
    expect(privateFile(join(dir, 'new'), (l) => narrowed.push(l))).toBe(false);
    expect(modeOf(join(dir, 'new'))).toBe(0o600);
    writeFileSync(join(dir, 'wide'), 'x');
    chmodSync(join(dir, 'wide'), 0o644);
    expect(privateFile(join(dir, 'wide'), (l) => narrowed.push(l))).toBe(true);
    expect(modeOf(join(dir, 'wide'))).toBe(0o600);
    expect(narrowed).toEqual([`${join(dir, 'wide')} was readable by other users (mode 0644); its mode is now 0600`]);
  });

  it("refuses another user's file and a planted link", () => {
    writeFileSync(join(dir, 'other'), 'x', { mode: 0o600 });
    expect(() => privateFile(join(dir, 'other'), () => {}, me + 1)).toThrow(`belongs to user ${me}`);
    symlinkSync(join(dir, 'other'), join(dir, 'planted'));
    expect(() => privateFile(join(dir, 'planted'), () => {})).toThrow('is not a regular file (a link or a folder is there)');
  });
});

describe('checkSecretFile', () => {
  it('refuses a secret others could read, rather than narrowing it', () => {
    writeFileSync(join(dir, 'secret'), 'k', { mode: 0o600 });
    checkSecretFile(join(dir, 'secret'));
    chmodSync(join(dir, 'secret'), 0o640);
    expect(() => checkSecretFile(join(dir, 'secret'))).toThrow('may be read by other users (mode 0640)');
    expect(modeOf(join(dir, 'secret'))).toBe(0o640);
  });
});
