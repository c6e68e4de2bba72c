/**
 * Reaching a cluster as the real system's clients do: the reference server over HTTPS with
 * `--group-suffix k8s.io`, token and client-certificate authentication and RBAC, found through
 * `$KUBECONFIG`, `~/.kube/config` or the in-cluster variables and files, with real exec plugin
 * processes. Nothing is mocked.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client.js';
import type { Role } from '../../generated/rbac.authorization.svc.io/v1/index.js';
import { prepareSecureServing, type RunningServer, type SecureServing, startReferenceServer } from '../../reference/index.js';
import { parseTokenFile } from '../auth/index.js';
import { type ClientConfig, bearerToken } from '../client/index.js';
import { requestOf, runsOf, writePlugin } from './exec-plugin.testing.js';
import { KUBERNETES_EXEC_INFO_ENV, clientConfigPaths, loadClientConfig, nodeConnector } from './index.js';

/** admin may do anything; nobody is authenticated but has no permission. */
const TOKENS = 'admin-token,admin,1000,system:masters\nnobody-token,nobody,1001\n';

let dir: string;
let secure: SecureServing;
let server: RunningServer;
const opened: ClientConfig[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-real-cluster-'));
  secure = prepareSecureServing(join(dir, 'pki'), '127.0.0.1');
  server = await startReferenceServer({
    store: 'memory',
    port: 0,
    groupSuffix: 'k8s.io',
    access: { tls: secure.tls, tokens: parseTokenFile(TOKENS), authorizationModes: ['RBAC'], anonymous: false },
  });
});

afterAll(async () => {
  for (const config of opened) await createClient(config).transport.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A client of the served names, closed after the file. */
function clientOf(config: ClientConfig) {
  const withSuffix = { ...config, groupSuffix: 'k8s.io' };
  opened.push(withSuffix);
  return createClient(withSuffix);
}

function write(path: string, doc: unknown): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof doc === 'string' ? doc : stringify(doc));
  return path;
}

const cluster = (extra: Record<string, unknown> = {}) => ({ name: 'real', cluster: { server: server.url, ...extra } });

describe('the files loadClientConfig reads', () => {
  it('$SVCCONFIG, else $KUBECONFIG, else ~/.svc/config, else ~/.kube/config', async () => {
    const home = join(dir, 'home-order');
    const svcHome = write(join(home, '.svc', 'config'), {});
    const kubeHome = write(join(home, '.kube', 'config'), {});
    expect(await clientConfigPaths({ SVCCONFIG: '/a:/b:/a', KUBECONFIG: '/c' }, home)).toEqual(['/a', '/b']);
    expect(await clientConfigPaths({ KUBECONFIG: '/c::/d' }, home)).toEqual(['/c', '/d']);
    expect(await clientConfigPaths({}, home)).toEqual([svcHome]);
    rmSync(svcHome);
    expect(await clientConfigPaths({}, home)).toEqual([kubeHome]);
  });

  it('merges the files $KUBECONFIG lists as client-go does; CA and client certificate files are relative to their file', async () => {
    // The first file names the context and its namespace; the second, elsewhere, the cluster and the user.
    const first = write(join(dir, 'merge', 'first.yaml'), {
      'current-context': 'team',
      contexts: [{ name: 'team', context: { cluster: 'real', user: 'cert', namespace: 'team-a' } }],
    });
    const second = write(join(dir, 'second.yaml'), {
      'current-context': 'ignored',
      clusters: [cluster({ 'certificate-authority': 'pki/ca.crt' })],
      users: [{ name: 'cert', user: { 'client-certificate': 'pki/admin.crt', 'client-key': 'pki/admin.key' } }],
      contexts: [{ name: 'team', context: { cluster: 'elsewhere' } }],
    });
    // A home file that must not be read while $KUBECONFIG is set.
    const home = join(dir, 'home-merge');
    write(join(home, '.kube', 'config'), { 'current-context': 'x', contexts: [{ name: 'x', context: { cluster: 'none' } }] });

    const config = await loadClientConfig({ env: { KUBECONFIG: `${first}:${join(dir, 'absent.yaml')}:${second}` }, home });
    expect(config).toMatchObject({ server: server.url, namespace: 'team-a' });
    const client = clientOf(config);
    await client.core.v1.namespaces.create({ metadata: { name: 'team-a' } });
    // The new namespace holds only what the root-CA publisher keeps there.
    expect((await client.core.v1.configMaps().list()).items.map((c) => c.metadata?.name)).toEqual(['kube-root-ca.crt']);
  });
});

