/**
 * A small certificate authority made with the `openssl` command (present wherever node runs a
 * server; node:crypto can make keys but not certificates): a CA, and leaf certificates it signs
 * for serving (with subject alternative names) or for client authentication (subject CN = user,
 * O = groups). `svckit serve --secure` keeps one in its data directory; tests make throw-away ones.
 * Also a self-signed serving certificate that is its own CA (a webhook's `caBundle`).
 * Keys are EC P-256 (fast to make, accepted by kubectl, node and Go clients).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateFile } from '../files/index.js';

/** A certificate and its private key, both PEM. */
export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

export interface LeafRequest {
  /** CN is the user of a client certificate; each O one of its groups. */
  readonly subject: { readonly cn: string; readonly o?: readonly string[] };
  /** The extendedKeyUsage value: `serverAuth`, `clientAuth` (or any other openssl name). */
  readonly usage: string;
  /** Subject alternative names of a serving certificate: host names and IP addresses. */
  readonly sans?: readonly string[];
  readonly days?: number;
}

export interface CertificateAuthority extends KeyPair {
  /** Issues a leaf certificate into `<dir>/<file>.crt` and `<file>.key` and returns both. */
  issue(file: string, request: LeafRequest): KeyPair;
}

/** Why a certificate could not be made: openssl missing or failing, with its message. */
export class PkiError extends Error {
  override readonly name = 'PkiError';

  constructor(
    message: string,
    /** What openssl wrote on its standard error, or why it could not be run. */
    readonly detail = message,
  ) {
    super(message);
  }
}

function openssl(dir: string, args: readonly string[]): void {
  try {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    const err = e as { code?: string; stderr?: Buffer };
    const detail = err.stderr?.toString().trim() || (e as Error).message;
    if (err.code === 'ENOENT') throw new PkiError('the openssl command is needed to make certificates and is not on the PATH', detail);
    throw new PkiError(`openssl ${args[0]} failed: ${detail}`, detail);
  }
}

/**
 * `<dir>/<name>` made 0600 before openssl writes a private key into it: openssl keeps the mode of
 * a file it overwrites, and some versions create keys with the umask's mode.
 */
function keyFile(dir: string, name: string): string {
  privateFile(join(dir, name), () => {});
  return name;
}

function subjectString(s: LeafRequest['subject']): string {
  const quoted = (v: string) => v.replace(/[/\\]/g, (c) => `\\${c}`);
  return `${(s.o ?? []).map((x) => `/O=${quoted(x)}`).join('')}/CN=${quoted(s.cn)}`;
}

const IP = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)$/;

/** `DNS:localhost,IP:127.0.0.1`. */
function altNames(sans: readonly string[]): string {
  return [...new Set(sans)].map((n) => (IP.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
}

/**
 * The CA kept in `dir` as `ca.crt` and `ca.key`: read when both exist (so certificates issued
 * before a restart stay valid), created otherwise.
 */
export function certificateAuthority(dir: string, options: { name?: string; days?: number } = {}): CertificateAuthority {
  const caCrt = join(dir, 'ca.crt');
  const caKey = join(dir, 'ca.key');
  if (!existsSync(caCrt) || !existsSync(caKey)) {
    openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile(dir, 'ca.key')]);
    openssl(dir, [
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-subj',
      `/CN=${options.name ?? 'svckit CA'}`,
      '-days',
      String(options.days ?? 3650),
      '-out',
      'ca.crt',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
  }
  return {
    cert: readFileSync(caCrt, 'utf8'),
    key: readFileSync(caKey, 'utf8'),
    issue(file, request) {
      const ext = [
        'basicConstraints=CA:FALSE',
        `keyUsage=critical,digitalSignature`,
        `extendedKeyUsage=${request.usage}`,
        ...(request.sans && request.sans.length > 0 ? [`subjectAltName=${altNames(request.sans)}`] : []),
      ];
      writeFileSync(join(dir, `${file}.ext`), `${ext.join('\n')}\n`);
      openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile(dir, `${file}.key`)]);
      openssl(dir, ['req', '-new', '-key', `${file}.key`, '-subj', subjectString(request.subject), '-out', `${file}.csr`]);
      openssl(dir, [
        'x509',
        '-req',
        '-in',
        `${file}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-set_serial',
        `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex')}`,
        '-days',
        String(request.days ?? 365),
        '-extfile',
        `${file}.ext`,
        '-out',
        `${file}.crt`,
      ]);
      return { cert: readFileSync(join(dir, `${file}.crt`), 'utf8'), key: readFileSync(join(dir, `${file}.key`), 'utf8') };
    },
  };
}

/**
 * A throw-away self-signed serving certificate for `hosts` (names and IP addresses), which is its
 * own CA: the `caBundle` a webhook configuration names. Made in a temporary directory, removed after.
 */
export function selfSignedCertificate(
  hosts: readonly string[] = ['localhost', '127.0.0.1', '::1'],
  options: { name?: string; days?: number } = {},
): KeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-self-signed-'));
  try {
    openssl(dir, [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile(dir, 'key.pem'),
      '-out',
      'cert.pem',
      '-days',
      String(options.days ?? 2),
      '-subj',
      `/CN=${options.name ?? 'svckit'}`,
      '-addext',
      `subjectAltName=${altNames(hosts)}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ]);
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } catch (e) {
    if (!(e instanceof PkiError)) throw e;
    const message = `could not make a self-signed certificate with openssl (is it installed?): ${e.detail}`;
    throw new PkiError(message, e.detail);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
