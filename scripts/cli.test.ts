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
      [svckit('codegen', '--schemas'), 'codegen'],
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

  it.each([
    [['codegen', '--shema', 'schemas'], 'codegen', '--shema; did you mean --schemas?'],
    [['serve', '--prot', '0'], 'serve', '--prot; did you mean --port?'],
    [['serve', '--write-kubeconfg=x'], 'serve', '--write-kubeconfg; did you mean --write-kubeconfig?'],
    [['validate', '--strcit', 'a.yaml'], 'validate', '--strcit; did you mean --strict?'],
    [['encryption', 'rewrite', '--stor', 'memory'], 'encryption', '--stor; did you mean --store?'],
    [['auth', 'explain', '--contxt', 'x'], 'auth', '--contxt; did you mean --context?'],
    [['kms-plugin', '--sockt', 'x'], 'kms-plugin', '--sockt; did you mean --socket?'],
    [['conformance', '--focs', 'x'], 'conformance', '--focs; did you mean --focus?'],
    [['serve', '--frobnicate'], 'serve', '--frobnicate'],
    [['codegen', '-x'], 'codegen', '-x'],
  ])('answers %j with one line naming the option it likely meant, exit 2', (args, command, said) => {
    const r = svckit(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svckit ${command}: unknown option ${said} (svckit ${command} --help lists the options)\n`);
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
