import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client.js';
import { bearerToken } from '../client/index.js';
import { type Front, type RunningServer, front, referenceServer, replyStatus } from '../client/client.testing.js';
import { requestOf, runsOf, writePlugin as writePluginIn } from './exec-plugin.testing.js';
import {
  CLIENT_CONFIG_ENV,
  clientConfigFromFile,
  defaultClientConfig,
  execCredential,
  inClusterConfig,
  loadClientConfig,
  parseClientConfigFile,
  tokenFile,
} from './index.js';

let server: RunningServer;
let gate: Front;
/** The one token the authenticating front accepts; tests rotate it. */
let accepted = 'token-1';
let dir: string;

beforeAll(async () => {
  server = await referenceServer();
  gate = await front(server.url, (req, res) =>
    req.headers.authorization === `Bearer ${accepted}` ? false : replyStatus(res, 401, 'Unauthorized', 'Unauthorized'),
  );
  dir = mkdtempSync(join(tmpdir(), 'svckit-credentials-'));
});

afterAll(async () => {
  await gate.close();
  await server.close();
});

describe('bearer token', () => {
  it('is sent as Authorization: Bearer, and a wrong one is a 401 StatusError', async () => {
    accepted = 'token-1';
    await createClient({ server: gate.url, credentials: bearerToken('token-1') }).core.v1.namespaces.list();
    await expect(createClient({ server: gate.url, credentials: bearerToken('wrong') }).core.v1.namespaces.list()).rejects.toMatchObject({
      code: 401,
      reason: 'Unauthorized',
    });
  });

  it('never shows the token when a credential source is printed', () => {
    const source = bearerToken('super-secret-token');
    expect(inspect(source, { showHidden: true, depth: 5 })).not.toContain('super-secret-token');
    expect(JSON.stringify(source)).not.toContain('super-secret-token');
  });
});

describe('token file', () => {
  it('re-reads the file after a 401 when the token rotated', async () => {
    const path = join(dir, 'token');
    writeFileSync(path, 'rotating-1\n');
    accepted = 'rotating-1';
    const client = createClient({ server: gate.url, credentials: tokenFile(path, { reloadAfterMs: 60_000 }) });
    await client.core.v1.namespaces.list();
    writeFileSync(path, 'rotating-2\n');
    accepted = 'rotating-2';
    await client.core.v1.namespaces.list(); // 401 with the cached token, re-read, retried once
    const auths = gate.seen.slice(-3).map((r) => r.headers.authorization);
    expect(auths).toEqual(['Bearer rotating-1', 'Bearer rotating-1', 'Bearer rotating-2']);
  });

  it('re-reads the file after reloadAfterMs without waiting for a 401', async () => {
    const path = join(dir, 'token-timed');
    writeFileSync(path, 'timed-1');
    accepted = 'timed-1';
    const client = createClient({ server: gate.url, credentials: tokenFile(path, { reloadAfterMs: 0 }) });
    await client.core.v1.namespaces.list();
    writeFileSync(path, 'timed-2');
    accepted = 'timed-2';
    await client.core.v1.namespaces.list();
    expect(gate.seen.at(-1)!.headers.authorization).toBe('Bearer timed-2');
  });

  it('names the file when it cannot be read', async () => {
    await expect(tokenFile(join(dir, 'missing')).credentials()).rejects.toThrow(/cannot read the token file .*missing: ENOENT/);
  });
});

const writePlugin = (name: string, body: string) => writePluginIn(dir, name, body);

