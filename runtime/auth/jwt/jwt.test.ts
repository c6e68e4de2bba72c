import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthenticationConfiguration, JWTAuthenticator } from '../../../generated/apiserver.svc.io/v1alpha1/index.js';
import { AuthenticatorChain } from '../authenticate.js';
import { AuthConfigError } from '../cel-support.js';
import { createTestCa, type TestCa } from '../testing/pki.testing.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.testing.js';
import { type JwtAuthenticator, loadJwtAuthenticators } from './authenticator.js';

let ca: TestCa;
let issuer: TestIssuer;

beforeAll(async () => {
  ca = createTestCa();
  issuer = await startTestIssuer(ca.issueServer());
});
afterAll(async () => {
  await issuer.close();
  ca.dispose();
});

const now = () => Math.floor(Date.now() / 1000);

function config(overrides: Partial<JWTAuthenticator> = {}): JWTAuthenticator {
  const { issuer: issuerOverride, ...rest } = overrides;
  return {
    issuer: { certificateAuthority: ca.cert, ...(issuerOverride ?? { url: issuer.url, audiences: ['svckit'] }) },
    claimMappings: { username: { claim: 'sub', prefix: 'oidc:' }, groups: { claim: 'groups', prefix: 'oidc:' } },
    ...rest,
  };
}

function authenticatorFor(c: JWTAuthenticator, options = {}): JwtAuthenticator {
  const doc: AuthenticationConfiguration = { apiVersion: 'apiserver.svc.io/v1alpha1', kind: 'AuthenticationConfiguration', jwt: [c] };
  return loadJwtAuthenticators(doc, options)[0] as JwtAuthenticator;
}

function claims(extra: Record<string, unknown> = {}) {
  return { iss: issuer.url, aud: ['svckit'], sub: 'alice', exp: now() + 600, groups: ['devs'], ...extra };
}

async function run(a: JwtAuthenticator, claimSet: Record<string, unknown>, signOptions = {}) {
  return a.authenticate({ bearerToken: await issuer.sign(claimSet, signOptions) });
}