describe('exec plugins of client.authentication.k8s.io', () => {
  it('v1 from ~/.kube/config: KUBERNETES_EXEC_INFO with the cluster, the token cached until it expires, the plugin re-run on a 401', async () => {
    const home = join(dir, 'home-exec');
    const kube = join(home, '.kube');
    mkdirSync(kube, { recursive: true });
    // The first run answers a token the server does not know; later runs the admin's.
    const plugin = writePlugin(
      kube,
      'get-token.cjs',
      `process.stdout.write(JSON.stringify({ apiVersion: request.apiVersion, kind: 'ExecCredential', status: { token: runs === 1 ? 'unknown-token' : 'admin-token', expirationTimestamp: new Date(Date.now() + 3600e3).toISOString() } }));`,
      KUBERNETES_EXEC_INFO_ENV,
    );
    write(join(kube, 'config'), {
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'exec',
      clusters: [
        cluster({
          'certificate-authority-data': Buffer.from(secure.ca).toString('base64'),
          extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { audience: 'real' } }],
        }),
      ],
      users: [
        {
          name: 'sso',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: './get-token.cjs',
              provideClusterInfo: true,
              interactiveMode: 'Never',
            },
          },
        },
      ],
      contexts: [{ name: 'exec', context: { cluster: 'real', user: 'sso' } }],
    });

    const client = clientOf(await loadClientConfig({ env: {}, home }));
    await client.core.v1.namespaces.list(); // 401 with the first token, the plugin runs again
    await client.core.v1.namespaces.list();
    expect(runsOf(plugin)).toBe(2);
    expect(requestOf(plugin)).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: {
          server: server.url,
          'certificate-authority-data': Buffer.from(secure.ca).toString('base64'),
          config: { audience: 'real' },
        },
      },
    });
  });

  it('v1beta1 with the kit’s execCredentialPlugin as the plugin, args and env passed', async () => {
    const script = join(dir, 'kit-plugin.mts');
    const kit = new URL('../webhook/index.ts', import.meta.url).pathname;
    writeFileSync(
      script,
      `import { execCredentialPlugin } from ${JSON.stringify(kit)};\nawait execCredentialPlugin((req) => ({ token: process.env.PLUGIN_TOKEN + (req.apiVersion.endsWith('v1beta1') ? '' : '-wrong-version') }));\n`,
    );
    const file = join(dir, 'kit.yaml');
    write(file, {
      'current-context': 'kit',
      clusters: [cluster({ 'certificate-authority': 'pki/ca.crt' })],
      users: [
        {
          name: 'kit',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1beta1',
              command: process.execPath,
              args: ['--import', 'tsx', script],
              env: [{ name: 'PLUGIN_TOKEN', value: 'admin-token' }],
            },
          },
        },
      ],
      contexts: [{ name: 'kit', context: { cluster: 'real', user: 'kit' } }],
    });
    const client = clientOf(await loadClientConfig({ env: { KUBECONFIG: file }, stdinIsTerminal: false }));
    expect((await client.core.v1.namespaces.get('default')).metadata?.name).toBe('default');
  });
});

