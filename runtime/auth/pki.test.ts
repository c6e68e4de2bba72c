import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate as webhookCertificate } from '../webhook/index.js';
import { PkiError, selfSignedCertificate } from './index.js';

describe('selfSignedCertificate', () => {
  it('is a CA for the given names and addresses, signed by its own key', () => {
    const pair = selfSignedCertificate(['example.test', '10.0.0.1', '::1'], { name: 'own CA' });
    const cert = new X509Certificate(pair.cert);
    expect(cert.subject).toBe('CN=own CA');
    expect(cert.ca).toBe(true);
    expect(cert.subjectAltName).toBe('DNS:example.test, IP Address:10.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(cert.verify(cert.publicKey)).toBe(true);
    const publicOfKey = createPublicKey(createPrivateKey(pair.key)).export({ type: 'spki', format: 'der' });
    expect(publicOfKey.equals(cert.publicKey.export({ type: 'spki', format: 'der' }))).toBe(true);
  });

  it('is what a webhook serves by default: localhost and its loopback addresses, named svckit webhook', () => {
    const cert = new X509Certificate(webhookCertificate().cert);
    expect(cert.subject).toBe('CN=svckit webhook');
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
  });

  it('says openssl is needed when it cannot be run', () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      let error: unknown;
      try {
        selfSignedCertificate();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(PkiError);
      expect((error as PkiError).message).toBe(
        'could not make a self-signed certificate with openssl (is it installed?): spawnSync openssl ENOENT',
      );
    } finally {
      process.env.PATH = path;
    }
  });
});
