/**
 * Test PKI: a throw-away certificate authority (the shipped `certificateAuthority` in a temporary
 * directory), issuing server certificates for localhost and client certificates with a chosen
 * subject and extended key usage. Tests use it to run real TLS peers (an OIDC issuer, a webhook,
 * a client) instead of mocks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateAuthority, type KeyPair } from '../pki.js';

export type { KeyPair } from '../pki.js';

export interface TestCa extends KeyPair {
  /** A server certificate for `localhost` and 127.0.0.1. */
  issueServer(): KeyPair;
  /** A client certificate; `usage` is the extendedKeyUsage value (`clientAuth`, `serverAuth`). */
  issueClient(subject: { cn: string; o?: string[] }, usage?: string): KeyPair;
  dispose(): void;
}

/** Creates a CA named `name` in a temporary directory. */
export function createTestCa(name = 'svckit test CA'): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-pki-'));
  const ca = certificateAuthority(dir, { name, days: 2 });
  let serial = 0;
  return {
    cert: ca.cert,
    key: ca.key,
    issueServer: () =>
      ca.issue(`leaf${++serial}`, { subject: { cn: 'localhost' }, usage: 'serverAuth', sans: ['localhost', '127.0.0.1'], days: 1 }),
    issueClient: (subject, usage = 'clientAuth') => ca.issue(`leaf${++serial}`, { subject, usage, days: 1 }),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
