import { describe, expect, it } from 'vitest';
import {
  type PathError,
  type ResourcePath,
  type ResourceResolver,
  isPathError,
  parseDiscoveryPath,
  parseResourcePath,
  pathFor,
} from './index.js';

// A small catalogue: core namespaces (cluster, with status and finalize), pods and configmaps
// (namespaced), nodes (cluster); apps deployments (namespaced); rbac clusterroles (cluster).
const CATALOGUE: Record<string, { namespaced: boolean; subresources?: string[] }> = {
  '/v1/namespaces': { namespaced: false, subresources: ['status', 'finalize'] },
  '/v1/pods': { namespaced: true, subresources: ['status', 'log', 'eviction', 'proxy'] },
  '/v1/configmaps': { namespaced: true },
  '/v1/nodes': { namespaced: false, subresources: ['status', 'proxy'] },
  'apps/v1/deployments': { namespaced: true, subresources: ['status', 'scale'] },
  'rbac.svc.io/v1/clusterroles': { namespaced: false },
};
const resolve: ResourceResolver = (group, version, resource) => CATALOGUE[`${group}/${version}/${resource}`];

function pathError(path: string): PathError {
  try {
    parseResourcePath(path, resolve);
  } catch (e) {
    if (isPathError(e)) return e;
    throw e;
  }
  throw new Error(`${path} parsed`);
}

// Every shape of the spec's path table, for the core group and a named group.
describe('parseResourcePath and pathFor', () => {
  it.each<[string, ResourcePath]>([
    // cluster-scoped: collection, one resource, subresource
    ['/apis/rbac.svc.io/v1/clusterroles', { group: 'rbac.svc.io', version: 'v1', resource: 'clusterroles' }],
    ['/apis/rbac.svc.io/v1/clusterroles/admin', { group: 'rbac.svc.io', version: 'v1', resource: 'clusterroles', name: 'admin' }],
    ['/api/v1/nodes', { group: '', version: 'v1', resource: 'nodes' }],
    ['/api/v1/nodes/node-1', { group: '', version: 'v1', resource: 'nodes', name: 'node-1' }],
    ['/api/v1/nodes/node-1/status', { group: '', version: 'v1', resource: 'nodes', name: 'node-1', subresource: 'status' }],
    // namespaced: across all namespaces, in one namespace, one resource, subresource
    ['/apis/apps/v1/deployments', { group: 'apps', version: 'v1', resource: 'deployments' }],
    ['/apis/apps/v1/namespaces/prod/deployments', { group: 'apps', version: 'v1', namespace: 'prod', resource: 'deployments' }],
    [
      '/apis/apps/v1/namespaces/prod/deployments/web',
      { group: 'apps', version: 'v1', namespace: 'prod', resource: 'deployments', name: 'web' },
    ],
    [
      '/apis/apps/v1/namespaces/prod/deployments/web/scale',
      { group: 'apps', version: 'v1', namespace: 'prod', resource: 'deployments', name: 'web', subresource: 'scale' },
    ],
    ['/api/v1/pods', { group: '', version: 'v1', resource: 'pods' }],
    ['/api/v1/namespaces/default/pods', { group: '', version: 'v1', namespace: 'default', resource: 'pods' }],
    ['/api/v1/namespaces/default/pods/web-0', { group: '', version: 'v1', namespace: 'default', resource: 'pods', name: 'web-0' }],
    [
      '/api/v1/namespaces/default/pods/web-0/log',
      { group: '', version: 'v1', namespace: 'default', resource: 'pods', name: 'web-0', subresource: 'log' },
    ],
    // namespaces themselves: the collection, one namespace, its subresources
    ['/api/v1/namespaces', { group: '', version: 'v1', resource: 'namespaces' }],
    ['/api/v1/namespaces/prod', { group: '', version: 'v1', resource: 'namespaces', name: 'prod' }],
    ['/api/v1/namespaces/prod/status', { group: '', version: 'v1', resource: 'namespaces', name: 'prod', subresource: 'status' }],
    ['/api/v1/namespaces/prod/finalize', { group: '', version: 'v1', resource: 'namespaces', name: 'prod', subresource: 'finalize' }],
    // a namespace named like a resource is still a namespace
    ['/api/v1/namespaces/pods', { group: '', version: 'v1', resource: 'namespaces', name: 'pods' }],
    ['/api/v1/namespaces/status/pods', { group: '', version: 'v1', namespace: 'status', resource: 'pods' }],
    // proxy paths keep what follows the subresource
    [
      '/api/v1/namespaces/default/pods/web-0/proxy/metrics/raw',
      { group: '', version: 'v1', namespace: 'default', resource: 'pods', name: 'web-0', subresource: 'proxy', subpath: 'metrics/raw' },
    ],
    // names are percent-decoded
    [
      '/api/v1/namespaces/default/configmaps/a%3Ab',
      { group: '', version: 'v1', namespace: 'default', resource: 'configmaps', name: 'a:b' },
    ],
  ])('%s', (path, expected) => {
    expect(parseResourcePath(path, resolve)).toEqual(expected);
    expect(pathFor(expected)).toBe(path);
  });

  it('ignores a query string and one trailing slash', () => {
    expect(parseResourcePath('/api/v1/namespaces/default/pods?watch=1&resourceVersion=10', resolve)).toEqual({
      group: '',
      version: 'v1',
      namespace: 'default',
      resource: 'pods',
    });
    expect(parseResourcePath('/api/v1/pods/', resolve)).toEqual({ group: '', version: 'v1', resource: 'pods' });
  });

  it('round-trips names that need encoding', () => {
    const p: ResourcePath = { group: '', version: 'v1', namespace: 'a b', resource: 'configmaps', name: 'x/y%z' };
    expect(pathFor(p)).toBe('/api/v1/namespaces/a%20b/configmaps/x%2Fy%25z');
    expect(parseResourcePath(pathFor(p), resolve)).toEqual(p);
  });

  it('refuses a subresource without a name', () => {
    expect(() => pathFor({ group: '', version: 'v1', resource: 'pods', subresource: 'status' })).toThrow(RangeError);
  });
});

