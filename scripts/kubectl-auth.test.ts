/**
 * `svckit serve --secure` as a user meets it: the command prints the client config file it wrote,
 * the real kubectl uses it as is (HTTPS with the generated CA, the admin client certificate), and
 * `kubectl auth can-i` answers for two users (the admin, and alice from a token file) from the
 * server's real authorizer chain, before and after the admin grants alice a role through RBAC
 * objects. Also the serve command's refusals (exit 2, no stack trace). kubectl must be installed.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from './commands/cli.testing.js';
import { type KubectlResult, runKubectl } from '../reference/kubectl.testing.js';

const run = promisify(execFile);
const ROOT = new URL('../', import.meta.url).pathname;

let dir: string;
let child: ChildProcessWithoutNullStreams;
let url: string;
let adminConfig: string;
let aliceConfig: string;

async function kubectl(config: string, ...args: string[]): Promise<KubectlResult> {
  return runKubectl(['--kubeconfig', config, '--cache-dir', join(dir, 'cache'), ...args]);
}

/** kubectl's answer, yes or no (it prints the authorizer's reason after a no). */
const canI = async (config: string, ...args: string[]) => (await kubectl(config, 'auth', 'can-i', ...args)).stdout.trim().split(' ')[0];

/** Runs `svckit serve` to completion (for the refusals); returns exit code and stderr. */
async function serveFails(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, cliArgs('serve', '--store', 'memory', '--port', '0', ...args), { cwd: ROOT, timeout: 30_000 });
    return { code: 0, stderr: '' };
  } catch (e) {
    const err = e as { code?: number; stderr?: string };
    return { code: err.code ?? -1, stderr: err.stderr ?? '' };
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-kubectl-auth-'));
  writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,1001,devs\n');
  child = spawn(
    process.execPath,
    cliArgs(
      'serve',
      '--port',
      '0',
      '--store',
      'memory',
      '--secure',
      '--cert-dir',
      join(dir, 'pki'),
      '--token-auth-file',
      join(dir, 'tokens.csv'),
    ),
    { cwd: ROOT },
  );
  const lines = createInterface({ input: child.stdout });
  const it = lines[Symbol.asyncIterator]();
  const first = (await it.next()).value as string;
  const second = (await it.next()).value as string;
  url = /^listening on (https:\/\/\S+)$/.exec(first)?.[1] ?? '';
  adminConfig = /^client config \(admin, system:masters\): (\S+)$/.exec(second)?.[1] ?? '';
  // alice: the same cluster entry, her token instead of the admin certificate.
  const config = parse(readFileSync(adminConfig, 'utf8'));
  config.users = [{ name: 'alice', user: { token: 'alice-token' } }];
  config.contexts[0].context.user = 'alice';
  aliceConfig = join(dir, 'alice.conf');
  writeFileSync(aliceConfig, stringify(config));
}, 60_000);

afterAll(() => {
  child?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

describe('svckit serve --secure with kubectl', () => {
  it('prints the client config file, which kubectl uses as is (HTTPS, the admin certificate)', async () => {
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(adminConfig).toBe(join(dir, 'pki', 'admin.conf'));
    const r = await kubectl(adminConfig, 'get', 'clusterroles', '-o', 'name');
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'clusterrole.rbac.authorization.svc.io/cluster-admin',
        'clusterrole.rbac.authorization.svc.io/system:discovery',
      ]),
    );
  });

  it('kubectl auth can-i answers for the admin and for alice, and follows a binding the admin creates', async () => {
    expect(await canI(adminConfig, 'delete', 'nodes')).toBe('yes');
    expect(await canI(aliceConfig, 'create', 'configmaps', '-n', 'default')).toBe('no');
    expect(await canI(aliceConfig, 'create', 'selfsubjectaccessreviews.authorization.svc.io')).toBe('yes');
    const grant = join(dir, 'grant.yaml');
    writeFileSync(
      grant,
      [
        {
          apiVersion: 'rbac.authorization.svc.io/v1',
          kind: 'Role',
          metadata: { name: 'cm-editor', namespace: 'default' },
          rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'list'] }],
        },
        {
          apiVersion: 'rbac.authorization.svc.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'alice-edits', namespace: 'default' },
          roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'Role', name: 'cm-editor' },
          subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.svc.io', name: 'devs' }],
        },
      ]
        .map((d) => stringify(d))
        .join('---\n'),
    );
    const applied = await kubectl(adminConfig, 'apply', '-f', grant);
    expect(applied.stderr).toBe('');
    for (let i = 0; i < 100 && (await canI(aliceConfig, 'create', 'configmaps', '-n', 'default')) !== 'yes'; i++);
    expect(await canI(aliceConfig, 'create', 'configmaps', '-n', 'default')).toBe('yes');
    expect(await canI(aliceConfig, 'delete', 'configmaps', '-n', 'default')).toBe('no');
    expect(await canI(aliceConfig, 'create', 'configmaps', '-n', 'kube-system')).toBe('no');
    const created = await kubectl(aliceConfig, 'create', 'configmap', 'mine', '--from-literal', 'a=1');
    expect(created.code).toBe(0);
    const refused = await kubectl(aliceConfig, 'delete', 'configmap', 'mine');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('User "alice" cannot delete resource "configmaps" in API group "" in the namespace "default"');
  });

  it('svckit auth explain shows the authenticator and the binding', async () => {
    const explained = await run(
      process.execPath,
      cliArgs(
        'auth',
        'explain',
        '--kubeconfig',
        adminConfig,
        '--as',
        'alice',
        '--as-group',
        'devs',
        '--',
        'POST',
        '/api/v1/namespaces/default/configmaps',
      ),
      {
        cwd: ROOT,
      },
    );
    expect(explained.stdout).toContain('allowed: create configmaps in API group "" in namespace "default" by rbac');
    expect(explained.stdout).toContain('RoleBinding "default/alice-edits" of Role "cm-editor"');
  });
});

describe('svckit serve refuses, with exit 2 and no stack trace', () => {
  it('a non-loopback address without authentication', async () => {
    const r = await serveFails('--host', '0.0.0.0');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--host 0.0.0.0 is not a loopback address and no authentication or authorization is configured');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('an invalid AuthenticationConfiguration, naming the file, line and field', async () => {
    const file = join(dir, 'authn.yaml');
    writeFileSync(
      file,
      'apiVersion: apiserver.svc.io/v1alpha1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: "https://issuer.example", audiences: [a]}\n  claimMappings:\n    username: {expression: "claims.sub +"}\n',
    );
    const r = await serveFails('--authentication-config', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:6:`);
    expect(r.stderr).toContain('jwt[0].claimMappings.username.expression');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unknown authorization mode', async () => {
    const r = await serveFails('--authorization-mode', 'RBAC,ABAC');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--authorization-mode: unknown mode "ABAC"');
  });
});
