import { describe, expect, it } from 'vitest';
import { requestAttributes } from './attributes.js';

type Row = [method: string, url: string, expected: Partial<ReturnType<typeof requestAttributes>>];

const RESOURCE_ROWS: Row[] = [
  ['GET', '/api/v1/namespaces', { verb: 'list', apiGroup: '', apiVersion: 'v1', resource: 'namespaces', namespace: '', name: '' }],
  ['GET', '/api/v1/namespaces/other', { verb: 'get', resource: 'namespaces', name: 'other', namespace: 'other' }],
  [
    'PUT',
    '/api/v1/namespaces/other/status',
    { verb: 'update', resource: 'namespaces', name: 'other', subresource: 'status', namespace: 'other' },
  ],
  ['PUT', '/api/v1/namespaces/other/finalize', { verb: 'update', resource: 'namespaces', subresource: 'finalize' }],
  ['GET', '/api/v1/pods', { verb: 'list', resource: 'pods', namespace: '' }],
  ['GET', '/api/v1/pods?watch=true', { verb: 'watch', resource: 'pods' }],
  ['GET', '/api/v1/pods?watch=1', { verb: 'watch' }],
  ['GET', '/api/v1/pods?watch=false', { verb: 'list' }],
  ['GET', '/api/v1/pods?watch=yes', { verb: 'watch' }],
  ['GET', '/api/v1/pods?watch=FALSE', { verb: 'list' }],
  ['GET', '/api/v1/pods?watch=0', { verb: 'list' }],
  ['GET', '/api/v1/pods?watch=', { verb: 'watch' }],
  ['GET', '/api/v1/watch/namespaces/ns/pods/p1/status', { verb: 'watch', name: 'p1', subresource: 'status' }],
  ['GET', '/api/v1/namespaces/ns/pods', { verb: 'list', namespace: 'ns', resource: 'pods' }],
  ['GET', '/api/v1/namespaces/ns/pods/p1', { verb: 'get', namespace: 'ns', resource: 'pods', name: 'p1' }],
  ['HEAD', '/api/v1/namespaces/ns/pods/p1', { verb: 'get' }],
  ['POST', '/api/v1/namespaces/ns/pods', { verb: 'create', name: '' }],
  ['PUT', '/api/v1/namespaces/ns/pods/p1', { verb: 'update', name: 'p1' }],
  ['PATCH', '/api/v1/namespaces/ns/pods/p1', { verb: 'patch' }],
  ['DELETE', '/api/v1/namespaces/ns/pods/p1', { verb: 'delete', name: 'p1' }],
  ['DELETE', '/api/v1/namespaces/ns/pods', { verb: 'deletecollection', name: '' }],
  ['GET', '/api/v1/namespaces/ns/pods/p1/log', { verb: 'get', subresource: 'log', name: 'p1' }],
  ['PUT', '/api/v1/namespaces/ns/pods/p1/status', { verb: 'update', subresource: 'status', resource: 'pods' }],
  [
    'GET',
    '/apis/apps.svc.io/v1/namespaces/ns/deployments/d/scale',
    { apiGroup: 'apps.svc.io', apiVersion: 'v1', resource: 'deployments', subresource: 'scale', name: 'd' },
  ],
  ['GET', '/apis/apps.svc.io/v1/deployments', { verb: 'list', apiGroup: 'apps.svc.io', resource: 'deployments' }],
  [
    'GET',
    '/apis/rbac.authorization.svc.io/v1/clusterroles/admin',
    { verb: 'get', apiGroup: 'rbac.authorization.svc.io', resource: 'clusterroles', name: 'admin', namespace: '' },
  ],
  ['GET', '/api/v1/watch/namespaces/ns/pods', { verb: 'watch', resource: 'pods', namespace: 'ns' }],
  ['GET', '/api/v1/watch/pods/p1', { verb: 'watch', resource: 'pods', name: 'p1' }],
  ['GET', '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dp1', { verb: 'list', name: 'p1' }],
  ['GET', '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3D%3Dp1,status.phase%3DRunning&watch=1', { verb: 'watch', name: 'p1' }],
  ['GET', '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name!%3Dp1', { verb: 'list', name: '' }],
  ['GET', '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3D..', { verb: 'list', name: '' }],
  ['DELETE', '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dp1', { verb: 'deletecollection', name: '' }],
  ['GET', '/api/v1/namespaces/ns/pods/p1/proxy/some/path', { verb: 'get', subresource: 'proxy', name: 'p1' }],
  ['GET', '/api/v1/proxy/namespaces/ns/pods/p1/some/path', { verb: 'proxy', resource: 'pods', name: 'p1', subresource: '' }],
  ['OPTIONS', '/api/v1/pods/p1', { verb: '', resource: 'pods' }],
  ['GET', '/api/v1/namespaces/', { verb: 'list', resource: 'namespaces' }],
];

const NON_RESOURCE_ROWS: Row[] = [
  ['GET', '/healthz', { verb: 'get' }],
  ['GET', '/healthz/ready', { verb: 'get' }],
  ['GET', '/version', { verb: 'get' }],
  ['GET', '/apis', { verb: 'get' }],
  ['GET', '/api', { verb: 'get' }],
  ['GET', '/api/v1', { verb: 'get' }],
  ['GET', '/apis/apps.svc.io', { verb: 'get' }],
  ['GET', '/apis/apps.svc.io/v1', { verb: 'get' }],
  ['GET', '/api/v1/watch', { verb: 'get' }],
  ['POST', '/metrics', { verb: 'post' }],
  ['GET', '/', { verb: 'get' }],
  ['GET', '/openapi/v3/apis/apps.svc.io/v1', { verb: 'get' }],
];

function attrs(method: string, url: string) {
  const [path, query = ''] = url.split('?') as [string, string?];
  return requestAttributes(method, path, query);
}

describe('requestAttributes', () => {
  it.each(RESOURCE_ROWS)('%s %s is a resource request', (method, url, expected) => {
    const a = attrs(method, url);
    expect(a.isResourceRequest).toBe(true);
    expect(a).toMatchObject(expected);
  });

  it.each(NON_RESOURCE_ROWS)('%s %s is a non-resource request', (method, url, expected) => {
    const a = attrs(method, url);
    expect(a.isResourceRequest).toBe(false);
    expect(a).toMatchObject({ ...expected, path: url, resource: '', namespace: '', apiGroup: '' });
  });

  it('accepts URLSearchParams and a leading question mark', () => {
    expect(requestAttributes('GET', '/api/v1/pods', new URLSearchParams({ watch: 'true' })).verb).toBe('watch');
    expect(requestAttributes('GET', '/api/v1/pods', '?watch=true').verb).toBe('watch');
  });
});
