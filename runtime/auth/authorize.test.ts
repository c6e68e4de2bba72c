import { describe, expect, it } from 'vitest';
import { requestAttributes } from './attributes.js';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, type Authorizer, AuthorizerChain, forbiddenMessage } from './authorize.js';
import type { UserInfo } from './user.js';

const user: UserInfo = { username: 'alice', groups: [], extra: {} };
const attributes = requestAttributes('GET', '/api/v1/namespaces/ns/pods');
const noOpinion: Authorizer = { name: 'shrug', authorize: () => ({ decision: 'NoOpinion', reason: 'not mine' }) };
const throwing: Authorizer = {
  name: 'broken',
  authorize: () => {
    throw new Error('boom');
  },
};

describe('AuthorizerChain', () => {
  it('the first Allow wins and later authorizers are not asked', async () => {
    const r = await new AuthorizerChain([noOpinion, new AlwaysAllowAuthorizer(), new AlwaysDenyAuthorizer()]).authorize({
      user,
      attributes,
    });
    expect(r).toEqual({
      allowed: true,
      decision: 'Allow',
      authorizer: 'always-allow',
      reason: 'AlwaysAllow allows every request',
      steps: [
        { authorizer: 'shrug', decision: 'NoOpinion', reason: 'not mine' },
        { authorizer: 'always-allow', decision: 'Allow', reason: 'AlwaysAllow allows every request' },
      ],
    });
  });

  it('the first Deny wins over a later Allow', async () => {
    const r = await new AuthorizerChain([new AlwaysDenyAuthorizer('lock'), new AlwaysAllowAuthorizer()]).authorize({ user, attributes });
    expect(r).toMatchObject({ allowed: false, decision: 'Deny', authorizer: 'lock', steps: [{ authorizer: 'lock' }] });
  });

  it('forbids when nobody has an opinion, and a throwing authorizer has none', async () => {
    const r = await new AuthorizerChain([throwing, noOpinion]).authorize({ user, attributes });
    expect(r).toMatchObject({ allowed: false, decision: 'NoOpinion', reason: 'authorizer failed (boom)\nnot mine' });
    expect(r.authorizer).toBeUndefined();
  });

  it('an empty chain forbids', async () => {
    expect(await new AuthorizerChain([]).authorize({ user, attributes })).toMatchObject({
      allowed: false,
      reason: 'no authorizer configured',
    });
  });
});

describe('forbiddenMessage', () => {
  it.each([
    ['GET', '/api/v1/namespaces/ns/pods', 'User "alice" cannot list resource "pods" in API group "" in the namespace "ns"'],
    [
      'PUT',
      '/apis/apps.svc.io/v1/deployments/d/status',
      'User "alice" cannot update resource "deployments/status" in API group "apps.svc.io" at the cluster scope',
    ],
    ['GET', '/healthz', 'User "alice" cannot get path "/healthz"'],
  ])('%s %s', (method, path, message) => {
    expect(forbiddenMessage(user, requestAttributes(method, path), '')).toBe(message);
    expect(forbiddenMessage(user, requestAttributes(method, path), 'why')).toBe(`${message}: why`);
  });
});