describe('JWT authenticator against a real OIDC issuer', () => {
  const a = () => authenticatorFor(config());

  it('accepts a valid token and maps sub and groups with their prefixes', async () => {
    expect(await run(a(), claims())).toEqual({
      outcome: 'user',
      user: { username: 'oidc:alice', groups: ['oidc:devs'], extra: {} },
      detail: `JWT from ${issuer.url}`,
    });
  });

  it('accepts a string aud and a single-string groups claim', async () => {
    const r = await run(a(), claims({ aud: 'svckit', groups: 'ops' }));
    expect(r).toMatchObject({ outcome: 'user', user: { groups: ['oidc:ops'] } });
  });

  it.each([
    ['wrong audience', { aud: ['other'] }, 'token audience does not match any of ["svckit"]'],
    ['expired', { exp: now() - 60 }, 'token has expired'],
    ['nbf in the future', { nbf: now() + 3600 }, 'token is not valid yet (nbf is in the future)'],
    ['no exp', { exp: undefined }, 'token has no exp claim'],
    ['missing username claim', { sub: undefined }, 'claim "sub" not present'],
    ['non-string username claim', { sub: 42 }, 'claim "sub" must be a string'],
    ['groups of the wrong type', { groups: [1, 2] }, 'claim "groups" must be a string or a list of strings'],
  ])('rejects a token: %s', async (_name, change, reason) => {
    expect(await run(a(), claims(change))).toEqual({ outcome: 'reject', reason });
  });

  it('leaves a token from another issuer, and a non-JWT token, to other authenticators', async () => {
    expect(await run(a(), claims({ iss: 'https://elsewhere.example' }))).toEqual({ outcome: 'skip' });
    expect(await a().authenticate({ bearerToken: 'not-a-jwt' })).toEqual({ outcome: 'skip' });
    expect(await a().authenticate({})).toEqual({ outcome: 'skip' });
  });

  it('rejects a token signed by a key the issuer does not publish', async () => {
    expect(await run(a(), claims(), { key: 'unpublished' })).toEqual({
      outcome: 'reject',
      reason: 'no key of the issuer matches the token',
    });
  });

  it('rejects a token whose kid names a published key it was not signed with', async () => {
    const published = await issuer.sign(claims());
    const kid = JSON.parse(Buffer.from(published.split('.')[0] as string, 'base64url').toString()).kid as string;
    expect(await run(a(), claims(), { key: 'unpublished', kid })).toEqual({ outcome: 'reject', reason: 'token signature is invalid' });
  });

  it('rejects an algorithm that is not allowed', async () => {
    const strict = authenticatorFor(config(), { signingAlgorithms: ['RS256'] });
    expect(await run(strict, claims())).toEqual({ outcome: 'reject', reason: 'token signing algorithm is not allowed' });
  });

  it('refetches the JWKS when a token names an unknown key id (rotation), and not more often than allowed', async () => {
    let clock = Date.now();
    const auth = authenticatorFor(config(), { minKeyRefreshMs: 60_000, now: () => clock });
    const before = issuer.requests.jwks;
    expect((await run(auth, claims())).outcome).toBe('user');
    expect(issuer.requests.jwks).toBe(before + 1);
    await issuer.rotate();
    // Within the refresh interval an unknown key id does not trigger a fetch.
    expect(await run(auth, claims())).toEqual({ outcome: 'reject', reason: 'no key of the issuer matches the token' });
    expect(issuer.requests.jwks).toBe(before + 1);
    clock += 61_000;
    expect((await run(auth, claims())).outcome).toBe('user');
    expect(issuer.requests.jwks).toBe(before + 2);
    // Tokens signed with the current key keep working from the cache.
    clock += 61_000;
    expect((await run(auth, claims())).outcome).toBe('user');
    expect(issuer.requests.jwks).toBe(before + 2);
  });

  it('accepts tokens of the old and the new key while both are published', async () => {
    const auth = authenticatorFor(config(), { minKeyRefreshMs: 0 });
    const old = await issuer.sign(claims());
    await issuer.rotate(true);
    const fresh = await issuer.sign(claims());
    expect((await auth.authenticate({ bearerToken: old })).outcome).toBe('user');
    expect((await auth.authenticate({ bearerToken: fresh })).outcome).toBe('user');
    // Once the issuer drops a key, the next unknown key id refreshes the set and the dropped key stops working.
    await issuer.rotate();
    expect((await run(auth, claims())).outcome).toBe('user');
    expect(await auth.authenticate({ bearerToken: fresh })).toEqual({
      outcome: 'reject',
      reason: 'no key of the issuer matches the token',
    });
  });

  it('uses the discovery URL override', async () => {
    const auth = authenticatorFor(
      config({ issuer: { url: issuer.url, audiences: ['svckit'], discoveryURL: issuer.alternateDiscoveryURL } }),
    );
    const before = { ...issuer.requests };
    expect((await run(auth, claims())).outcome).toBe('user');
    expect(issuer.requests.alternateDiscovery).toBe(before.alternateDiscovery + 1);
    expect(issuer.requests.discovery).toBe(before.discovery);
  });

  it('rejects tokens when discovery names another issuer, waits before asking again, and recovers', async () => {
    let clock = Date.now();
    const auth = authenticatorFor(config(), { now: () => clock, retryAfterFailureMs: 5_000 });
    issuer.discoveryIssuer = 'https://impostor.example';
    const before = issuer.requests.discovery;
    try {
      const r = await run(auth, claims());
      expect(r.outcome).toBe('reject');
      expect(r.outcome === 'reject' && r.reason).toMatch(/issuer "https:\/\/impostor.example" does not match the configured/);
      // A second token within the back-off gets the same answer without another discovery request.
      expect((await run(auth, claims())).outcome).toBe('reject');
      expect(issuer.requests.discovery).toBe(before + 1);
    } finally {
      issuer.discoveryIssuer = issuer.url;
    }
    expect((await run(auth, claims())).outcome).toBe('reject');
    clock += 5_001;
    expect((await run(auth, claims())).outcome).toBe('user');
    expect(issuer.requests.discovery).toBe(before + 2);
  });

  it('fails the TLS connection to the issuer without the right CA', async () => {
    const other = createTestCa('other');
    try {
      const auth = authenticatorFor(config({ issuer: { url: issuer.url, audiences: ['svckit'], certificateAuthority: other.cert } }));
      const r = await run(auth, claims());
      expect(r.outcome).toBe('reject');
      expect(r.outcome === 'reject' && r.reason).toMatch(/certificate/i);
    } finally {
      other.dispose();
    }
  });
});

