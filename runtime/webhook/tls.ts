import { type KeyPair, selfSignedCertificate as selfSignedServingCertificate } from '../auth/index.js';

/** @deprecated The runtime's one certificate type is runtime/auth's `KeyPair`. */
export type TlsKeyPair = KeyPair;

/**
 * A throw-away self-signed certificate for `localhost`, 127.0.0.1 and ::1 (runtime/auth's maker):
 * the certificate is its own CA, the `caBundle` a webhook configuration names.
 */
export function selfSignedCertificate(hosts: readonly string[] = ['localhost', '127.0.0.1', '::1']): KeyPair {
  return selfSignedServingCertificate(hosts, { name: 'svckit webhook', days: 2 });
}
