/**
 * Reading the credentials off a node HTTP(S) request: the bearer token of the Authorization header
 * and, on a TLS socket, the client certificate with the TLS layer's verdict on its chain. This is
 * the only place that knows about node's request and socket types; the authenticators see plain
 * RequestCredentials.
 */
import type { IncomingMessage } from 'node:http';
import { TLSSocket } from 'node:tls';
import { bearerTokenOf, type RequestCredentials } from './authenticate.js';

/**
 * The certificate part per TLS connection: node parses the peer certificate anew on every
 * `getPeerCertificate()` call, and a connection's client certificate cannot change (TLS 1.3 has no
 * renegotiation and the server disables it for 1.2), so it is read once per connection.
 */
const perConnection = new WeakMap<TLSSocket, Partial<RequestCredentials>>();

function certificateOf(socket: TLSSocket): Partial<RequestCredentials> {
  const known = perConnection.get(socket);
  if (known) return known;
  let certificate: Partial<RequestCredentials> = {};
  const peer = socket.getPeerCertificate();
  // Without a client certificate node returns an empty object (or null on a closed socket).
  if (peer && Object.keys(peer).length > 0) {
    certificate = {
      peerCertificate: peer,
      peerCertificateVerified: socket.authorized,
      ...(socket.authorizationError ? { peerCertificateError: String(socket.authorizationError) } : {}),
    };
  }
  perConnection.set(socket, certificate);
  return certificate;
}

export function credentialsFromRequest(req: Pick<IncomingMessage, 'headers' | 'socket'>): RequestCredentials {
  const header = req.headers.authorization;
  const bearerToken = bearerTokenOf(Array.isArray(header) ? header[0] : header);
  const socket = req.socket;
  const certificate = socket instanceof TLSSocket ? certificateOf(socket) : {};
  return { ...(bearerToken !== undefined ? { bearerToken } : {}), ...certificate };
}