describe('claim mappings and rules', () => {
  it('maps username, groups, uid and extra with CEL expressions', async () => {
    const auth = authenticatorFor(
      config({
        claimMappings: {
          username: { expression: '"cel:" + claims.sub' },
          groups: { expression: 'claims.roles.map(r, "role:" + r)' },
          uid: { expression: 'claims.oid' },
          extra: [
            { key: 'example.svc.io/tenant', valueExpression: 'claims.tenant' },
            { key: 'example.svc.io/empty', valueExpression: '""' },
            { key: 'example.svc.io/absent', valueExpression: 'claims.?missing.orValue(null)' },
            { key: 'example.svc.io/list', valueExpression: '["a", "", "b"]' },
            // A list built from claims is typed list (of dyn) by the checker, as in the real system.
            { key: 'example.svc.io/tid', valueExpression: '[claims.tid]' },
          ],
        },
      }),
    );
    const r = await run(auth, claims({ roles: ['admin', 'dev'], oid: 'u-42', tenant: 't1', tid: 'x9' }));
    expect(r).toEqual({
      outcome: 'user',
      user: {
        username: 'cel:alice',
        uid: 'u-42',
        groups: ['role:admin', 'role:dev'],
        extra: { 'example.svc.io/tenant': ['t1'], 'example.svc.io/list': ['a', 'b'], 'example.svc.io/tid': ['x9'] },
      },
      detail: `JWT from ${issuer.url}`,
    });
  });

  it('maps uid from a claim and requires it to be present', async () => {
    const auth = authenticatorFor(config({ claimMappings: { username: { claim: 'sub', prefix: '' }, uid: { claim: 'oid' } } }));
    expect(await run(auth, claims({ oid: 'u1' }))).toMatchObject({ outcome: 'user', user: { username: 'alice', uid: 'u1', groups: [] } });
    expect(await run(auth, claims())).toEqual({ outcome: 'reject', reason: 'claim "oid" not present' });
  });

  it('rejects an empty username and a username expression of the wrong runtime type', async () => {
    const empty = authenticatorFor(config({ claimMappings: { username: { expression: 'claims.sub' } } }));
    expect(await run(empty, claims({ sub: '' }))).toEqual({ outcome: 'reject', reason: 'username is empty' });
    expect(await run(empty, claims({ sub: 7 }))).toEqual({ outcome: 'reject', reason: 'username expression result must be a string' });
  });

  it('applies claim validation rules: claim with requiredValue, and expressions with messages', async () => {
    const auth = authenticatorFor(
      config({
        claimValidationRules: [
          { claim: 'hd', requiredValue: 'example.com' },
          { expression: 'claims.exp - claims.iat <= 3600', message: 'token lifetime is over an hour' },
        ],
      }),
    );
    const iat = now();
    expect((await run(auth, claims({ hd: 'example.com', iat }))).outcome).toBe('user');
    expect(await run(auth, claims({ iat }))).toEqual({ outcome: 'reject', reason: 'required claim "hd" not present' });
    expect(await run(auth, claims({ hd: 'evil.com', iat }))).toEqual({
      outcome: 'reject',
      reason: 'required claim "hd" value does not match, want "example.com"',
    });
    expect(await run(auth, claims({ hd: 'example.com', iat: iat - 7200 }))).toEqual({
      outcome: 'reject',
      reason: 'token lifetime is over an hour',
    });
    const r = await run(auth, claims({ hd: 'example.com' }));
    expect(r.outcome === 'reject' && r.reason).toMatch(/^jwt\[0\]\.claimValidationRules\[1\]\.expression: .*iat/);
  });

  it('requires an empty claim when requiredValue is empty', async () => {
    const auth = authenticatorFor(config({ claimValidationRules: [{ claim: 'flag' }] }));
    expect((await run(auth, claims({ flag: '' }))).outcome).toBe('user');
    expect((await run(auth, claims({ flag: 'x' }))).outcome).toBe('reject');
  });

  it('applies user validation rules over the mapped user', async () => {
    const auth = authenticatorFor(
      config({
        userValidationRules: [
          { expression: "!user.username.startsWith('oidc:system:')", message: 'username must not start with system:' },
          { expression: "user.groups.all(g, g != 'oidc:banned')" },
        ],
      }),
    );
    expect((await run(auth, claims())).outcome).toBe('user');
    expect(await run(auth, claims({ sub: 'system:admin' }))).toEqual({ outcome: 'reject', reason: 'username must not start with system:' });
    expect(await run(auth, claims({ groups: ['oidc-x', 'banned'] }))).toEqual({
      outcome: 'reject',
      reason: "user validation rule failed: user.groups.all(g, g != 'oidc:banned')",
    });
  });

  it('with username from the email claim, requires email_verified to be true when present', async () => {
    const auth = authenticatorFor(config({ claimMappings: { username: { claim: 'email', prefix: '' } } }));
    expect(await run(auth, claims({ email: 'a@example.com', email_verified: true }))).toMatchObject({
      outcome: 'user',
      user: { username: 'a@example.com' },
    });
    expect(await run(auth, claims({ email: 'a@example.com' }))).toMatchObject({ outcome: 'user' });
    expect(await run(auth, claims({ email: 'a@example.com', email_verified: false }))).toEqual({
      outcome: 'reject',
      reason: 'email not verified',
    });
    expect(await run(auth, claims({ email: 'a@example.com', email_verified: 'true' }))).toEqual({
      outcome: 'reject',
      reason: 'claim "email_verified" must be a boolean',
    });
  });

  it('runs an email username expression that consults email_verified', async () => {
    const auth = authenticatorFor(
      config({
        claimMappings: { username: { expression: 'claims.email' } },
        claimValidationRules: [{ expression: 'claims.?email_verified.orValue(true) == true', message: 'email not verified' }],
      }),
    );
    expect((await run(auth, claims({ email: 'b@example.com' }))).outcome).toBe('user');
    expect(await run(auth, claims({ email: 'b@example.com', email_verified: false }))).toEqual({
      outcome: 'reject',
      reason: 'email not verified',
    });
  });
});

