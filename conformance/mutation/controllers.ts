/**
 * Faults of the clients profile's controllers scenarios (conformance/scenarios/clients/controllers.yaml):
 * each makes a correct server answer as one without kube-controller-manager's serviceaccounts
 * controller, or without the ServiceAccount admission plugin's check.
 */
import { isObject } from '../json.js';
import { editJson, sentObject, withJson } from './edits.js';
import type { Mutation } from './types.js';

const RULE = 'upstream-parity.md#Clients';

export const CONTROLLER_MUTATIONS: readonly Mutation[] = [
  {
    id: 'role-binding-jsonpath-table',
    description: 'answers a RoleBinding’s Table with JSONPath columns: the role by name only, no subjects',
    rule: `${RULE}: printed columns`,
    caughtBy: ['core/clients/printed-role-binding'],
    match: { method: ['GET'], path: /\/rolebindings\/[^/]+$/, headers: { accept: /as=Table/i } },
    response: (r) =>
      editJson(r, (table) => {
        if (table.kind !== 'Table' || !Array.isArray(table.rows) || !Array.isArray(table.columnDefinitions)) return false;
        table.columnDefinitions = table.columnDefinitions.slice(0, 3);
        for (const row of table.rows) {
          if (!isObject(row) || !Array.isArray(row.cells)) continue;
          row.cells = row.cells.slice(0, 3);
          row.cells[1] = String(row.cells[1]).replace(/^[^/]*\//, '');
        }
        return true;
      }),
  },
  {
    id: 'empty-status-omitted',
    description: 'leaves out an empty status, as a server encoding status as an omitempty pointer would',
    rule: `${RULE}: empty status`,
    caughtBy: ['core/clients/empty-status-written'],
    match: { path: /\/deployments(\/[^/]+)?$/ },
    response: (r) =>
      r.status >= 300
        ? undefined
        : editJson(r, (d) => {
            if (typeof d.status !== 'object' || d.status === null || Object.keys(d.status).length > 0) return false;
            delete d.status;
            return true;
          }),
  },
  {
    id: 'no-default-service-account',
    description: 'has no ServiceAccount default in a namespace: reading it answers 404',
    rule: `${RULE}: default service account`,
    caughtBy: ['core/clients/namespace-default-service-account'],
    match: { method: 'GET', path: /\/namespaces\/[^/]+\/serviceaccounts\/default$/ },
    response: (r) =>
      r.status !== 200
        ? undefined
        : withJson(
            r,
            {
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              status: 'Failure',
              message: 'serviceaccounts "default" not found',
              reason: 'NotFound',
              details: { name: 'default', kind: 'serviceaccounts' },
              code: 404,
            },
            404,
          ),
  },
  {
    id: 'pod-missing-service-account-accepted',
    description: 'creates a pod whose service account does not exist',
    rule: `${RULE}: default service account`,
    caughtBy: ['core/clients/pod-service-account-must-exist'],
    match: { method: 'POST', path: /\/pods$/ },
    response: (r, ctx) => {
      if (r.status !== 403 || !r.body.toString('utf8').includes('error looking up service account')) return undefined;
      const pod = sentObject(ctx.request);
      return pod ? withJson(r, pod, 201) : undefined;
    },
  },
];
