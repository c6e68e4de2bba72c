/**
 * kubectl's everyday commands against the reference server (issue 13), with kubectl's default
 * client-side validation (`--validate=strict`): apply twice (a strategic merge for a built-in kind,
 * a JSON merge for a custom resource, both computed from OpenAPI v3), create, replace, get -o yaml,
 * explain, delete, server-side apply and table output. kubectl must be installed: without it
 * these tests fail, naming it (set KUBECTL to use another binary).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBECTL, runKubectl } from './kubectl.testing.js';
import { type TestServer, startTestServer } from './testing/index.js';

const run = promisify(execFile);

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

let server: TestServer;
let dir: string;
/** Set when kubectl cannot run: every test then fails with it (never skips). */
let missing: Error | undefined;

/** Runs kubectl against the test server; never throws on a non-zero exit (the test reads `code`). */
async function kubectl(...args: string[]): Promise<Result> {
  if (missing) throw missing;
  return runKubectl(['--kubeconfig', server.configFile, '--cache-dir', join(dir, 'cache'), ...args]);
}

/** Writes a manifest into the test's directory and returns its path. */
function manifest(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/**
 * Whether kubectl's request log (-v=6) shows `method` on a URL ending in `path` answered `status`,
 * in the plain form of kubectl up to 1.32 and the structured form (`verb="POST" url="…"`) after it.
 */
function logged(stderr: string, method: string, path: string, status: number): boolean {
  const p = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`${method}"? (?:url=")?\\S*${p}"? (?:status=")?${status}`).test(stderr);
}

