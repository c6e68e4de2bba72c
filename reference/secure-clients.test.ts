/**
 * The secure server's client config file works for every client svckit ships: the generated typed
 * client (through `loadClientConfig`, CA and client certificate embedded as data) and the
 * conformance kit with each kind of credential it accepts (`--config`, `--client-cert`/`--client-key`
 * with `--ca`, `--token`), running the authorization scenarios as its restricted user.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformanceCli } from '../conformance/index.js';
import { createClient } from '../generated/client.js';
import { MASTERS_GROUP, type TokenTable } from '../runtime/auth/index.js';
import { isStatusError } from '../runtime/client/index.js';
import { loadClientConfig } from '../runtime/client-node/index.js';
import { type RunningServer, startReferenceServer } from './reference-server.js';
import { prepareSecureServing, type SecureServing, writeAdminClientConfig } from './secure-serving.js';

let dir: string;
let secure: SecureServing;
let server: RunningServer;
const TOKEN = 'kit-admin-token';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-secure-clients-'));
  secure = prepareSecureServing(dir, '127.0.0.1');
  const tokens: TokenTable = { users: new Map([[TOKEN, { username: 'kit', groups: [MASTERS_GROUP], extra: {} }]]), warnings: [] };
  server = await startReferenceServer({ store: 'memory', port: 0, access: { tls: secure.tls, tokens, authorizationModes: ['RBAC'] } });
  writeAdminClientConfig(secure, server.url);
  writeFileSync(join(dir, 'ca.pem'), secure.ca);
  writeFileSync(join(dir, 'admin.pem'), secure.admin.cert);
  writeFileSync(join(dir, 'admin-key.pem'), secure.admin.key);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('clients of svckit serve --secure', () => {
  it('the generated client reads the client config file: HTTPS with the CA, the admin certificate', async () => {
    const client = createClient(await loadClientConfig({ paths: [secure.configFile] }));
    const roles = await client.rbac.v1.clusterRoles.list();
    expect(roles.items.map((r) => r.metadata?.name)).toContain('cluster-admin');
    // Without credentials the same server refuses the read, with upstream's 403.
    const anonymous = createClient({ ...(await loadClientConfig({ paths: [secure.configFile] })), credentials: undefined });
    const refused = await anonymous.rbac.v1.clusterRoles.list().catch((e: unknown) => e);
    expect(isStatusError(refused) && refused.code).toBe(403);
  });

  const kit = async (...credentials: string[]) => {
    let out = '';
    const code = await runConformanceCli(
      ['--server', server.url, ...credentials, '--focus', 'core/authz/*', '--focus', 'core/verbs/get*'],
      {
        stdout: (t) => {
          out += t;
        },
        stderr: { write: () => true, isTTY: false },
      },
    );
    return { code, out };
  };

  it('the kit with --config, with a client certificate, and with a token', async () => {
    for (const credentials of [
      ['--config', secure.configFile],
      ['--client-cert', join(dir, 'admin.pem'), '--client-key', join(dir, 'admin-key.pem'), '--ca', join(dir, 'ca.pem')],
      ['--token', TOKEN, '--ca', join(dir, 'ca.pem')],
    ]) {
      const { code, out } = await kit(...credentials);
      expect(out, credentials.join(' ')).toMatch(/\b\d+ passed, 0 failed, 0 skipped/);
      expect(out).toMatch(/core\/authz\s+4 passed/);
      expect(code).toBe(0);
    }
  }, 120_000);
});
