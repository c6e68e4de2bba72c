import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createStore } from '../runtime/store/index.js';
import { cliArgs } from './commands/cli.testing.js';

const ROOT = new URL('../', import.meta.url).pathname;

function svckit(...args: string[]) {
  const r = spawnSync(process.execPath, cliArgs(...args), { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('svckit CLI', () => {
  it('prints its version', () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(svckit('--version')).toMatchObject({ code: 0, stdout: `svckit ${version}\n` });
  });

  it.each(['codegen', 'serve', 'validate', 'conformance'])('answers %s --help with its usage and exit 0', (command) => {
    const r = svckit(command, '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`svckit ${command}`);
    expect(r.stderr).not.toContain('Unknown option');
  });

  it('answers an unknown command with every usage and the command it likely meant, exit 2, no stack trace', () => {
    const r = svckit('serv');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('svckit: unknown command "serv" (did you mean "serve"?)');
    expect(r.stderr).toContain('usage: svckit <command>');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("answers a command's bad flag with that command's usage alone, exit 2, no stack trace", () => {
    for (const [r, command] of [
      [svckit('codegen', '--frob'), 'codegen'],
      [svckit('serve', '--store', 'postgres://x'), 'serve'],
    ] as const) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^svckit ${command}: `));
      expect(r.stderr).toContain(`usage: svckit ${command} `);
      expect(r.stderr).toContain(`(svckit ${command} --help for more)`);
      expect(r.stderr).not.toContain('usage: svckit <command>');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('says in one line that another process holds the store file, exit 1, no stack trace', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'svckit-locked-')), 'data.db');
    const holder = await createStore(`sqlite:${path}`);
    try {
      const r = svckit('serve', '--port', '0', '--store', `sqlite:${path}`);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([
        `svckit serve: ${path} is already open in another store (SQLite: database is locked); one process owns a store file`,
      ]);
    } finally {
      await holder.close();
    }
  });
});

describe('svckit serve, refused before it listens', () => {
  // The reference server's check (reference/kept-signing-key.test.ts), as the command line reports it.
  it('on etcd without a key file nor encryption is a usage error (exit 2), before connecting', () => {
    const r = svckit('serve', '--port', '0', '--store', 'etcd://127.0.0.1:1');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('replicas on one etcd must sign service-account tokens with one key');
    expect(r.stderr).not.toContain('    at ');
  });
});
