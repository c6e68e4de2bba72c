/**
 * Faults of the clients profile's response shapes (conformance/scenarios/clients/response-shapes.yaml):
 * each makes a correct server answer one response shape as svckit did before issue 23, so the
 * scenario checking that shape has to notice.
 */
import { isObject } from '../json.js';
import type { Json, JsonObject } from '../types.js';
import { editJson, jsonOf, statusOf, textOf, withJson } from './edits.js';
import type { Mutation } from './types.js';

/** The resources of a discovery document whose name is one of `names`, edited in place. */
function editResources(names: readonly string[], edit: (resource: JsonObject) => boolean) {
  return (body: JsonObject): boolean => {
    let changed = false;
    for (const r of Array.isArray(body.resources) ? body.resources : []) {
      if (isObject(r) && names.includes(String(r.name))) changed = edit(r as JsonObject) || changed;
    }
    return changed;
  };
}

export const RESPONSE_SHAPE_MUTATIONS: readonly Mutation[] = [
  {
    id: 'not-found-without-details',
    description: 'answers a 404 for a path no route serves without `details`',
    rule: 'upstream-parity.md#Clients: 404 details',
    caughtBy: ['core/clients/not-found-details'],
    match: { method: ['GET'] },
    response: (r) => {
      const status = statusOf(r);
      if (r.status !== 404 || !status || !isObject(status.details) || Object.keys(status.details).length > 0) return undefined;
      const { details: _dropped, ...rest } = status;
      return withJson(r, rest);
    },
  },
  {
    id: 'json-without-newline',
    description: 'ends a JSON body without the newline upstream’s encoder writes',
    rule: 'upstream-parity.md#Clients: JSON newline',
    caughtBy: ['core/clients/json-ends-with-newline'],
    match: { method: ['GET'], path: /^\/api\/v1\/namespaces\/[^/]+(\/configmaps(\/[^/]+)?)?$/, watch: false },
    response: (r) => {
      if (jsonOf(r) === undefined || (r.headers['content-encoding'] ?? []).length > 0) return undefined;
      const text = textOf(r);
      return text.endsWith('\n') ? { ...r, body: Buffer.from(text.trimEnd()) } : undefined;
    },
  },
  {
    id: 'deleted-object-as-status',
    description: 'answers the delete of a ServiceAccount with a success Status instead of the object',
    rule: 'upstream-parity.md#Clients: deleted object',
    caughtBy: ['core/clients/delete-returns-object'],
    match: { method: ['DELETE'], path: /\/serviceaccounts\/[^/]+$/ },
    response: (r) => {
      const body = jsonOf(r);
      if (r.status !== 200 || !isObject(body) || body.kind !== 'ServiceAccount' || !isObject(body.metadata)) return undefined;
      const meta = body.metadata;
      return withJson(r, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: meta.name as Json, kind: 'serviceaccounts', uid: meta.uid as Json },
      });
    },
  },
  {
    id: 'put-never-creates',
    description: 'answers a PUT to a missing ServiceAccount 404 instead of creating it',
    rule: 'upstream-parity.md#Clients: create on update',
    caughtBy: ['core/clients/put-creates'],
    match: { method: ['PUT'], path: /\/serviceaccounts\/[^/]+$/ },
    response: async (r, ctx) => {
      if (r.status !== 201) return undefined;
      // Undo the create, then answer as a server without create-on-update.
      const headers = Object.fromEntries(
        Object.entries(ctx.request.headers).filter(([k]) => k !== 'content-length' && k !== 'content-type'),
      );
      await ctx.upstream({ ...ctx.request, method: 'DELETE', headers, body: Buffer.alloc(0) });
      const name = ctx.request.path.split('/').pop() ?? '';
      return withJson(
        r,
        {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `serviceaccounts "${name}" not found`,
          reason: 'NotFound',
          details: { name, kind: 'serviceaccounts' },
          code: 404,
        },
        404,
      );
    },
  },
  {
    id: 'singular-from-plural',
    description: 'names priorityclasses’ singular by cutting the plural’s last letter (`priorityclasse`)',
    rule: 'upstream-parity.md#Clients: singular names',
    caughtBy: ['core/clients/singular-names'],
    match: { method: ['GET'], path: /^\/apis\/scheduling\.[^/]+\/v1$/ },
    response: (r) =>
      editJson(
        r,
        editResources(['priorityclasses'], (res) => {
          res.singularName = 'priorityclasse';
          return true;
        }),
      ),
  },
  {
    id: 'jobs-not-in-all',
    description: 'leaves jobs and cronjobs out of the `all` category',
    rule: 'upstream-parity.md#Clients: categories',
    caughtBy: ['core/clients/categories'],
    match: { method: ['GET'], path: /^\/apis\/batch\/v1$/ },
    response: (r) =>
      editJson(
        r,
        editResources(['jobs', 'cronjobs'], (res) => {
          if (res.categories === undefined) return false;
          delete res.categories;
          return true;
        }),
      ),
  },
  {
    id: 'configmap-default-table',
    description: 'answers a ConfigMap’s Table with the default Name and Created At columns',
    rule: 'upstream-parity.md#Clients: printed columns',
    caughtBy: ['core/clients/printed-columns'],
    match: { method: ['GET'], path: /\/configmaps\/[^/]+$/, headers: { accept: /as=Table/i } },
    response: (r) =>
      editJson(r, (table) => {
        if (table.kind !== 'Table' || !Array.isArray(table.rows)) return false;
        table.columnDefinitions = [
          { name: 'Name', type: 'string', format: 'name', description: '', priority: 0 },
          { name: 'Created At', type: 'date', format: '', description: '', priority: 0 },
        ];
        for (const row of table.rows)
          if (isObject(row) && Array.isArray(row.cells)) row.cells = [row.cells[0] ?? '', '0001-01-01T00:00:00Z'];
        return true;
      }),
  },
];
