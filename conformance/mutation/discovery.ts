/**
 * Faults of the clients profile's discovery scenarios (conformance/scenarios/clients/discovery.yaml):
 * each makes a correct server answer the documents kubectl and Helm read first as a server without
 * aggregated discovery, or with the spec's every version in OpenAPI, would.
 */
import { isObject } from '../json.js';
import { editJson, textOf, withJson } from './edits.js';
import type { Mutation } from './types.js';

export const DISCOVERY_MUTATIONS: readonly Mutation[] = [
  {
    id: 'aggregated-discovery-unknown',
    description: 'ignores the aggregated discovery types in Accept: /api and /apis answer the plain APIVersions and APIGroupList',
    rule: 'upstream-parity.md#Clients: aggregated discovery',
    caughtBy: ['core/clients/aggregated-discovery-*'],
    match: { method: 'GET', path: /^\/apis?$/, headers: { accept: /apidiscovery/ } },
    request: (req) => {
      req.headers.accept = ['application/json'];
      return true;
    },
  },
  {
    id: 'aggregated-discovery-flat-subresources',
    description: 'lists subresources as resources of their own (`pods/eviction`) instead of nesting them under their resource',
    rule: 'upstream-parity.md#Clients: aggregated discovery',
    caughtBy: ['core/clients/aggregated-discovery-*'],
    match: { method: 'GET', path: /^\/apis?$/, headers: { accept: /apidiscovery/ } },
    response: (r) =>
      editJson(r, (body) => {
        if (!Array.isArray(body.items)) return false;
        for (const group of body.items) {
          if (!isObject(group) || !Array.isArray(group.versions)) continue;
          for (const version of group.versions) {
            if (!isObject(version) || !Array.isArray(version.resources)) continue;
            version.resources = version.resources.flatMap((resource) => {
              if (!isObject(resource) || !Array.isArray(resource.subresources)) return [resource];
              const { subresources, ...parent } = resource;
              return [
                parent,
                ...subresources.map((s) => ({
                  ...parent,
                  ...(isObject(s) ? s : {}),
                  resource: `${parent.resource}/${isObject(s) ? s.subresource : ''}`,
                })),
              ];
            });
          }
        }
        return true;
      }),
  },
  {
    id: 'openapi-v3-every-spec-version',
    description:
      'publishes an OpenAPI v3 document for every version of the spec: batch/v1beta1, which discovery does not serve, is listed and answered',
    rule: 'upstream-parity.md#Clients: openapi served versions',
    caughtBy: ['core/clients/openapi-v3-served-only'],
    match: { method: 'GET', path: /^\/openapi\/v3(\/apis\/batch\/v1beta1)?$/ },
    response: (r) => {
      if (r.status === 404) return withJson(r, { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.30.0' }, paths: {} }, 200);
      return editJson(r, (body) => {
        if (!isObject(body.paths)) return false;
        body.paths['apis/batch/v1beta1'] = { serverRelativeURL: '/openapi/v3/apis/batch/v1beta1?hash=0' };
        return true;
      });
    },
  },
  {
    id: 'openapi-v2-v3-names',
    description:
      "writes /openapi/v2 with the v3 documents' component names (`apps.v1.Deployment`) instead of the Go package names kube-openapi gives definitions",
    rule: 'upstream-parity.md#Clients: openapi v2',
    caughtBy: ['core/clients/openapi-v2-swagger'],
    match: { method: 'GET', path: /^\/openapi\/v2$/ },
    response: (r) => {
      const text = textOf(r);
      if (!r.headers['content-type']?.[0]?.startsWith('application/json') || !text.includes('io.k8s.api.')) return undefined;
      return withJson(r, JSON.parse(text.replaceAll('io.k8s.api.', '').replaceAll('io.k8s.apimachinery.pkg.apis.meta.', 'meta.')));
    },
  },
];
