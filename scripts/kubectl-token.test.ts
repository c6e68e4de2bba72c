/**
 * `kubectl create token` against `svckit serve --secure --group-suffix k8s.io` (the real system's
 * group names, which kubectl's typed TokenRequest carries): the admin (the client config the
 * command writes) creates a service account and a token for it; kubectl then uses that token
 * (`--token`, no certificate) and is allowed or forbidden as RBAC says for
 * `system:serviceaccount:<ns>:<name>`; a too-short `--duration` is refused with upstream's words;
 * deleting the account makes kubectl unauthorized. Against a server with the spec's group names,
 * kubectl's `authentication.k8s.io/v1` TokenRequest is answered in that apiVersion, so the command
 * works there too. kubectl must be installed.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { decodeJwt } from 'jose';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from './commands/cli.testing.js';
import { type KubectlResult, runKubectl } from '../reference/kubectl.testing.js';

const ROOT = new URL('../', import.meta.url).pathname;

let dir: string;
let child: ChildProcessWithoutNullStreams;
let adminConfig: string;
/** The cluster of the admin's config with a user that has no credentials: `--token` supplies one. */
let tokenConfig: string;

const kubectl = (config: string, ...args: string[]): Promise<KubectlResult> =>
  runKubectl(['--kubeconfig', config, '--cache-dir', join(dir, 'cache'), ...args]);
const admin = (...args: string[]) => kubectl(adminConfig, ...args);
const withToken = (token: string, ...args: string[]) => kubectl(tokenConfig, '--token', token, ...args);

