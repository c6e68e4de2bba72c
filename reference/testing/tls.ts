/**
 * HTTPS for test servers (`startTestServer({ tls: true })`): kubectl and Go clients send tokens
 * and client certificates only over TLS, so identities reach the server through them only then.
 * One CA and one loopback serving certificate per process, made on first use (openssl, as `svckit
 * serve --secure`) and shared by every test server of the process: dozens of servers cost one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateAuthority } from '../../runtime/auth/index.js';

export interface TestServingCertificate {
  /** PEM of the CA that signed `cert`: what clients trust. */
  ca: string;
  cert: string;
  key: string;
}

let made: TestServingCertificate | undefined;

export function testServingCertificate(): TestServingCertificate {
  if (made) return made;
  const dir = mkdtempSync(join(tmpdir(), 'svckit-test-ca-'));
  try {
    const ca = certificateAuthority(dir, { name: 'svckit test CA', days: 30 });
    const serving = ca.issue('serving', {
      subject: { cn: 'svckit-test-server' },
      usage: 'serverAuth',
      sans: ['localhost', '127.0.0.1', '::1'],
    });
    made = { ca: ca.cert, cert: serving.cert, key: serving.key };
    return made;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
