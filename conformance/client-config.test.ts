import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClientConfig } from './client-config.js';

function configFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-config-'));
  writeFileSync(join(dir, 'ca.pem'), 'CA PEM');
  writeFileSync(join(dir, 'token'), 'file-token\n');
  const file = join(dir, 'config');
  writeFileSync(file, text);
  return file;
}

const config = `
apiVersion: v1
kind: Config
current-context: dev
clusters:
  - name: dev-cluster
    cluster: { server: https://dev.example:6443, certificate-authority: ca.pem, tls-server-name: api.dev }
  - name: prod-cluster
    cluster: { server: https://prod.example:6443, insecure-skip-tls-verify: true }
users:
  - name: dev-user
    user: { token: dev-token }
  - name: prod-user
    user: { client-certificate-data: ${Buffer.from('CERT').toString('base64')}, client-key-data: ${Buffer.from('KEY').toString('base64')} }
  - name: file-user
    user: { tokenFile: token }
  - name: exec-user
    user: { exec: { command: get-token } }
contexts:
  - { name: dev, context: { cluster: dev-cluster, user: dev-user } }
  - { name: prod, context: { cluster: prod-cluster, user: prod-user } }
  - { name: file, context: { cluster: dev-cluster, user: file-user } }
  - { name: exec, context: { cluster: dev-cluster, user: exec-user } }
  - { name: broken, context: { cluster: nowhere, user: dev-user } }
`;

describe('readClientConfig', () => {
  const file = configFile(config);

  it('reads the current context: server, CA file (relative to the config) and token', () => {
    expect(readClientConfig(file)).toEqual({
      server: 'https://dev.example:6443',
      ca: Buffer.from('CA PEM'),
      serverName: 'api.dev',
      token: 'dev-token',
    });
  });

  it('reads a chosen context with inline client certificate data', () => {
    expect(readClientConfig(file, 'prod')).toEqual({
      server: 'https://prod.example:6443',
      insecureSkipTlsVerify: true,
      cert: Buffer.from('CERT'),
      key: Buffer.from('KEY'),
    });
    expect(readClientConfig(file, 'file').token).toBe('file-token');
  });

  it('says what is wrong and where', () => {
    expect(() => readClientConfig(file, 'exec')).toThrow(/user "exec-user" uses an exec plugin/);
    expect(() => readClientConfig(file, 'broken')).toThrow(/no cluster named "nowhere" \(clusters: dev-cluster, prod-cluster\)/);
    expect(() => readClientConfig(file, 'missing')).toThrow(/no context named "missing"/);
    expect(() => readClientConfig(configFile('[1, 2'))).toThrow(/config:/);
  });
});