describe('paths that name no served resource (404)', () => {
  it.each<[string, string]>([
    ['/api/v1/widgets', 'resource "widgets" is not served in v1'],
    ['/apis/apps/v1/pods', 'resource "pods" is not served in apps/v1'],
    ['/apis/apps/v1/namespaces/prod', 'resource "namespaces" is not served in apps/v1'],
    ['/api/v2/pods', 'resource "pods" is not served in v2'],
    ['/api/v1/pods/web-0', 'v1/pods is namespaced; its objects are at /api/v1/namespaces/<namespace>/pods/<name>'],
    [
      '/apis/apps/v1/deployments/web',
      'apps/v1/deployments is namespaced; its objects are at /apis/apps/v1/namespaces/<namespace>/deployments/<name>',
    ],
    ['/api/v1/namespaces/default/nodes', 'v1/nodes is cluster-scoped; its objects are at /api/v1/nodes/<name>'],
    ['/api/v1/namespaces/default/pods/web-0/exec', 'v1/pods has no subresource "exec"; it has status, log, eviction, proxy'],
    ['/api/v1/namespaces/default/configmaps/c/status', 'v1/configmaps has no subresource "status"; it has none'],
    ['/api/v1/namespaces/prod/widgets', 'resource "widgets" is not served in v1'],
    ['/healthz', 'resource paths start with /api/<version> or /apis/<group>/<version>'],
    ['/api/v1', 'no resource named; expected /api/v1/<resource> (this is a discovery path)'],
    ['/apis/apps', 'no resource named; expected /apis/apps/<version>/<resource> (this is a discovery path)'],
  ])('%s', (path, detail) => {
    const e = pathError(path);
    expect(e.name).toBe('PathError');
    expect(e.reason).toBe('not-found');
    expect(e.detail).toBe(detail);
    const status = e.toStatusError();
    expect(status.code).toBe(404);
    expect(status.reason).toBe('NotFound');
    expect(status.message).toBe(`the server could not find the requested resource: ${detail}`);
  });
});

describe('malformed paths (400)', () => {
  it.each<[string, string]>([
    ['api/v1/pods', "must start with '/'"],
    ['/api//pods', 'segment 2 is empty'],
    ['/api/v1/namespaces//pods', 'segment 4 is empty'],
    ['/api/v1/namespaces/default/pods/%E0%A4%A', 'segment "%E0%A4%A" has an invalid percent-encoding'],
    ['/api/v1/namespaces/default/pods/..', 'segment ".." is not allowed'],
    ['/api/v1/namespaces/%2E/pods', 'segment "." is not allowed'],
  ])('%s', (path, detail) => {
    const e = pathError(path);
    expect(e.reason).toBe('malformed');
    expect(e.detail).toBe(detail);
    expect(e.toStatusError().code).toBe(400);
    expect(e.message).toBe(`malformed path ${JSON.stringify(path)}: ${detail}`);
  });
});

describe('parseDiscoveryPath', () => {
  it.each([
    ['/api', { root: 'api' }],
    ['/api/v1', { root: 'api', group: '', version: 'v1' }],
    ['/apis', { root: 'apis' }],
    ['/apis/', { root: 'apis' }],
    ['/apis/apps', { root: 'apis', group: 'apps' }],
    ['/apis/apps/v1', { root: 'apis', group: 'apps', version: 'v1' }],
    ['/api/v1/pods', undefined],
    ['/apis/apps/v1/deployments', undefined],
    ['/version', undefined],
  ])('%s', (path, expected) => {
    expect(parseDiscoveryPath(path)).toEqual(expected);
  });
});
