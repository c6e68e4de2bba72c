import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A server certificate and its key (PEM). */
export interface TlsKeyPair {
  cert: string;
  key: string;
}

/**
 * A throw-away self-signed certificate for `localhost`, 127.0.0.1 and ::1, made with the `openssl`
 * command (node:crypto makes keys but not certificates). The certificate is its own CA: it is the
 * `caBundle` a webhook configuration names.
 */
export function selfSignedCertificate(hosts: readonly string[] = ['localhost', '127.0.0.1', '::1']): TlsKeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-webhook-tls-'));
  try {
    const san = hosts.map((h) => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        'key.pem',
        '-out',
        'cert.pem',
        '-days',
        '2',
        '-subj',
        '/CN=svckit webhook',
        '-addext',
        `subjectAltName=${san}`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } catch (e) {
    const detail = (e as { stderr?: Buffer }).stderr?.toString().trim() || (e as Error).message;
    throw new Error(`could not make a self-signed certificate with openssl (is it installed?): ${detail}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