describe('exec credential plugin', () => {
  it('runs the command with the request in SVC_EXEC_INFO, caches the token, and re-runs on 401', async () => {
    const plugin = writePlugin(
      'token-plugin.cjs',
      `process.stdout.write(JSON.stringify({ apiVersion: request.apiVersion, kind: 'ExecCredential', status: { token: 'exec-' + runs, expirationTimestamp: new Date(Date.now() + 3600e3).toISOString() } }));`,
    );
    accepted = 'exec-1';
    const file = parseClientConfigFile(`
apiVersion: v1
kind: Config
current-context: test
clusters:
- name: local
  cluster:
    server: ${gate.url}
    extensions:
    - name: client.authentication.svc.io/exec
      extension: { audience: tests }
contexts:
- name: test
  context: { cluster: local, user: plugin, namespace: team-a }
users:
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.svc.io/v1
      command: ./token-plugin.cjs
      args: [--flag]
      env: [{ name: PLUGIN_MODE, value: test }]
      provideClusterInfo: true
      interactiveMode: Never
`);
    const config = await clientConfigFromFile(file, { baseDir: dir, stdinIsTerminal: false });
    expect(config.namespace).toBe('team-a');
    const client = createClient(config);
    await client.core.v1.namespaces.list();
    await client.core.v1.namespaces.list();
    expect(runsOf(plugin)).toBe(1); // cached until expirationTimestamp
    expect(requestOf(plugin)).toEqual({
      apiVersion: 'client.authentication.svc.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server: gate.url, config: { audience: 'tests' } } },
    });

    accepted = 'exec-2'; // the server no longer takes the cached token
    await client.core.v1.namespaces.list();
    expect(runsOf(plugin)).toBe(2);
    expect(gate.seen.at(-1)!.headers.authorization).toBe('Bearer exec-2');
  });

  it('runs again once the credential expired', async () => {
    const plugin = writePlugin(
      'expiring-plugin.cjs',
      `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.svc.io/v1beta1', kind: 'ExecCredential', status: { token: 'expiring', expirationTimestamp: new Date(Date.now() - 1000).toISOString() } }));`,
    );
    accepted = 'expiring';
    const source = execCredential({ apiVersion: 'client.authentication.svc.io/v1beta1', command: plugin }, { stdinIsTerminal: false });
    const client = createClient({ server: gate.url, credentials: source });
    await client.core.v1.namespaces.list();
    await client.core.v1.namespaces.list();
    expect(runsOf(plugin)).toBe(2);
    expect(requestOf(plugin)).toEqual({
      apiVersion: 'client.authentication.svc.io/v1beta1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
  });

  it('returns a client certificate and key', async () => {
    writePlugin(
      'cert-plugin.cjs',
      `process.stdout.write(JSON.stringify({ apiVersion: request.apiVersion, kind: 'ExecCredential', status: { clientCertificateData: 'CERT', clientKeyData: 'KEY' } }));`,
    );
    const source = execCredential({
      apiVersion: 'client.authentication.svc.io/v1',
      command: join(dir, 'cert-plugin.cjs'),
      interactiveMode: 'Never',
    });
    expect(await source.credentials()).toEqual({ clientCertificate: { cert: 'CERT', key: 'KEY' } });
  });

  it('keeps secrets out of its errors', async () => {
    const leaky = writePlugin('leaky-plugin.cjs', `process.stdout.write('not json, but the secret s3cr3t'); process.exitCode = 0;`);
    const failing = writePlugin('failing-plugin.cjs', `process.stdout.write('{"status":{"token":"s3cr3t"}}'); process.exitCode = 3;`);
    const halfCert = writePlugin(
      'half-plugin.cjs',
      `process.stdout.write(JSON.stringify({ apiVersion: request.apiVersion, kind: 'ExecCredential', status: { clientKeyData: 's3cr3t' } }));`,
    );
    const errors = await Promise.all(
      [leaky, failing, halfCert].map((command) =>
        execCredential({ apiVersion: 'client.authentication.svc.io/v1', command, interactiveMode: 'Never' }, { stderr: 'ignore' })
          .credentials()
          .then(
            () => undefined,
            (e: Error) => e.message,
          ),
      ),
    );
    expect(errors).toEqual([
      expect.stringMatching(/did not print a JSON ExecCredential/),
      expect.stringMatching(/failed: exit code 3/),
      expect.stringMatching(/clientKeyData without clientCertificateData/),
    ]);
    expect(errors.join('\n')).not.toContain('s3cr3t');
  });

  it('says how to install a missing plugin, and refuses interactive mode without a terminal', async () => {
    const missing = execCredential({
      apiVersion: 'client.authentication.svc.io/v1',
      command: 'svckit-no-such-plugin',
      interactiveMode: 'Never',
      installHint: 'install it with: npm i -g svckit-plugin',
    });
    await expect(missing.credentials()).rejects.toThrow(/could not be started: ENOENT\ninstall it with/);
    const always = execCredential(
      { apiVersion: 'client.authentication.svc.io/v1', command: 'true', interactiveMode: 'Always' },
      { stdinIsTerminal: false },
    );
    await expect(always.credentials()).rejects.toThrow(/needs an interactive terminal/);
    expect(() => execCredential({ apiVersion: 'client.authentication.svc.io/v1', command: 'x' })).toThrow(/interactiveMode must be set/);
  });
});

describe('client config file', () => {
  it('selects the current context, reads CA and certificate files, decodes data fields', async () => {
    writeFileSync(join(dir, 'ca.pem'), 'CA FROM FILE');
    const file = parseClientConfigFile(`
current-context: a
clusters:
- name: one
  cluster:
    server: https://one.example:6443
    certificate-authority: ca.pem
    tls-server-name: api.internal
    proxy-url: http://proxy:3128
    disable-compression: true
- name: two
  cluster: { server: https://two.example:6443, certificate-authority-data: ${btoa('CA DATA')}, insecure-skip-tls-verify: true, disable-compression: false }
contexts:
- { name: a, context: { cluster: one, user: token-user } }
- { name: b, context: { cluster: two, user: cert-user, namespace: prod } }
users:
- { name: token-user, user: { token: abc } }
- { name: cert-user, user: { client-certificate-data: ${btoa('CERT')}, client-key-data: ${btoa('KEY')} } }
`);
    const a = await clientConfigFromFile(file, { baseDir: dir });
    expect(a).toMatchObject({
      server: 'https://one.example:6443',
      namespace: 'default',
      tls: { ca: 'CA FROM FILE', serverName: 'api.internal' },
      proxyUrl: 'http://proxy:3128',
      disableCompression: true,
    });
    expect(await a.credentials?.credentials()).toEqual({ token: 'abc' });
    const b = await clientConfigFromFile(file, { context: 'b' });
    // An explicit false is kept: it asks for gzip even from a loopback server.
    expect(b).toMatchObject({
      server: 'https://two.example:6443',
      namespace: 'prod',
      tls: { ca: 'CA DATA', insecureSkipTlsVerify: true },
      disableCompression: false,
    });
    expect(await b.credentials?.credentials()).toEqual({ clientCertificate: { cert: 'CERT', key: 'KEY' } });
    const both = await clientConfigFromFile(
      parseClientConfigFile(
        `current-context: a\nclusters: [{ name: c, cluster: { server: https://x:6443 } }]\ncontexts: [{ name: a, context: { cluster: c, user: u } }]\nusers: [{ name: u, user: { token: abc, client-certificate-data: ${btoa('CERT')}, client-key-data: ${btoa('KEY')} } }]\n`,
      ),
    );
    expect(await both.credentials?.credentials()).toEqual({ token: 'abc', clientCertificate: { cert: 'CERT', key: 'KEY' } }); // both sent, as client-go
  });

  it('names what is wrong', async () => {
    expect(() => parseClientConfigFile('clusters: [{ name: x }]', 'cfg.yaml')).toThrow(
      'cfg.yaml: clusters[0].cluster: required (entry "x")',
    );
    expect(() => parseClientConfigFile('clusters: [{ name: x, cluster: {} }]', 'cfg.yaml')).toThrow(
      'cfg.yaml: clusters[0].cluster.server: required',
    );
    await expect(clientConfigFromFile(parseClientConfigFile('contexts: [{ name: a, context: { cluster: c } }]'))).rejects.toThrow(
      'the client config has no current-context; name one of: a',
    );
    await expect(
      clientConfigFromFile(parseClientConfigFile('contexts: [{ name: a, context: { cluster: c } }]'), { context: 'a' }),
    ).rejects.toThrow('context "a" names cluster "c", which the client config does not have');
  });

  it('refuses by name what it does not offer: a SOCKS proxy, auth-provider, basic authentication, impersonation', async () => {
    const withUser = (user: string, proxy = 'http://proxy:3128') =>
      clientConfigFromFile(
        parseClientConfigFile(
          `current-context: a\nclusters: [{ name: c, cluster: { server: https://x:6443, proxy-url: '${proxy}' } }]\ncontexts: [{ name: a, context: { cluster: c, user: u } }]\nusers: [{ name: u, user: ${user} }]\n`,
        ),
      );
    await expect(withUser('{ token: t }', 'socks5://proxy:1080')).rejects.toThrow(
      'cluster "c": proxy-url scheme socks5 is not supported (http and https proxies are; SOCKS is not)',
    );
    await expect(withUser('{ auth-provider: { name: gcp } }')).rejects.toThrow(/^the user's auth-provider: .*use the exec plugin/);
    await expect(withUser('{ username: u, password: p }')).rejects.toThrow("the user's username: basic authentication is not supported");
    await expect(withUser('{ token: t, as: someone }')).rejects.toThrow("the user's as: impersonation is not supported");
    expect((await withUser('{ token: t }')).proxyUrl).toBe('http://proxy:3128');
  });

  it(`loads the files ${CLIENT_CONFIG_ENV} lists, first one winning, paths relative to each file`, async () => {
    const first = join(dir, 'first.yaml');
    const second = join(dir, 'sub', 'second.yaml');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(join(dir, 'sub', 'token'), 'from-second-file');
    writeFileSync(first, `current-context: main\ncontexts: [{ name: main, context: { cluster: c, user: u } }]\n`);
    writeFileSync(
      second,
      `current-context: ignored\nclusters: [{ name: c, cluster: { server: ${gate.url} } }]\nusers: [{ name: u, user: { tokenFile: token } }]\n`,
    );
    const config = await loadClientConfig({ env: { [CLIENT_CONFIG_ENV]: `${first}:${join(dir, 'absent.yaml')}:${second}` } });
    expect(config.server).toBe(gate.url);
    expect(await config.credentials?.credentials()).toEqual({ token: 'from-second-file' });
    accepted = 'from-second-file';
    await createClient(config).core.v1.namespaces.list();
    const fallback = await defaultClientConfig({ env: { [CLIENT_CONFIG_ENV]: `${first}:${second}` } });
    expect(fallback.server).toBe(gate.url);
  });
});

describe('in-cluster', () => {
  it('reads the service account files and the SVC_SERVICE_HOST/PORT variables', async () => {
    const sa = join(dir, 'serviceaccount');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'sa-token\n');
    writeFileSync(join(sa, 'ca.crt'), 'SA CA');
    writeFileSync(join(sa, 'namespace'), 'workloads\n');
    const config = await inClusterConfig({ env: { SVC_SERVICE_HOST: 'fd00::1', SVC_SERVICE_PORT: '443' }, serviceAccountDir: sa });
    expect(config).toMatchObject({ server: 'https://[fd00::1]:443', namespace: 'workloads', tls: { ca: 'SA CA' } });
    expect(await config.credentials?.credentials()).toEqual({ token: 'sa-token' });
    await expect(inClusterConfig({ env: {} })).rejects.toThrow(
      /^not running in a cluster: SVC_SERVICE_HOST and SVC_SERVICE_PORT with \/var\/run\/secrets\/svc.io\/serviceaccount\/token, or KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT with \/var\/run\/secrets\/kubernetes.io\/serviceaccount\/token must be set$/,
    );
  });
});
