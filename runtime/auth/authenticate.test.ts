import { describe, expect, it } from 'vitest';
import { type Authenticator, AuthenticatorChain, bearerTokenOf } from './authenticate.js';
import { TokenFileAuthenticator } from './token-file.js';
import { ClientCertificateAuthenticator } from './x509.js';

const tokens = TokenFileAuthenticator.fromText('good,alice,u1,"devs"\nsys,admin,u2,system:authenticated\n');
const certs = new ClientCertificateAuthenticator();
const cert = { subject: { CN: 'carol', O: ['ops'] }, ext_key_usage: ['1.3.6.1.5.5.7.3.2'] };
const rejectingTokens: Authenticator = {
  name: 'expiring',
  authenticate: (c) => (c.bearerToken === 'expired' ? { outcome: 'reject', reason: 'token expired' } : { outcome: 'skip' }),
};

describe('AuthenticatorChain', () => {
  const open = new AuthenticatorChain([certs, rejectingTokens, tokens], { anonymous: true });
  const closed = new AuthenticatorChain([certs, rejectingTokens, tokens], { anonymous: false });

  it('adds system:authenticated to an identified user and names the authenticator', async () => {
    const r = await open.authenticate({ bearerToken: 'good' });
    expect(r).toMatchObject({
      authenticated: true,
      user: { username: 'alice', groups: ['devs', 'system:authenticated'] },
      explanation: { authenticator: 'token-file' },
    });
  });

  it('does not add system:authenticated twice', async () => {
    const r = await open.authenticate({ bearerToken: 'sys' });
    expect(r.authenticated && r.user.groups).toEqual(['system:authenticated']);
  });

  it('makes a request without credentials anonymous only when enabled', async () => {
    expect(await open.authenticate({})).toMatchObject({
      authenticated: true,
      user: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
      explanation: { authenticator: 'anonymous' },
    });
    expect(await closed.authenticate({})).toMatchObject({ authenticated: false, status: 401, message: 'Unauthorized: no credentials' });
  });

  it('fails a presented but rejected credential even when anonymous is enabled', async () => {
    const r = await open.authenticate({ bearerToken: 'expired' });
    expect(r).toMatchObject({ authenticated: false, status: 401, message: 'Unauthorized: expiring: token expired' });
  });

  it('fails a token no authenticator knows even when anonymous is enabled', async () => {
    expect(await open.authenticate({ bearerToken: 'nobody-knows' })).toMatchObject({ authenticated: false, status: 401 });
  });

  it('lets the first success win over an earlier rejection, and reports the rejection', async () => {
    const r = await open.authenticate({ peerCertificate: cert, peerCertificateVerified: false, bearerToken: 'good' });
    expect(r).toMatchObject({
      authenticated: true,
      user: { username: 'alice' },
      explanation: { authenticator: 'token-file', rejections: ['x509: client certificate not verified by the TLS layer'] },
    });
  });

  it('tries authenticators in order', async () => {
    const r = await open.authenticate({ peerCertificate: cert, peerCertificateVerified: true, bearerToken: 'good' });
    expect(r).toMatchObject({
      authenticated: true,
      user: { username: 'carol', groups: ['ops', 'system:authenticated'] },
      explanation: { authenticator: 'x509' },
    });
  });

  it('turns a thrown error into a rejection', async () => {
    const throwing: Authenticator = {
      name: 'broken',
      authenticate: () => {
        throw new Error('boom');
      },
    };
    const r = await new AuthenticatorChain([throwing], { anonymous: true }).authenticate({ bearerToken: 'x' });
    expect(r).toMatchObject({ authenticated: false, message: 'Unauthorized: broken: boom' });
  });
});

describe('bearerTokenOf', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer  abc ', 'abc'],
    ['Basic abc', undefined],
    ['Bearer', undefined],
    ['Bearer a b', undefined],
    [undefined, undefined],
  ])('%j -> %j', (header, token) => expect(bearerTokenOf(header)).toBe(token));
});