async function getJson(...args: string[]): Promise<any> {
  const r = await kubectl('get', ...args, '-o', 'json');
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-kubectl-'));
  server = await startTestServer();
  try {
    await run(KUBECTL, ['version', '--client'], { timeout: 30_000 });
  } catch (e) {
    missing = new Error(`kubectl is not installed or does not run (${KUBECTL}): ${(e as Error).message}`);
    return;
  }
  // The namespace the kubeconfig names exists from the start, as in a cluster: nothing to create.
  const r = await kubectl('get', 'namespace', 'default', '--no-headers');
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^default\s+Active\s+\d+s\n$/);
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('kubectl against the reference server', () => {
  const configMap = (data: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels:\n    app: web\ndata:\n${data}`;

  it('applies a ConfigMap twice: the second is a strategic merge patch from the last-applied annotation', async () => {
    const file = manifest('cm.yaml', configMap('  a: "1"\n  c: drop-me\n'));
    const first = await kubectl('apply', '-f', file, '-v=6');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('configmap/settings created\n');
    // Client-side validation was settled by OpenAPI v3 (the PATCH operation declares
    // fieldValidation), so kubectl never falls back to /openapi/v2.
    expect(first.stderr).toContain('/openapi/v3/api/v1');
    expect(first.stderr).not.toContain('/openapi/v2');
    expect(logged(first.stderr, 'POST', '/configmaps?fieldManager=kubectl-client-side-apply&fieldValidation=Strict', 201)).toBe(true);

    manifest('cm.yaml', configMap('  a: "2"\n  b: added\n'));
    const second = await kubectl('apply', '-f', file, '-v=8');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('configmap/settings configured\n');
    expect(second.stderr).toContain('Content-Type: application/strategic-merge-patch+json');
    expect(second.stderr).not.toMatch(/^warning:/m);
    const cm = await getJson('configmap', 'settings');
    // `c` was in the last applied configuration and is gone from the file: the patch deletes it.
    expect(cm.data).toEqual({ a: '2', b: 'added' });
    expect(JSON.parse(cm.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data).toEqual({ a: '2', b: 'added' });

    const third = await kubectl('apply', '-f', file);
    expect(third).toMatchObject({ code: 0, stdout: 'configmap/settings unchanged\n' });
  });

  it('applies a custom resource twice with a JSON merge patch (no strategic merge for custom resources)', async () => {
    const crontab = (replicas: number) =>
      `apiVersion: stable.example.svc.io/v1\nkind: CronTab\nmetadata:\n  name: nightly\nspec:\n  cronSpec: "0 3 * * *"\n  image: backup:1\n  replicas: ${replicas}\n`;
    const file = manifest('ct.yaml', crontab(2));
    expect(await kubectl('apply', '-f', file)).toMatchObject({ code: 0, stdout: 'crontab.stable.example.svc.io/nightly created\n' });
    manifest('ct.yaml', crontab(3));
    const second = await kubectl('apply', '-f', file, '-v=8');
    expect(second.code, second.stderr).toBe(0);
    // The PATCH operation lists no strategic merge patch type, so kubectl sends a JSON merge patch
    // (it asks /openapi/v2 too, as it does of any server for a kind v3 offers no strategic merge for).
    expect(second.stderr).toContain('Content-Type: application/merge-patch+json');
    expect(second.stderr).not.toMatch(/^warning:/m);
    expect((await getJson('crontab', 'nightly')).spec).toMatchObject({ cronSpec: '0 3 * * *', image: 'backup:1', replicas: 3 });
  });

  it('prints tables with the printer columns of the kind (Table of meta.k8s.io)', async () => {
    const r = await kubectl('get', 'crontabs');
    expect(r.code, r.stderr).toBe(0);
    const [header, row] = r.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'SPEC', 'REPLICAS', 'AGE']);
    expect(row).toMatch(/^nightly\s+0 3 \* \* \*\s+3\s+\d+s$/);
    const ns = await kubectl('get', 'namespaces', '--no-headers');
    expect(ns.stdout).toMatch(
      /^default\s+Active\s+\d+s\nkube-node-lease\s+Active\s+\d+s\nkube-public\s+Active\s+\d+s\nkube-system\s+Active\s+\d+s\n$/,
    );
    const all = await kubectl('get', 'ct', '-o', 'wide', '-A');
    expect(all.stdout.split('\n')[0]!.split(/\s{2,}/)).toEqual(['NAMESPACE', 'NAME', 'SPEC', 'REPLICAS', 'AGE']);
  });

  it('diffs a changed file on the server (a dry-run patch) and watches a table', async () => {
    const file = manifest(
      'ct.yaml',
      (await kubectl('get', 'crontab', 'nightly', '-o', 'yaml')).stdout.replace('replicas: 3', 'replicas: 9'),
    );
    const diff = await kubectl('diff', '-f', file);
    expect(diff.code, diff.stderr).toBe(1);
    expect(diff.stdout).toMatch(/^-\s+replicas: 3$/m);
    expect(diff.stdout).toMatch(/^\+\s+replicas: 9$/m);
    expect((await getJson('crontab', 'nightly')).spec.replicas).toBe(3);

    const watch = await kubectl('get', 'crontabs', '--watch', '--request-timeout=3s');
    expect(watch.code, watch.stderr).toBe(0);
    expect(watch.stdout).toMatch(/^NAME\s+SPEC\s+REPLICAS\s+AGE\nnightly\s+0 3 \* \* \*\s+3\s+\d+s\n$/);
  });

  it('rejects an unknown field with the default validation (strict, on the server)', async () => {
    const file = manifest('bad.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  k: v\nbogus: 1\n');
    for (const verb of ['create', 'apply']) {
      const r = await kubectl(verb, '-f', file);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('strict decoding error: unknown field "bogus"');
    }
    expect((await kubectl('get', 'configmap', 'bad')).stderr).toContain('NotFound');
  });

  it('creates, replaces, reads as YAML and deletes from a file', async () => {
    const service = (port: number) =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: ${port}\n    targetPort: 8080\n`;
    const file = manifest('svc.yaml', service(80));
    expect(await kubectl('create', '-f', file)).toMatchObject({ code: 0, stdout: 'service/web created\n' });
    const again = await kubectl('create', '-f', file);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('AlreadyExists');

    manifest('svc.yaml', service(81));
    expect(await kubectl('replace', '-f', file)).toMatchObject({ code: 0, stdout: 'service/web replaced\n' });
    const yaml = await kubectl('get', '-f', file, '-o', 'yaml');
    expect(yaml.code, yaml.stderr).toBe(0);
    const svc = parse(yaml.stdout);
    expect(svc).toMatchObject({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' } });
    expect(svc.spec.ports).toEqual([{ port: 81, protocol: 'TCP', targetPort: 8080 }]);

    expect(await kubectl('delete', '-f', file)).toMatchObject({ code: 0, stdout: 'service "web" deleted\n' });
    const gone = await kubectl('get', '-f', file);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('NotFound');
  });

  it('explains a built-in kind and a field path from OpenAPI v3', async () => {
    const kind = await kubectl('explain', 'configmaps');
    expect(kind.code, kind.stderr).toBe(0);
    expect(kind.stdout).toMatch(/^KIND:\s+ConfigMap\nVERSION:\s+v1\n/);
    expect(kind.stdout).toMatch(/\n {2}data\t<map\[string\]string>\n/);
    const field = await kubectl('explain', 'service.spec.ports.port');
    expect(field.code, field.stderr).toBe(0);
    expect(field.stdout).toContain('KIND:       Service');
    expect(field.stdout).toMatch(/FIELD: port <integer>/);
    const custom = await kubectl('explain', 'crontabs.spec');
    expect(custom.code, custom.stderr).toBe(0);
    expect(custom.stdout).toMatch(/cronSpec\t<string> -required-/);
  });

  it('applies on the server (--server-side): kubectl owns the fields it sent', async () => {
    const file = manifest('ssa.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owned\ndata:\n  k: v\n');
    const r = await kubectl('apply', '--server-side', '-f', file, '-v=6');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('configmap/owned serverside-applied\n');
    expect(logged(r.stderr, 'PATCH', '/configmaps/owned?fieldManager=kubectl&fieldValidation=Strict&force=false', 201)).toBe(true);
    const cm = await getJson('configmap', 'owned', '--show-managed-fields');
    expect(cm.data).toEqual({ k: 'v' });
    expect(cm.metadata.managedFields).toMatchObject([{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:k': {} } } }]);

    manifest('ssa.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owned\ndata:\n  k: w\n  l: x\n');
    expect(await kubectl('apply', '--server-side', '-f', file)).toMatchObject({ code: 0 });
    expect((await getJson('configmap', 'owned')).data).toEqual({ k: 'w', l: 'x' });
  });
  it('creates and scales a Deployment, and lists workloads with `get all` through the `all` category (issue 17)', async () => {
    const created = await kubectl('create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=2');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe('deployment.apps/web created\n');
    const d = await getJson('deployment', 'web');
    expect(d.spec).toMatchObject({
      replicas: 2,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate' },
    });
    const scaled = await kubectl('scale', 'deployment', 'web', '--replicas=4', '-v=6');
    expect(scaled.code, scaled.stderr).toBe(0);
    expect(scaled.stdout).toBe('deployment.apps/web scaled\n');
    expect(logged(scaled.stderr, 'PATCH', '/deployments/web/scale', 200)).toBe(true);
    expect((await getJson('deployment', 'web')).spec.replicas).toBe(4);
    const all = await kubectl('get', 'all', '-v=6');
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\ndeployment\.apps\/web\s/m);
    for (const plural of ['pods', 'replicationcontrollers', 'services', 'daemonsets', 'deployments', 'replicasets', 'statefulsets']) {
      expect(logged(all.stderr, 'GET', `/${plural}?limit=500`, 200), plural).toBe(true);
    }
    const deleted = await kubectl('delete', 'deployment', 'web');
    expect(deleted.code, deleted.stderr).toBe(0);
  });
});