/** `svckit serve --secure` (and `args`) as a process: its admin client config, and a config for `--token`. */
async function serveSecure(name: string, ...args: string[]) {
  const child = spawn(
    process.execPath,
    cliArgs('serve', '--port', '0', '--store', 'memory', '--secure', '--cert-dir', join(dir, name), ...args),
    { cwd: ROOT },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = (await lines.next()).value as string;
  const second = (await lines.next()).value as string;
  expect(first).toMatch(/^listening on https:\/\//);
  const adminConfig = /^client config \(admin, system:masters\): (\S+)$/.exec(second)?.[1] ?? '';
  const config = parse(readFileSync(adminConfig, 'utf8'));
  config.users = [{ name: 'bearer', user: {} }];
  config.contexts[0].context.user = 'bearer';
  const tokenConfig = join(dir, `${name}-token.conf`);
  writeFileSync(tokenConfig, stringify(config));
  return { child, adminConfig, tokenConfig };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-kubectl-token-'));
  const secure = await serveSecure('real-names', '--group-suffix', 'k8s.io');
  child = secure.child;
  adminConfig = secure.adminConfig;
  tokenConfig = secure.tokenConfig;
  expect((await admin('create', 'namespace', 'apps')).code).toBe(0);
  expect((await admin('create', 'serviceaccount', 'robot', '-n', 'apps')).code).toBe(0);
}, 60_000);

afterAll(() => {
  child?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

describe('kubectl create token against the spec group names (no --group-suffix)', () => {
  it('is answered in the apiVersion kubectl sent, and the token authenticates as the service account', async () => {
    const secure = await serveSecure('spec-names');
    try {
      expect((await kubectl(secure.adminConfig, 'create', 'serviceaccount', 'robot')).code).toBe(0);
      const created = await kubectl(secure.adminConfig, 'create', 'token', 'robot');
      expect(created.stderr).toBe('');
      const token = created.stdout.trim();
      expect(decodeJwt(token).sub).toBe('system:serviceaccount:default:robot');
      const refused = await kubectl(secure.tokenConfig, '--token', token, 'get', 'configmaps');
      expect(refused.stderr).toContain('User "system:serviceaccount:default:robot" cannot list resource "configmaps"');
    } finally {
      secure.child.kill('SIGTERM');
    }
  });
});

describe('kubectl create token (--group-suffix k8s.io)', () => {
  it('prints a token for the service account, which kubectl --token then uses under RBAC', async () => {
    const created = await admin(
      'create',
      'token',
      'robot',
      '-n',
      'apps',
      '--duration',
      '2h',
      '--audience',
      'https://kubernetes.default.svc.cluster.local',
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    const claims = decodeJwt(token);
    expect(claims.sub).toBe('system:serviceaccount:apps:robot');
    expect(claims.exp! - claims.iat!).toBe(7200);

    const refused = await withToken(token, 'get', 'pods', '-n', 'apps');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'User "system:serviceaccount:apps:robot" cannot list resource "pods" in API group "" in the namespace "apps"',
    );
    expect((await withToken(token, 'auth', 'can-i', 'list', 'pods', '-n', 'apps')).stdout.trim()).toMatch(/^no/);

    const role = await admin('create', 'role', 'pod-reader', '-n', 'apps', '--verb', 'get,list', '--resource', 'pods');
    expect(role.stderr).toBe('');
    const binding = await admin(
      'create',
      'rolebinding',
      'robot-reads',
      '-n',
      'apps',
      '--role',
      'pod-reader',
      '--serviceaccount',
      'apps:robot',
    );
    expect(binding.stderr).toBe('');
    const allowed = await withToken(token, 'get', 'pods', '-n', 'apps');
    expect(allowed.stderr).toBe('No resources found in apps namespace.\n');
    expect(allowed.code).toBe(0);
    expect((await withToken(token, 'auth', 'can-i', 'list', 'pods', '-n', 'apps')).stdout.trim()).toBe('yes');
    expect((await withToken(token, 'auth', 'can-i', 'delete', 'pods', '-n', 'apps')).stdout.trim()).toMatch(/^no/);
    const other = await withToken(token, 'get', 'secrets', '-n', 'apps');
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain('cannot list resource "secrets"');
  });

  it('refuses a duration under 10 minutes with the real system words', async () => {
    const r = await admin('create', 'token', 'robot', '-n', 'apps', '--duration', '1m');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
  });

  it('answers NotFound for a service account that does not exist', async () => {
    const r = await admin('create', 'token', 'ghost', '-n', 'apps');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('serviceaccounts "ghost" not found');
  });

  it('binds a token to a pod with --bound-object-kind, and the token dies with the pod', async () => {
    expect((await admin('create', 'serviceaccount', 'worker', '-n', 'apps')).code).toBe(0);
    const pod = join(dir, 'pod.yaml');
    writeFileSync(
      pod,
      stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'job', namespace: 'apps' },
        spec: { serviceAccountName: 'worker', containers: [{ name: 'c', image: 'busybox' }] },
      }),
    );
    expect((await admin('apply', '-f', pod)).code).toBe(0);
    const created = await admin('create', 'token', 'worker', '-n', 'apps', '--bound-object-kind', 'Pod', '--bound-object-name', 'job');
    expect(created.stderr).toBe('');
    const token = created.stdout.trim();
    expect((decodeJwt(token) as { 'kubernetes.io': { pod?: { name: string } } })['kubernetes.io'].pod?.name).toBe('job');
    expect((await withToken(token, 'auth', 'can-i', 'list', 'pods', '-n', 'apps')).stdout.trim()).toMatch(/^no/);
    expect((await admin('delete', 'pod', 'job', '-n', 'apps', '--grace-period', '0', '--force')).code).toBe(0);
    const gone = await withToken(token, 'auth', 'can-i', 'list', 'pods', '-n', 'apps');
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('Unauthorized');
  });

  it('makes kubectl unauthorized once the service account is deleted', async () => {
    const token = (await admin('create', 'token', 'robot', '-n', 'apps')).stdout.trim();
    expect((await withToken(token, 'get', 'pods', '-n', 'apps')).code).toBe(0);
    expect((await admin('delete', 'serviceaccount', 'robot', '-n', 'apps')).code).toBe(0);
    const r = await withToken(token, 'get', 'pods', '-n', 'apps');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Unauthorized');
  });
});
