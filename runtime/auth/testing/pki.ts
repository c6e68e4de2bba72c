/**
 * Test PKI: a throw-away certificate authority made with the `openssl` command, issuing server
 * certificates for localhost and client certificates with a chosen subject and extended key
 * usage. Tests use it to run real TLS peers (an OIDC issuer, a webhook, a client) instead of mocks.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

export interface TestCa extends KeyPair {
  /** A server certificate for `localhost` and 127.0.0.1. */
  issueServer(): KeyPair;
  /** A client certificate; `usage` is the extendedKeyUsage value (`clientAuth`, `serverAuth`). */
  issueClient(subject: { cn: string; o?: string[] }, usage?: string): KeyPair;
  dispose(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function subjectString(cn: string, o: readonly string[] = []): string {
  return `${o.map((x) => `/O=${x}`).join('')}/CN=${cn}`;
}

/** Creates a CA named `name` in a temporary directory. */
export function createTestCa(name = 'svckit test CA'): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-pki-'));
  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key']);
  openssl(dir, [
    'req',
    '-x509',
    '-new',
    '-key',
    'ca.key',
    '-subj',
    `/CN=${name}`,
    '-days',
    '2',
    '-out',
    'ca.crt',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  let serial = 0;
  const issue = (subject: string, extensions: string): KeyPair => {
    const id = `leaf${++serial}`;
    writeFileSync(join(dir, `${id}.ext`), extensions);
    openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${id}.key`]);
    openssl(dir, ['req', '-new', '-key', `${id}.key`, '-subj', subject, '-out', `${id}.csr`]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${id}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-set_serial',
      String(1000 + serial),
      '-days',
      '1',
      '-extfile',
      `${id}.ext`,
      '-out',
      `${id}.crt`,
    ]);
    return { cert: readFileSync(join(dir, `${id}.crt`), 'utf8'), key: readFileSync(join(dir, `${id}.key`), 'utf8') };
  };
  return {
    cert: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    key: readFileSync(join(dir, 'ca.key'), 'utf8'),
    issueServer: () =>
      issue(
        '/CN=localhost',
        'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n',
      ),
    issueClient: (s, usage = 'clientAuth') =>
      issue(subjectString(s.cn, s.o), `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=${usage}\n`),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
