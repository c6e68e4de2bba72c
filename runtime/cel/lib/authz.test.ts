import { describe, expect, it } from 'vitest';
import { compileExpression } from '../compile.js';
import { AUTHORIZER_TYPE, type AuthorizationAttributes, type AuthorizerBinding } from './authz.js';

/** Allows reading pods in namespace "dev" and GET on /healthz; records what was asked. */
function fakeAuthorizer(): AuthorizerBinding & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    check(a) {
      asked.push(a);
      if (a.resourceRequest) {
        const ok = a.resource === 'pods' && a.namespace === 'dev' && a.verb === 'get';
        return { allowed: ok, reason: ok ? 'rbac: allowed' : 'rbac: no rule' };
      }
      const ok = a.path === '/healthz' && a.verb === 'get';
      return { allowed: ok, reason: ok ? '' : 'not allowed' };
    },
  };
}

const run = (expr: string, authorizer: AuthorizerBinding): unknown =>
  compileExpression(expr, { variables: { authorizer: AUTHORIZER_TYPE } }).evaluate({ authorizer });

describe('authorizer library', () => {
  it('group().resource() with namespace, then check(verb)', () => {
    const a = fakeAuthorizer();
    expect(run("authorizer.group('').resource('pods').namespace('dev').check('get').allowed()", a)).toBe(true);
    expect(run("authorizer.group('').resource('pods').namespace('prod').check('get').allowed()", a)).toBe(false);
    expect(run("authorizer.group('').resource('pods').namespace('prod').check('get').reason()", a)).toBe('rbac: no rule');
    expect(a.asked[0]).toEqual({ verb: 'get', resourceRequest: true, group: '', resource: 'pods', namespace: 'dev' });
  });

  it('subresource and name are passed on', () => {
    const a = fakeAuthorizer();
    run("authorizer.group('apps').resource('deployments').subresource('scale').namespace('dev').name('web').check('update').allowed()", a);
    expect(a.asked[0]).toMatchObject({
      group: 'apps',
      resource: 'deployments',
      subresource: 'scale',
      namespace: 'dev',
      name: 'web',
      verb: 'update',
    });
  });

  it('path(p).check(httpVerb) lower-cases the verb', () => {
    const a = fakeAuthorizer();
    expect(run("authorizer.path('/healthz').check('GET').allowed()", a)).toBe(true);
    expect(run("authorizer.path('/metrics').check('GET').allowed()", a)).toBe(false);
    expect(a.asked[0]).toEqual({ verb: 'get', resourceRequest: false, path: '/healthz' });
  });

  it('serviceAccount(ns, name) asks as that service account', () => {
    const a = fakeAuthorizer();
    run("authorizer.serviceAccount('kube-system', 'builder').group('').resource('pods').check('list').allowed()", a);
    expect(a.asked[0]?.user).toEqual({
      name: 'system:serviceaccount:kube-system:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    });
  });

  it('a failing authorizer gives a denied, errored decision', () => {
    const broken: AuthorizerBinding = {
      check: () => {
        throw new Error('webhook down');
      },
    };
    expect(run("authorizer.path('/x').check('get').allowed()", broken)).toBe(false);
    expect(run("authorizer.path('/x').check('get').errored()", broken)).toBe(true);
    expect(() => compileExpression("authorizer.group('').check('get')", { variables: { authorizer: AUTHORIZER_TYPE } })).toThrow(
      /no matching overload/,
    );
  });
});
