/**
 * Faults of the clients profile's second part (conformance/scenarios/clients/apis2.yaml): a server
 * with no aggregation registry of its own, and one whose eviction deletes without consulting the
 * pod's disruption budget (svckit before issue 23).
 */
import { isObject } from '../json.js';
import { editJson, jsonOf, sentObject, withJson } from './edits.js';
import type { Mutation } from './types.js';

export const SERVED_APIS2_MUTATIONS: readonly Mutation[] = [
  {
    id: 'apiservice-create-twice',
    description: 'answers a second create of an APIService 201 with the object sent, instead of 409',
    rule: 'upstream-parity.md#Clients: api services',
    caughtBy: ['core/clients/apiservice-create-conflict'],
    match: { method: 'POST', path: /\/apiservices$/ },
    response: (r, { request }) => {
      const sent = sentObject(request);
      return r.status === 409 && sent ? withJson(r, sent, 201) : undefined;
    },
  },
  {
    id: 'apiservice-no-local-registrations',
    description: 'keeps no local APIService for the groups it serves (no autoregister controller): v1.apps is 404',
    rule: 'upstream-parity.md#Clients: api services',
    caughtBy: ['core/clients/apiservice-local'],
    match: { method: 'GET', path: /\/apiservices\/v1\.apps$/ },
    response: (r) =>
      withJson(
        r,
        {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'apiservices.apiregistration.k8s.io "v1.apps" not found',
          reason: 'NotFound',
          details: { name: 'v1.apps', group: 'apiregistration.k8s.io', kind: 'apiservices' },
          code: 404,
        },
        404,
      ),
  },
  {
    id: 'eviction-ignores-budgets',
    description: 'carries out an eviction as a plain delete of the pod, whatever its disruption budget allows',
    rule: 'upstream-parity.md#Clients: eviction and disruption budgets',
    caughtBy: ['core/clients/eviction-budget-*'],
    match: { method: 'POST', path: /\/pods\/[^/]+\/eviction$/ },
    request: (req) => {
      req.method = 'DELETE';
      req.path = req.path.replace(/\/eviction$/, '');
      req.body = Buffer.alloc(0);
      return true;
    },
  },
  {
    id: 'podtemplate-delete-answers-status',
    description: 'answers the delete of a PodTemplate with a Success Status instead of the deleted object',
    rule: 'upstream-parity.md#Clients: node and storage kinds',
    caughtBy: ['core/clients/podtemplate-delete-returns-object'],
    match: { method: 'DELETE', path: /\/podtemplates\/[^/]+$/ },
    response: (r) =>
      r.status === 200
        ? withJson(r, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { kind: 'podtemplates' } })
        : undefined,
  },
  {
    id: 'runtimeclass-handler-mutable',
    description: 'lets an update change a RuntimeClass’s handler: the 422 becomes the object as patched',
    rule: 'upstream-parity.md#Clients: node and storage kinds',
    caughtBy: ['core/clients/runtimeclass-handler-immutable'],
    match: { method: 'PATCH', path: /\/runtimeclasses\/[^/]+$/ },
    response: async (r, { request, upstream }) => {
      const sent = sentObject(request);
      if (r.status !== 422 || typeof sent?.handler !== 'string') return undefined;
      const current = jsonOf(await upstream({ ...request, method: 'GET', body: Buffer.alloc(0) }));
      return isObject(current) ? withJson(r, { ...current, handler: sent.handler }, 200) : undefined;
    },
  },
  {
    id: 'component-statuses-all-healthy',
    description: 'reports every component Healthy, as if a controller-manager and a scheduler answered',
    rule: 'upstream-parity.md#Clients: component statuses',
    caughtBy: ['core/clients/component-statuses'],
    match: { method: 'GET', path: /\/componentstatuses\/[^/]+$/ },
    response: (r) =>
      editJson(r, (body) => {
        if (!Array.isArray(body.conditions)) return false;
        body.conditions = [{ type: 'Healthy', status: 'True', message: 'ok' }];
        return true;
      }),
  },
];
