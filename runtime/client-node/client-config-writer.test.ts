import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadClientConfig, parseClientConfigFile, writeClientConfigFile } from './index.js';

describe('writeClientConfigFile', () => {
  it('writes a file loadClientConfig reads back: the server, the CA, a token and the namespace', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svckit-config-writer-')), 'config');
    writeClientConfigFile(file, { server: 'https://127.0.0.1:6443', ca: 'PEM', user: { name: 'alice', token: 't0k' }, namespace: 'team' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const config = await loadClientConfig({ paths: [file] });
    expect(config.server).toBe('https://127.0.0.1:6443');
    expect(config.namespace).toBe('team');
    expect(config.tls?.ca).toBe('PEM');
    expect(await config.credentials?.credentials()).toMatchObject({ token: 't0k' });
  });

  it('narrows an existing file to 0600 before writing into it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svckit-config-writer-')), 'config');
    writeFileSync(file, 'older');
    chmodSync(file, 0o644);
    const said: string[] = [];
    writeClientConfigFile(file, { server: 'http://127.0.0.1:8080' }, (line) => said.push(line));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(said).toEqual([`${file} was readable by other users (mode 0644); its mode is now 0600`]);
  });

  it('says insecure-skip-tls-verify for plain HTTP only; HTTPS without a CA trusts the system roots', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-config-writer-'));
    const clusterOf = (server: string) => {
      writeClientConfigFile(join(dir, 'c'), { server });
      return parseClientConfigFile(readFileSync(join(dir, 'c'), 'utf8')).clusters?.[0]?.cluster;
    };
    expect(clusterOf('http://127.0.0.1:8080')).toEqual({ server: 'http://127.0.0.1:8080', 'insecure-skip-tls-verify': true });
    expect(clusterOf('https://api.example.com')).toEqual({ server: 'https://api.example.com' });
  });
});