describe('loading: every expression is compiled when the configuration is loaded', () => {
  function loadError(c: JWTAuthenticator): AuthConfigError {
    try {
      authenticatorFor(c);
    } catch (e) {
      if (e instanceof AuthConfigError) return e;
      throw e;
    }
    throw new Error('expected an AuthConfigError');
  }

  it.each([
    [
      'a syntax error',
      { claimMappings: { username: { expression: 'claims.sub +' } } },
      'jwt[0].claimMappings.username.expression',
      /compilation failed/,
    ],
    [
      'an undeclared variable',
      { claimMappings: { username: { expression: 'user.username' } } },
      'jwt[0].claimMappings.username.expression',
      /Unknown variable: user/,
    ],
    [
      'a wrong result type',
      { claimMappings: { username: { expression: 'claims.sub == "x"' } } },
      'jwt[0].claimMappings.username.expression',
      /must evaluate to string, but evaluates to bool/,
    ],
    [
      'groups of a wrong type',
      { claimMappings: { username: { claim: 'sub', prefix: '' }, groups: { expression: '1' } } },
      'jwt[0].claimMappings.groups.expression',
      /must evaluate to string or list<string>/,
    ],
    [
      'a non-bool claim rule',
      { claimValidationRules: [{ expression: 'claims.sub' }, { expression: '"x"' }] },
      'jwt[0].claimValidationRules[1].expression',
      /must evaluate to bool, but evaluates to string/,
    ],
    [
      'claims in a user rule',
      { userValidationRules: [{ expression: 'claims.sub == ""' }] },
      'jwt[0].userValidationRules[0].expression',
      /Unknown variable: claims/,
    ],
    [
      'a typo in a user field',
      { userValidationRules: [{ expression: 'user.usrname == ""' }] },
      'jwt[0].userValidationRules[0].expression',
      /usrname/,
    ],
    [
      'an extra of the wrong type',
      { claimMappings: { username: { claim: 'sub', prefix: '' }, extra: [{ key: 'a.io/b', valueExpression: '{"a": 1}' }] } },
      'jwt[0].claimMappings.extra[0].valueExpression',
      /must evaluate to/,
    ],
    [
      'a duplicate extra key',
      {
        claimMappings: {
          username: { claim: 'sub', prefix: '' },
          extra: [
            { key: 'a.io/b', valueExpression: '"1"' },
            { key: 'a.io/b', valueExpression: '"2"' },
          ],
        },
      },
      'jwt[0].claimMappings.extra[1].key',
      /duplicate key/,
    ],
    [
      'an uppercase extra key',
      { claimMappings: { username: { claim: 'sub', prefix: '' }, extra: [{ key: 'A.io/b', valueExpression: '"1"' }] } },
      'jwt[0].claimMappings.extra[0].key',
      /lowercase/,
    ],
    [
      'a claim without prefix',
      { claimMappings: { username: { claim: 'sub' } } },
      'jwt[0].claimMappings.username.prefix',
      /required when claim is set/,
    ],
    [
      'claim and expression together',
      { claimMappings: { username: { claim: 'sub', prefix: '', expression: 'claims.sub' } } },
      'jwt[0].claimMappings.username',
      /mutually exclusive/,
    ],
    ['neither claim nor expression', { claimMappings: { username: {} } }, 'jwt[0].claimMappings.username', /either claim or expression/],
    [
      'a rule with claim and expression',
      { claimValidationRules: [{ claim: 'a', expression: 'true' }] },
      'jwt[0].claimValidationRules[0]',
      /mutually exclusive/,
    ],
    [
      'email without email_verified',
      { claimMappings: { username: { expression: 'claims.email' } } },
      'jwt[0].claimMappings.username.expression',
      /claims.email_verified must be used/,
    ],
    [
      'email via index without email_verified',
      { claimMappings: { username: { expression: "claims['email']" } } },
      'jwt[0].claimMappings.username.expression',
      /claims.email_verified must be used/,
    ],
    [
      'email_verified only inside a string literal',
      { claimMappings: { username: { expression: 'claims.email + "claims.email_verified"' } } },
      'jwt[0].claimMappings.username.expression',
      /claims.email_verified must be used/,
    ],
    ['an http issuer', { issuer: { url: 'http://insecure.example', audiences: ['a'] } }, 'jwt[0].issuer.url', /https/],
    [
      'discoveryURL equal to url',
      { issuer: { url: 'https://x.example', audiences: ['a'], discoveryURL: 'https://x.example/' } },
      'jwt[0].issuer.discoveryURL',
      /different from url/,
    ],
    [
      'two audiences without MatchAny',
      { issuer: { url: 'https://x.example', audiences: ['a', 'b'] } },
      'jwt[0].issuer.audienceMatchPolicy',
      /MatchAny/,
    ],
  ] as [string, Partial<JWTAuthenticator>, string, RegExp][])('rejects %s naming the field', (_name, change, path, detail) => {
    const e = loadError(config(change));
    expect(e.path).toBe(path);
    expect(e.detail).toMatch(detail);
    expect(e.message.startsWith(`${path}: `)).toBe(true);
  });

  it('accepts email with email_verified in the username expression, an extra mapping or a claim rule', () => {
    for (const c of [
      { claimMappings: { username: { expression: 'claims.email_verified ? claims.email : ""' } } },
      {
        claimMappings: {
          username: { expression: 'claims.email' },
          extra: [{ key: 'a.io/v', valueExpression: 'string(claims.email_verified)' }],
        },
      },
      {
        claimMappings: { username: { expression: 'claims.email' } },
        claimValidationRules: [{ expression: 'claims.?email_verified.orValue(true)' }],
      },
    ] as Partial<JWTAuthenticator>[]) {
      expect(() => authenticatorFor(config(c))).not.toThrow();
    }
  });

  it('rejects duplicate issuers across authenticators', () => {
    const doc = { jwt: [config(), config()] };
    expect(() => loadJwtAuthenticators(doc)).toThrow('jwt[1].issuer.url: duplicate issuer URL (also jwt[0].issuer.url)');
  });
});

describe('JWT authenticators in the chain', () => {
  it('fails an invalid JWT with 401 even when anonymous is enabled', async () => {
    const chain = new AuthenticatorChain(loadJwtAuthenticators({ jwt: [config()] }), { anonymous: true });
    const r = await chain.authenticate({ bearerToken: await issuer.sign(claims({ exp: now() - 10 })) });
    expect(r).toMatchObject({ authenticated: false, status: 401, message: 'Unauthorized: jwt[0]: token has expired' });
    const ok = await chain.authenticate({ bearerToken: await issuer.sign(claims()) });
    expect(ok).toMatchObject({
      authenticated: true,
      user: { username: 'oidc:alice', groups: ['oidc:devs', 'system:authenticated'] },
      explanation: { authenticator: 'jwt[0]' },
    });
  });
});
