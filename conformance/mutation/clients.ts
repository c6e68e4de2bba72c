/**
 * Faults of the clients profile (conformance/scenarios/clients/): each makes a correct server read
 * a request as svckit once did, or as a server that knows only kubectl's spellings would, so that
 * the scenario checking that reading has to notice.
 */
import { withJson } from './edits.js';
import { WATCH_PATH } from './proxy.js';
import type { Mutation, ProxiedRequest } from './types.js';

const BOOLS = ['watch', 'allowWatchBookmarks', 'sendInitialEvents', 'force', 'orphanDependents'];
const INTEGERS = ['limit', 'timeoutSeconds', 'gracePeriodSeconds'];

/** The first bool parameter spelled otherwise than `true`, `false`, `1`, `0` or empty (`True`, `yes`...). */
function unusualBool(query: URLSearchParams): [string, string] | undefined {
  for (const name of BOOLS) {
    const v = query.get(name);
    if (v !== null && !['', 'true', 'false', '1', '0'].includes(v)) return [name, v];
  }
  return undefined;
}

/** Requests the refusing server answers itself; the one it forwards carries no change. */
const refused = new WeakMap<ProxiedRequest, string>();

export const CLIENT_MUTATIONS: readonly Mutation[] = [
  {
    id: 'bool-spellings-refused',
    description: 'accepts only true, false, 1 and 0 for a bool parameter: watch=True or force=True is 400 "must be true or false"',
    rule: 'upstream-parity.md#Clients: bool query parameters',
    caughtBy: ['core/clients/bool-spellings-*'],
    match: { query: (q) => unusualBool(q) !== undefined },
    request: (req) => {
      const [name, value] = unusualBool(req.query)!;
      refused.set(req, `invalid value ${JSON.stringify(value)} for query parameter ${name}: must be true or false`);
      // What the server is still asked must change nothing and open no stream.
      if (req.method === 'GET') req.query.set('timeoutSeconds', 'refused');
      else req.query.set('dryRun', 'All');
      return true;
    },
    response: (r, ctx) => {
      const message = refused.get(ctx.request);
      if (message === undefined) return undefined;
      return withJson(
        r,
        { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 },
        400,
      );
    },
  },
  {
    id: 'bool-false-case-sensitive',
    description: 'reads a bool as false only when it is exactly `false` or `0`: watch=False watches',
    rule: 'upstream-parity.md#Clients: bool query parameters',
    caughtBy: ['core/clients/bool-spellings-watch'],
    match: { method: 'GET', query: (q) => /^false$/i.test(q.get('watch') ?? '') && q.get('watch') !== 'false' },
    request: (req) => {
      req.query.set('watch', '1');
      req.query.set('timeoutSeconds', '1');
      return true;
    },
  },
  {
    id: 'integer-parameters-lenient',
    description: 'reads an integer parameter as JavaScript parseInt does: limit=1.5 is limit=1, timeoutSeconds=x is no timeout',
    rule: 'upstream-parity.md#Clients: integer query parameters',
    caughtBy: ['core/clients/integer-parameters'],
    match: { query: (q) => INTEGERS.some((name) => q.has(name) && !/^[+-]?\d+$/.test(q.get(name)!)) },
    request: (req) => {
      for (const name of INTEGERS) {
        const v = req.query.get(name);
        if (v === null || /^[+-]?\d+$/.test(v)) continue;
        const n = Number.parseInt(v, 10);
        if (Number.isNaN(n)) req.query.delete(name);
        else req.query.set(name, String(n));
      }
      return true;
    },
  },
  {
    id: 'watch-paths-not-served',
    description: 'serves no /watch/ path: /api/v1/watch/namespaces/<ns>/configmaps is 404',
    rule: 'upstream-parity.md#Clients: watch paths',
    caughtBy: ['core/clients/watch-paths'],
    match: { path: WATCH_PATH },
    request: (req) => {
      req.path = req.path.replace('/watch/', '/watch-paths-not-served/');
      return true;
    },
  },
  {
    id: 'watch-path-name-dropped',
    description: 'serves /watch/.../<resource>/<name> as a watch of the whole collection',
    rule: 'upstream-parity.md#Clients: watch paths',
    caughtBy: ['core/clients/watch-paths'],
    match: { path: /\/watch\/(namespaces\/[^/]+\/)?[^/]+\/[^/]+$/ },
    request: (req) => {
      req.path = req.path.slice(0, req.path.lastIndexOf('/'));
      return true;
    },
  },
];
