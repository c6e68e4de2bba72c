/**
 * A real OIDC issuer for tests: an HTTPS server (certificate from a test CA) serving the discovery
 * document and the JWKS, and signing tokens with jose. `rotate()` replaces the signing key and
 * the served key set, as an issuer rotating keys does; the server counts the requests it serves.
 */
import { once } from 'node:events';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import type { KeyPair } from './pki.testing.js';

interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  readonly jwk: JWK;
}

export interface TestIssuer {
  /** `https://127.0.0.1:<port>/issuer` */
  readonly url: string;
  /** A second discovery location, for the discoveryURL override. */
  readonly alternateDiscoveryURL: string;
  readonly requests: { discovery: number; alternateDiscovery: number; jwks: number };
  /** The issuer named in the discovery document (to test a mismatch). */
  discoveryIssuer: string;
  sign(claims: JWTPayload, options?: { kid?: string; alg?: string; key?: 'current' | 'unpublished' }): Promise<string>;
  /** A new current key; the old one is dropped from the JWKS unless `keepOld`. */
  rotate(keepOld?: boolean): Promise<void>;
  close(): Promise<void>;
}

let keyCounter = 0;

async function newKey(alg = 'ES256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `key-${++keyCounter}`;
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export async function startTestIssuer(tls: KeyPair): Promise<TestIssuer> {
  let current = await newKey();
  const unpublished = await newKey();
  let published: SigningKey[] = [current];
  const requests = { discovery: 0, alternateDiscovery: 0, jwks: 0 };
  let base = '';
  const state = { discoveryIssuer: '' };

  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const send = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const discoveryDoc = () => ({
      issuer: state.discoveryIssuer,
      jwks_uri: `${base}/issuer/jwks`,
      id_token_signing_alg_values_supported: ['ES256', 'RS256'],
    });
    switch (req.url) {
      case '/issuer/.well-known/openid-configuration':
        requests.discovery++;
        return send(discoveryDoc());
      case '/elsewhere/discovery':
        requests.alternateDiscovery++;
        return send(discoveryDoc());
      case '/issuer/jwks':
        requests.jwks++;
        return send({ keys: published.map((k) => k.jwk) });
      default:
        res.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.discoveryIssuer = `${base}/issuer`;

  return {
    url: `${base}/issuer`,
    alternateDiscoveryURL: `${base}/elsewhere/discovery`,
    requests,
    get discoveryIssuer() {
      return state.discoveryIssuer;
    },
    set discoveryIssuer(v: string) {
      state.discoveryIssuer = v;
    },
    async sign(claims, options = {}) {
      let key = options.key === 'unpublished' ? unpublished : current;
      if (options.alg && options.alg !== key.alg) key = await newKey(options.alg);
      return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid }).sign(key.privateKey);
    },
    async rotate(keepOld = false) {
      const next = await newKey();
      published = keepOld ? [...published, next] : [next];
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
