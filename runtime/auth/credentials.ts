/**
 * Reading the credentials off a node HTTP(S) request: the bearer token of the Authorization header
 * and, on a TLS socket, the client certificate with the TLS layer's verdict on its chain. This is
 * the only place that knows about node's request and socket types; the authenticators see plain
 * RequestCredentials.
 */
import type { IncomingMessage } from 'node:http';
import { TLSSocket } from 'node:tls';
import { bearerTokenOf, type RequestCredentials } from './authenticate.js';

export function credentialsFromRequest(req: Pick<IncomingMessage, 'headers' | 'socket'>): RequestCredentials {
  const header = req.headers.authorization;
  const bearerToken = bearerTokenOf(Array.isArray(header) ? header[0] : header);
  const socket = req.socket;
  let certificate: Partial<RequestCredentials> = {};
  if (socket instanceof TLSSocket) {
    const peer = socket.getPeerCertificate();
    // Without a client certificate node returns an empty object (or null on a closed socket).
    if (peer && Object.keys(peer).length > 0) {
      certificate = {
        peerCertificate: peer,
        peerCertificateVerified: socket.authorized,
        ...(socket.authorizationError ? { peerCertificateError: String(socket.authorizationError) } : {}),
      };
    }
  }
  return { ...(bearerToken !== undefined ? { bearerToken } : {}), ...certificate };
}
