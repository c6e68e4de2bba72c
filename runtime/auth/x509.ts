/**
 * The client-certificate authenticator: the user is the certificate's subject common name and the
 * groups are its organizations, as in the real system's CommonNameUserConversion.
 *
 * Chain verification is NOT done here. The TLS layer verifies the client's chain against the
 * configured client CA (`requestCert: true` and a `ca` on the server; `socket.authorized` tells the
 * result) and passes that verdict in `peerCertificateVerified`; a certificate the TLS layer did not
 * verify is rejected. What this module adds is the usage check the TLS layer does not make: the
 * certificate must be issued for client authentication (extended key usage `clientAuth`), so a
 * server certificate from the same CA cannot be used to log in.
 */
import type { Authenticator, AuthenticatorResult, PeerCertificateLike, RequestCredentials } from './authenticate.js';

export const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE_OID = '2.5.29.37.0';

/** The subject's attributes; `crypto.X509Certificate` gives a `CN=...\nO=...` string, TLS an object. */
function subjectOf(cert: PeerCertificateLike): { cn: string[]; o: string[] } {
  const out = { cn: [] as string[], o: [] as string[] };
  const add = (key: string, value: unknown) => {
    const values = Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
    if (key === 'CN') out.cn.push(...values);
    if (key === 'O') out.o.push(...values);
  };
  const s = cert.subject;
  if (typeof s === 'string') {
    for (const line of s.split('\n')) {
      const eq = line.indexOf('=');
      if (eq > 0) add(line.slice(0, eq), line.slice(eq + 1));
    }
  } else if (s && typeof s === 'object') {
    for (const [k, v] of Object.entries(s as Record<string, unknown>)) add(k, v);
  }
  return out;
}

function extendedKeyUsages(cert: PeerCertificateLike): readonly string[] {
  return cert.ext_key_usage ?? cert.keyUsage ?? [];
}

export class ClientCertificateAuthenticator implements Authenticator {
  readonly name = 'x509';

  authenticate(credentials: RequestCredentials): AuthenticatorResult {
    const cert = credentials.peerCertificate;
    if (!cert) return { outcome: 'skip' };
    if (credentials.peerCertificateVerified !== true) {
      const why = credentials.peerCertificateError ? `: ${credentials.peerCertificateError}` : '';
      return { outcome: 'reject', reason: `client certificate not verified by the TLS layer${why}` };
    }
    const usages = extendedKeyUsages(cert);
    if (!usages.includes(CLIENT_AUTH_OID) && !usages.includes(ANY_EXTENDED_KEY_USAGE_OID)) {
      return { outcome: 'reject', reason: 'client certificate lacks the clientAuth extended key usage' };
    }
    const { cn, o } = subjectOf(cert);
    const username = cn[0] ?? '';
    if (username === '') return { outcome: 'reject', reason: 'common name of the client certificate is empty' };
    return { outcome: 'user', user: { username, groups: o, extra: {} }, detail: `client certificate CN=${username}` };
  }
}