describe('in-cluster, the real system’s variables and files', () => {
  it('is used when no client config file exists; the token file is re-read as it rotates; POD_NAMESPACE wins', async () => {
    const sa = join(dir, 'serviceaccount');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'nobody-token');
    writeFileSync(join(sa, 'ca.crt'), secure.ca);
    writeFileSync(join(sa, 'namespace'), 'workloads\n');
    const { port } = new URL(server.url);
    const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port };
    const config = await loadClientConfig({ env, home: join(dir, 'home-none'), serviceAccountDir: sa, tokenReloadMs: 0 });
    expect(config).toMatchObject({ server: server.url, namespace: 'workloads' });
    const client = clientOf(config);
    await expect(client.core.v1.namespaces.list()).rejects.toMatchObject({ code: 403 });
    writeFileSync(join(sa, 'token'), 'admin-token'); // rotated
    expect((await client.core.v1.namespaces.list()).kind).toBe('NamespaceList');

    const named = await loadClientConfig({
      env: { ...env, POD_NAMESPACE: 'from-downward-api' },
      home: join(dir, 'home-none'),
      serviceAccountDir: sa,
    });
    expect(named.namespace).toBe('from-downward-api');
    await expect(loadClientConfig({ env: {}, home: join(dir, 'home-none'), serviceAccountDir: sa })).rejects.toThrow(
      /^no client config found: looked at .*home-none\/\.svc\/config, .*home-none\/\.kube\/config and the in-cluster configuration; set SVCCONFIG or KUBECONFIG$/,
    );
  });
});

describe('groupSuffix: the built-in client under the served group names', () => {
  const adminConfig = (): ClientConfig => ({
    server: server.url,
    namespace: 'default',
    tls: { ca: secure.ca },
    credentials: bearerToken('admin-token'),
    connector: nodeConnector,
  });

  it('reaches /apis/rbac.authorization.k8s.io with k8s.io apiVersions and reads the objects back under the typed names', async () => {
    const client = clientOf(adminConfig());
    const roles = client.rbac.v1.roles('default');
    const role: Role = {
      apiVersion: 'rbac.authorization.svc.io/v1',
      kind: 'Role',
      metadata: { name: 'reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    };
    const created = await roles.create(role);
    expect(created.apiVersion).toBe('rbac.authorization.svc.io/v1');
    const applied = await roles.apply(
      {
        apiVersion: 'rbac.authorization.svc.io/v1',
        kind: 'Role',
        metadata: { name: 'writer' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['create'] }],
      },
      { fieldManager: 'test' },
    );
    expect(applied.apiVersion).toBe('rbac.authorization.svc.io/v1');
    const list = await roles.list();
    expect(list.apiVersion).toBe('rbac.authorization.svc.io/v1');
    expect(list.items.map((r) => [r.metadata?.name, r.apiVersion])).toEqual([
      ['reader', 'rbac.authorization.svc.io/v1'],
      ['writer', 'rbac.authorization.svc.io/v1'],
    ]);
    const updated = await roles.update({ ...created, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
    expect(updated.rules?.[0]?.verbs).toEqual(['get', 'list']);
    for await (const event of roles.watch()) {
      expect(event.object.apiVersion).toBe('rbac.authorization.svc.io/v1');
      break;
    }

    // On the wire, the served names.
    const { Agent, request } = await import('undici');
    const agent = new Agent({ connect: { ca: secure.ca } });
    const raw = await request(`${server.url}/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/reader`, {
      dispatcher: agent,
      headers: { authorization: 'Bearer admin-token' },
    });
    expect(((await raw.body.json()) as { apiVersion: string }).apiVersion).toBe('rbac.authorization.k8s.io/v1');
    await agent.close();

    // apps has no suffix: the same path either way, and Deployments read back as apps/v1.
    await client.apps.v1.deployments('default').create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });
    expect((await client.apps.v1.deployments('default').list()).items.map((d) => [d.metadata?.name, d.apiVersion])).toEqual([
      ['web', 'apps/v1'],
    ]);
  });

  it('without it, the spec’s group is not found on such a server; a malformed suffix is refused', async () => {
    const config = adminConfig();
    opened.push(config);
    await expect(createClient(config).rbac.v1.roles('default').list()).rejects.toMatchObject({ code: 404 });
    expect(() => createClient({ ...config, groupSuffix: 'k8s' })).toThrow('groupSuffix: expected a DNS domain of at least two labels');
  });
});
