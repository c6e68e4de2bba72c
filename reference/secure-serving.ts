/**
 * `svckit serve --secure`: a certificate authority kept in the certificate directory, a serving
 * certificate for the loopback names and the listening host, an admin client certificate
 * (CN=svckit-admin, O=system:masters), and a client config file in the real system's kubeconfig
 * format that kubectl, the generated client and the conformance kit read as they are.
 */
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { certificateAuthority, type KeyPair, MASTERS_GROUP } from '../runtime/auth/index.js';
import { type ClientConfigFileContent, writeClientConfigFile } from '../runtime/client-node/index.js';
import { privateFile, privateFolder } from '../runtime/files/index.js';
import type { ServingTls } from '../runtime/server/index.js';

export const ADMIN_USER = 'svckit-admin';
/** The client config file's name in the certificate directory. */
export const ADMIN_CONFIG = 'admin.conf';

export interface SecureServing {
  tls: Required<ServingTls>;
  ca: string;
  admin: KeyPair;
  /** Where the client config file is written once the server's URL is known. */
  configFile: string;
}

/** The names a serving certificate must cover so that clients on this machine can verify it. */
function servingNames(host: string): string[] {
  const names = ['localhost', '127.0.0.1', '::1', hostname()];
  if (host !== '' && host !== '0.0.0.0' && host !== '::') names.push(host);
  return names;
}

/**
 * Prepares the files in `dir`: the CA and admin certificate are made once and kept (a restart keeps
 * the client config valid); the serving certificate is made at every start for the current host.
 * The folder holds the CA's key (whoever has it is cluster-admin): it is this user's only (0700,
 * refused when another user owns or may write it), its keys 0600.
 */
export function prepareSecureServing(dir: string, host: string): SecureServing {
  privateFolder(dir);
  const ca = certificateAuthority(dir, { name: 'svckit CA' });
  const serving = ca.issue('serving', { subject: { cn: 'svckit-apiserver' }, usage: 'serverAuth', sans: servingNames(host) });
  const admin = existsSync(join(dir, 'admin.crt'))
    ? { cert: readFileSync(join(dir, 'admin.crt'), 'utf8'), key: readFileSync(join(dir, 'admin.key'), 'utf8') }
    : ca.issue('admin', { subject: { cn: ADMIN_USER, o: [MASTERS_GROUP] }, usage: 'clientAuth' });
  // Keys an older svckit left with the umask's mode are narrowed.
  for (const key of ['ca.key', 'serving.key', 'admin.key']) privateFile(join(dir, key), () => {});
  return { tls: { cert: serving.cert, key: serving.key, clientCa: ca.cert }, ca: ca.cert, admin, configFile: join(dir, ADMIN_CONFIG) };
}

/** The admin's client config: the server and its CA, the admin certificate, one context. */
export function adminClientConfig(url: string, ca: string, admin: KeyPair): ClientConfigFileContent {
  return { server: url, ca, user: { name: ADMIN_USER, cert: admin.cert, key: admin.key } };
}

/** Writes the admin's client config file (owner-only: it holds the admin's private key), by default in the certificate folder. */
export function writeAdminClientConfig(s: SecureServing, url: string, file = s.configFile): void {
  writeClientConfigFile(file, adminClientConfig(url, s.ca, s.admin));
}
