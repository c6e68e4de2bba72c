/**
 * The catalogue of faults the suite must catch: each breaks one spec rule, observably, in the answers
 * of an otherwise correct server, and names the scenarios that check that rule.
 */
import { isObject } from '../json.js';
import type { Json, JsonObject } from '../types.js';
import {
  askAgain,
  eachEvent,
  editJson,
  firstEvent,
  jsonOf,
  metadataOf,
  sentObject,
  statusOf,
  swapWithNext,
  withHeader,
  withJson,
  withoutHeader,
} from './edits.js';
import type { Mutation, ProxiedResponse, ResponseContext } from './types.js';
import { CLIENT_MUTATIONS } from './clients.js';
import { DISCOVERY_MUTATIONS } from './discovery.js';
import { CONTROLLER_MUTATIONS } from './controllers.js';
import { RESPONSE_SHAPE_MUTATIONS } from './response-shapes.js';
import { SERVER_FILLED_MUTATIONS } from './server-filled.js';
import { API_MUTATIONS } from './served-apis.js';
import { SERVED_APIS2_MUTATIONS } from './served-apis2.js';
import { SECURITY_MUTATIONS } from './security.js';
import { WRITE_PATH_MUTATIONS } from './write-paths.js';

const WRITES = ['POST', 'PUT', 'PATCH'] as const;
const TABLE_ACCEPT = /as=Table/i;

function items(body: JsonObject): Json[] | undefined {
  return Array.isArray(body.items) ? body.items : undefined;
}

/** Decimal resource versions compared as numbers; undefined for versions that are not (opaque ones). */
function newer(a: Json | undefined, b: Json | undefined): boolean | undefined {
  if (typeof a !== 'string' || typeof b !== 'string' || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  return BigInt(a) > BigInt(b);
}

/** The list a server would answer when it served a page from the live state instead of the snapshot. */
async function liveList(ctx: ResponseContext): Promise<JsonObject | undefined> {
  const live = await askAgain(ctx, (q) => {
    for (const k of ['continue', 'limit', 'resourceVersion', 'resourceVersionMatch']) q.delete(k);
  });
  const body = live.status === 200 ? jsonOf(live) : undefined;
  return isObject(body) ? body : undefined;
}

/** Answers what the server gives when the query parameters in `drop` are left out. */
async function answerWithout(ctx: ResponseContext, drop: string[]): Promise<ProxiedResponse> {
  return askAgain(ctx, (q) => {
    for (const k of drop) q.delete(k);
  });
}

function setEveryManagedFieldsOperation(body: JsonObject, from: string, to: string): boolean {
  let changed = false;
  const objects = [body, ...(items(body) ?? [])];
  for (const o of objects) {
    const entries = metadataOf(o)?.managedFields;
    if (!Array.isArray(entries)) continue;
    for (const e of entries) {
      if (isObject(e) && e.operation === from) {
        e.operation = to;
        changed = true;
      }
    }
  }
  return changed;
}

const warningsAndValidation: Mutation[] = [
  {
    id: 'unknown-field-warning-dropped',
    description: 'drops an unknown field silently at the default and Warn levels: no Warning header',
    rule: 'core-protocol.md#Field validation: 3',
    caughtBy: [
      'core/validation/default-is-warn-for-unknown',
      'core/validation/warn-unknown',
      'core/validation/warn-one-item-per-field',
      'core/validation/warn-nested-unknown',
    ],
    match: { method: WRITES },
    response: (r) => ((r.headers.warning ?? []).some((w) => /unknown field/i.test(w)) ? withoutHeader(r, 'warning') : undefined),
  },
  {
    id: 'strict-validation-ignored',
    description: 'ignores fieldValidation=Strict: an unknown field is dropped with a Warning instead of a 400',
    rule: 'core-protocol.md#Field validation: 3',
    caughtBy: [
      'core/validation/strict-unknown-400',
      'core/validation/strict-lists-all-fields',
      'core/validation/update-strict-unknown-400',
    ],
    match: { method: WRITES, query: (q) => q.get('fieldValidation') === 'Strict' },
    request: (req) => {
      req.query.delete('fieldValidation');
      return true;
    },
  },
  {
    id: 'deprecation-warning-dropped',
    description: 'serves the deprecated flowcontrol v1beta3 without its deprecation Warning',
    rule: 'core-protocol.md#Deprecation rules: endpoint 1',
    caughtBy: ['core/versions/deprecated-version-warns'],
    match: { path: /^\/apis\/flowcontrol\.apiserver\.[^/]+\/v1beta3\// },
    response: (r) => withoutHeader(r, 'warning'),
  },
  {
    id: 'deprecated-api-gauge-dropped',
    description: 'exports /metrics without the apiserver_requested_deprecated_apis series of the deprecated versions requested',
    rule: 'core-protocol.md#Deprecation rules: endpoint 3',
    caughtBy: ['core/versions/deprecated-version-gauge'],
    match: { method: 'GET', path: /^\/metrics$/ },
    response: (r) => {
      const lines = r.body.toString('utf8').split('\n');
      const kept = lines.filter((l) => !l.startsWith('apiserver_requested_deprecated_apis{'));
      return kept.length === lines.length ? undefined : { ...r, body: Buffer.from(kept.join('\n')) };
    },
  },
];

const conflicts: Mutation[] = [
  {
    id: 'stale-update-accepted',
    description: 'answers 200 with the sent object to a PUT with a stale resourceVersion instead of 409 Conflict',
    rule: 'core-protocol.md#Update rules: 1',
    caughtBy: ['core/verbs/update-stale-resource-version-409', 'core/dryrun/checks-resource-version'],
    match: { method: 'PUT' },
    response: (r, ctx) => {
      const sent = sentObject(ctx.request);
      return r.status === 409 && statusOf(r)?.reason === 'Conflict' && sent ? withJson(r, sent, 200) : undefined;
    },
  },
  {
    id: 'update-precondition-dropped',
    description: 'drops the resourceVersion precondition of a ConfigMap PUT, so concurrent updates overwrite each other (a lost update)',
    rule: 'core-protocol.md#Update rules: 1',
    caughtBy: ['core/concurrency/linearizable-updates'],
    match: { method: 'PUT', path: /\/configmaps\// },
    request: (req) => {
      const sent = sentObject(req);
      const meta = metadataOf(sent);
      if (!sent || !meta || !('resourceVersion' in meta)) return false;
      delete meta.resourceVersion;
      req.body = Buffer.from(JSON.stringify(sent));
      return true;
    },
  },
  {
    id: 'duplicate-create-accepted',
    description: 'answers 201 with the sent object to a create of a taken name instead of 409 AlreadyExists',
    rule: 'core-protocol.md#Errors: 409',
    caughtBy: ['core/errors/conflict-status-names-object', 'core/names/duplicate-name-409', 'core/dryrun/checks-name-uniqueness'],
    match: { method: 'POST' },
    response: (r, ctx) => {
      const sent = sentObject(ctx.request);
      return r.status === 409 && statusOf(r)?.reason === 'AlreadyExists' && sent ? withJson(r, sent, 201) : undefined;
    },
  },
  {
    id: 'delete-preconditions-ignored',
    description: 'ignores the DeleteOptions preconditions (uid, resourceVersion) and deletes anyway',
    rule: 'core-protocol.md#Verbs: delete',
    caughtBy: ['core/delete/precondition-uid-409', 'core/delete/precondition-resource-version-409'],
    match: { method: 'DELETE' },
    request: (req) => {
      const sent = sentObject(req);
      if (!sent || !('preconditions' in sent)) return false;
      delete sent.preconditions;
      req.body = Buffer.from(JSON.stringify(sent));
      return true;
    },
  },
  {
    id: 'apply-conflict-causes-dropped',
    description: 'answers an apply conflict with a 409 that has no FieldManagerConflict causes',
    rule: 'core-protocol.md#Errors: apply conflict',
    caughtBy: ['core/apply/conflict-409', 'core/apply/atomic-list-conflicts'],
    match: { method: 'PATCH', headers: { 'content-type': /apply-patch/ } },
    response: (r) =>
      r.status === 409
        ? editJson(r, (body) => {
            if (!isObject(body.details) || !('causes' in body.details)) return false;
            delete body.details.causes;
            return true;
          })
        : undefined,
  },
];

const dryRunAndDeletion: Mutation[] = [
  {
    id: 'dry-run-ignored',
    description: 'ignores dryRun=All: the write really happens',
    rule: 'core-protocol.md#Dry-run: 1',
    caughtBy: [
      'core/dryrun/create-not-persisted',
      'core/dryrun/update-not-persisted',
      'core/dryrun/patch-not-persisted',
      'core/dryrun/delete-not-persisted',
      'core/dryrun/create-sends-no-event',
    ],
    match: { method: [...WRITES, 'DELETE'], query: (q) => q.get('dryRun') === 'All' },
    request: (req) => {
      req.query.delete('dryRun');
      return true;
    },
  },
  {
    id: 'finalizer-delete-without-timestamp',
    description: 'answers the first delete of an object with finalizers without its deletionTimestamp',
    rule: 'core-protocol.md#Deletion of an object: first delete',
    caughtBy: [
      'core/delete/finalizers-hold-object',
      'core/delete/finalizing-object-is-listed',
      'core/delete/removing-one-finalizer-keeps-object',
    ],
    match: { method: 'DELETE' },
    response: (r) =>
      editJson(r, (body) => {
        const meta = metadataOf(body);
        if (!meta || !('deletionTimestamp' in meta)) return false;
        delete meta.deletionTimestamp;
        return true;
      }),
  },
];

const statusErrors: Mutation[] = [
  {
    id: 'status-causes-dropped',
    description: 'answers an invalid object with a Status that has no details.causes',
    rule: 'core-protocol.md#Errors: Status body',
    caughtBy: ['core/errors/invalid-object-causes'],
    match: { method: WRITES },
    response: (r) =>
      statusOf(r)
        ? editJson(r, (body) => {
            if (!isObject(body.details) || !('causes' in body.details)) return false;
            delete body.details.causes;
            return true;
          })
        : undefined,
  },
  {
    id: 'not-found-reason-changed',
    description: 'answers a missing object with a Status whose reason is Unknown instead of NotFound',
    rule: 'core-protocol.md#Errors: Status body',
    caughtBy: [
      'core/errors/status-body-shape',
      'core/verbs/get-missing-404',
      'core/verbs/delete-missing-404',
      'core/verbs/patch-missing-404',
    ],
    match: { watch: false },
    response: (r) =>
      editJson(r, (body) => {
        if (body.kind !== 'Status' || body.reason !== 'NotFound') return false;
        body.reason = 'Unknown';
        return true;
      }),
  },
  {
    id: 'missing-object-200',
    description: 'answers a get of a missing object with status 200 (the Status body unchanged)',
    rule: 'core-protocol.md#Verbs: get',
    caughtBy: ['core/verbs/get-missing-404', 'core/errors/status-body-shape'],
    match: { method: 'GET', watch: false },
    response: (r) => (r.status === 404 ? { ...r, status: 200 } : undefined),
  },
];

const lists: Mutation[] = [
  {
    id: 'list-kind-generic',
    description: 'answers a list as kind List instead of <Kind>List',
    rule: 'core-protocol.md#Collection response: kind',
    caughtBy: ['core/list/collection-fields', 'core/verbs/list-returns-kind-list'],
    match: { method: 'GET', watch: false },
    response: (r) =>
      editJson(r, (body) => {
        if (!items(body) || typeof body.kind !== 'string' || !body.kind.endsWith('List')) return false;
        body.kind = 'List';
        return true;
      }),
  },
  {
    id: 'label-selector-ignored',
    description: 'ignores labelSelector on lists: objects that do not match are listed',
    rule: 'core-protocol.md#Query parameters: selectors',
    caughtBy: [
      'core/list/label-selector-equality',
      'core/list/label-selector-inequality',
      'core/list/label-selector-set-based',
      'core/list/label-selector-exists',
    ],
    match: { method: 'GET', watch: false, query: (q) => q.has('labelSelector') },
    request: (req) => {
      req.query.delete('labelSelector');
      return true;
    },
  },
  {
    id: 'snapshot-page-leaks-later-item',
    description: 'adds objects created after the snapshot to a continue page (served from the live state)',
    rule: 'core-protocol.md#Chunked list procedure: 3',
    caughtBy: ['core/list/pages-hide-later-changes', 'core/rv/list-continue-unset', 'core/list/chunked-walk-complete'],
    match: { method: 'GET', watch: false, query: (q) => q.has('continue') },
    response: async (r, ctx) => {
      const page = r.status === 200 ? jsonOf(r) : undefined;
      const pageItems = isObject(page) ? items(page) : undefined;
      if (!isObject(page) || !pageItems) return undefined;
      const snapshot = metadataOf(page)?.resourceVersion;
      const live = await liveList(ctx);
      const shown = new Set(pageItems.map((i) => metadataOf(i)?.name));
      const later = (live ? (items(live) ?? []) : []).filter(
        (i) => !shown.has(metadataOf(i)?.name) && newer(metadataOf(i)?.resourceVersion, snapshot) === true,
      );
      return later.length > 0 ? withJson(r, { ...page, items: [...pageItems, ...later] }) : undefined;
    },
  },
  {
    id: 'page-resource-version-moves',
    description: "gives each continue page the current collection resourceVersion instead of the first page's",
    rule: 'core-protocol.md#Collection response: metadata.resourceVersion',
    caughtBy: ['core/list/pages-share-resource-version', 'core/list/pages-hide-later-changes', 'core/rv/list-continue-unset'],
    match: { method: 'GET', watch: false, query: (q) => q.has('continue') },
    response: async (r, ctx) => {
      const page = r.status === 200 ? jsonOf(r) : undefined;
      const meta = metadataOf(page);
      if (!isObject(page) || !meta || !items(page)) return undefined;
      const current = metadataOf(await liveList(ctx))?.resourceVersion;
      if (typeof current !== 'string' || current === meta.resourceVersion) return undefined;
      return withJson(r, { ...page, metadata: { ...meta, resourceVersion: current } });
    },
  },
  {
    id: 'remaining-count-dropped',
    description: 'leaves remainingItemCount out of pages that have more to come',
    rule: 'core-protocol.md#Collection response: metadata.remainingItemCount',
    caughtBy: ['core/list/limit-first-page', 'core/list/continue-to-last-page', 'core/list/chunked-walk-complete'],
    match: { method: 'GET', watch: false },
    response: (r) =>
      editJson(r, (body) => {
        const meta = metadataOf(body);
        if (!meta || !('remainingItemCount' in meta)) return false;
        delete meta.remainingItemCount;
        return true;
      }),
  },
  {
    id: 'remaining-count-with-selector',
    description: 'adds remainingItemCount to a page of a list with a label or field selector',
    rule: 'core-protocol.md#Collection response: metadata.remainingItemCount',
    caughtBy: ['core/list/selector-omits-remaining-count'],
    match: { method: 'GET', watch: false, query: (q) => q.has('labelSelector') || q.has('fieldSelector') },
    response: (r) =>
      editJson(r, (body) => {
        const meta = metadataOf(body);
        if (!meta || !items(body) || typeof meta.continue !== 'string' || meta.continue === '' || 'remainingItemCount' in meta)
          return false;
        meta.remainingItemCount = 1;
        return true;
      }),
  },
  {
    id: 'continue-dropped-on-partial-page',
    description: 'answers a page that has more to come with an empty continue',
    rule: 'core-protocol.md#Collection response: metadata.continue',
    caughtBy: [
      'core/list/limit-first-page',
      'core/list/continue-to-last-page',
      'core/list/selector-omits-remaining-count',
      'core/list/chunked-walk-complete',
    ],
    match: { method: 'GET', watch: false },
    response: (r) =>
      editJson(r, (body) => {
        const meta = metadataOf(body);
        if (!meta || typeof meta.continue !== 'string' || meta.continue === '') return false;
        meta.continue = '';
        return true;
      }),
  },
  {
    id: 'forged-continue-accepted',
    description: 'accepts a continue token it never issued: answers the list from the start instead of 400',
    rule: 'core-protocol.md#Query parameters: continue',
    caughtBy: ['core/list/continue-token-forged-400'],
    match: { method: 'GET', watch: false, query: (q) => q.has('continue') },
    response: async (r, ctx) => (r.status === 400 ? answerWithout(ctx, ['continue']) : undefined),
  },
  {
    id: 'expired-continue-accepted',
    description: 'accepts an expired continue token: answers the list from the start instead of 410',
    rule: 'core-protocol.md#Chunked list procedure: 4',
    caughtBy: ['core/list/continue-token-expired-410'],
    match: { method: 'GET', watch: false, query: (q) => q.has('continue') },
    response: async (r, ctx) => (r.status === 410 ? answerWithout(ctx, ['continue']) : undefined),
  },
];

const resourceVersions: Mutation[] = [
  {
    id: 'future-version-served',
    description: 'answers a read at a resourceVersion not reached yet with the current state instead of 504',
    rule: 'core-protocol.md#Resource version semantics: unrecognized version',
    caughtBy: ['core/rv/get-future-504', 'core/rv/list-future-504'],
    match: { method: 'GET', watch: false, query: (q) => q.has('resourceVersion') },
    response: async (r, ctx) => (r.status === 504 ? answerWithout(ctx, ['resourceVersion', 'resourceVersionMatch']) : undefined),
  },
  {
    id: 'retry-after-not-seconds',
    description: 'sends Retry-After as an HTTP date instead of seconds on a 504',
    rule: 'core-protocol.md#Headers and media types: Retry-After',
    caughtBy: ['core/rv/get-future-504', 'core/rv/list-future-504'],
    match: { method: 'GET', watch: false },
    response: (r) =>
      r.status === 504 && r.headers['retry-after'] ? withHeader(r, 'retry-after', new Date(Date.now() + 1000).toUTCString()) : undefined,
  },
  {
    id: 'watch-ignores-resource-version',
    description: 'starts a watch from "now" with synthetic ADDED events, ignoring the resourceVersion it was given',
    rule: 'core-protocol.md#Resource version semantics: watch: other',
    caughtBy: [
      'core/rv/watch-other-starts-exact',
      'core/watch/from-list-version-no-synthetic-events',
      'core/watch/modified-carries-new-version',
      'core/list/watch-from-list-misses-nothing',
    ],
    match: { watch: true, query: (q) => (q.get('resourceVersion') ?? '0') !== '0' && !q.has('sendInitialEvents') },
    request: (req) => {
      req.query.delete('resourceVersion');
      return true;
    },
  },
];

const watches: Mutation[] = [
  {
    id: 'watch-modified-dropped',
    description: 'leaves the first MODIFIED event out of each watch stream',
    rule: 'core-protocol.md#Watch procedure: 2',
    caughtBy: [
      'core/watch/create-update-delete-events',
      'core/watch/modified-carries-new-version',
      'core/rv/watch-other-starts-exact',
      'core/delete/two-phase-watch-events',
    ],
    match: { watch: true },
    events: firstEvent(
      (e) => e.type === 'MODIFIED',
      () => [],
    ),
  },
  {
    id: 'watch-events-reordered',
    description: 'sends the first change of each watch stream after the one that follows it',
    rule: 'core-protocol.md#Watch procedure: 2',
    caughtBy: [
      'core/watch/create-update-delete-events',
      'core/rv/watch-other-starts-exact',
      'core/list/watch-from-list-misses-nothing',
      'core/delete/two-phase-watch-events',
    ],
    match: { watch: true, query: (q) => q.has('resourceVersion') && q.get('resourceVersion') !== '0' },
    events: swapWithNext((e) => e.type !== 'BOOKMARK'),
  },
  {
    id: 'watch-added-duplicated',
    description: 'sends every ADDED event twice',
    rule: 'core-protocol.md#Watch procedure: 2',
    caughtBy: [
      'core/watch/concurrent-writes-no-gaps',
      'core/watch/from-list-version-no-synthetic-events',
      'core/watch/create-update-delete-events',
    ],
    match: { watch: true },
    events: eachEvent((e) => (e.type === 'ADDED' ? [e, e] : undefined)),
  },
  {
    id: 'deleted-sent-as-modified',
    description: 'reports a deletion as a MODIFIED event',
    rule: 'core-protocol.md#Events: DELETED and ERROR',
    caughtBy: [
      'core/watch/create-update-delete-events',
      'core/watch/selector-stop-matching-is-deleted',
      'core/delete/two-phase-watch-events',
    ],
    match: { watch: true },
    events: eachEvent((e) => (e.type === 'DELETED' ? [{ ...e, type: 'MODIFIED' }] : undefined)),
  },
  {
    id: 'watch-ignores-label-selector',
    description: 'ignores labelSelector on watches: events of objects that do not match are sent',
    rule: 'core-protocol.md#Query parameters: selectors',
    caughtBy: ['core/watch/label-selector-filters-events', 'core/watch/selector-stop-matching-is-deleted'],
    match: { watch: true, query: (q) => (q.get('labelSelector') ?? '').includes(',') },
    request: (req) => {
      req.query.delete('labelSelector');
      return true;
    },
  },
  {
    id: 'expired-watch-error-dropped',
    description: 'ends a watch from a version outside the history window without the ERROR event carrying 410',
    rule: 'core-protocol.md#Watch procedure: 4',
    caughtBy: ['core/watch/expired-version-410'],
    match: { watch: true },
    events: eachEvent((e) => (e.type === 'ERROR' && e.object.code === 410 ? [] : undefined)),
  },
  {
    id: 'initial-events-bookmark-dropped',
    description: 'ends the initial events of sendInitialEvents without the BOOKMARK',
    rule: 'core-protocol.md#Watch procedure: 6',
    caughtBy: [
      'core/watch/initial-events-then-bookmark',
      'core/watch/initial-events-with-version',
      'core/watch/initial-events-then-live-stream',
    ],
    match: { watch: true },
    events: eachEvent((e) => (e.type === 'BOOKMARK' ? [] : undefined)),
  },
  {
    id: 'bookmark-carries-object',
    description: 'sends BOOKMARK events that carry a name and uid besides the resourceVersion',
    rule: 'core-protocol.md#Watch procedure: 5',
    caughtBy: ['core/watch/initial-events-then-bookmark', 'core/watch/initial-events-then-live-stream'],
    match: { watch: true },
    events: eachEvent((e) => {
      if (e.type !== 'BOOKMARK') return undefined;
      const meta = metadataOf(e.object) ?? {};
      return [{ ...e, object: { ...e.object, metadata: { ...meta, name: 'bookmark', uid: '00000000-0000-0000-0000-000000000001' } } }];
    }),
  },
];

const mediaTypes: Mutation[] = [
  {
    id: 'not-acceptable-served-as-json',
    description: 'answers JSON when the Accept header names only types the server does not offer, instead of 406',
    rule: 'core-protocol.md#Headers and media types: 406',
    caughtBy: ['core/media/unsupported-accept-406', 'core/media/protobuf-not-for-custom-resources'],
    match: { method: 'GET', watch: false },
    response: async (r, ctx) =>
      r.status === 406 ? ctx.upstream({ ...ctx.request, headers: { ...ctx.request.headers, accept: ['application/json'] } }) : undefined,
  },
  {
    id: 'table-served-as-json',
    description: 'answers the JSON object or list when a Table is asked for',
    rule: 'core-protocol.md#Table representation: 1',
    caughtBy: ['core/media/table-list', 'core/media/table-single-object', 'core/media/table-default-columns'],
    match: { method: 'GET', headers: { accept: TABLE_ACCEPT } },
    request: (req) => {
      req.headers.accept = ['application/json'];
      return true;
    },
  },
  {
    id: 'table-content-type-dropped',
    description: 'answers a Table without a Content-Type header',
    rule: 'core-protocol.md#Headers and media types: Table media type',
    caughtBy: ['core/media/table-list', 'core/media/table-single-object'],
    match: { method: 'GET', headers: { accept: TABLE_ACCEPT } },
    response: (r) => withoutHeader(r, 'content-type'),
  },
  {
    id: 'protobuf-magic-dropped',
    description: 'sends the Protobuf envelope without its four magic bytes',
    rule: 'core-protocol.md#Protobuf envelope: 1',
    caughtBy: ['core/media/protobuf-get', 'core/media/protobuf-list', 'core/media/protobuf-then-json-fallback'],
    match: { method: 'GET', headers: { accept: /protobuf/ } },
    response: (r) =>
      (r.headers['content-type'] ?? []).some((t) => /protobuf/.test(t)) && r.body.length > 4
        ? { ...r, body: r.body.subarray(4) }
        : undefined,
  },
  {
    id: 'gzip-not-offered',
    description: 'never compresses: answers uncompressed bodies to Accept-Encoding gzip',
    rule: 'core-protocol.md#Headers and media types: Accept-Encoding',
    caughtBy: ['core/media/gzip-list', 'core/media/gzip-get'],
    match: { headers: { 'accept-encoding': /gzip/ } },
    request: (req) => {
      delete req.headers['accept-encoding'];
      return true;
    },
  },
  {
    id: 'content-encoding-dropped',
    description: 'sends a gzip body without its Content-Encoding header',
    rule: 'core-protocol.md#Headers and media types: Accept-Encoding',
    caughtBy: ['core/media/gzip-list', 'core/media/gzip-get'],
    match: { headers: { 'accept-encoding': /gzip/ } },
    response: (r) => withoutHeader(r, 'content-encoding'),
  },
  {
    id: 'pretty-ignored',
    description: 'ignores pretty=true: answers compact JSON',
    rule: 'core-protocol.md#Query parameters: pretty',
    caughtBy: ['core/media/pretty'],
    match: { method: 'GET', query: (q) => q.has('pretty') },
    request: (req) => {
      req.query.delete('pretty');
      return true;
    },
  },
];

const metadata: Mutation[] = [
  {
    id: 'managed-fields-operation-lowercase',
    description: 'records managedFields operation "update" instead of "Update"',
    rule: 'core-protocol.md#managedFields entry: operation',
    caughtBy: [
      'core/metadata/managed-fields-recorded-on-create',
      'core/metadata/managed-fields-update-entry',
      'core/apply/records-apply-entry',
    ],
    match: { watch: false },
    response: (r) => editJson(r, (body) => setEveryManagedFieldsOperation(body, 'Update', 'update')),
  },
  {
    id: 'client-creation-timestamp-kept',
    description: 'keeps a creationTimestamp the client sent instead of setting its own',
    rule: 'core-protocol.md#Common object metadata: metadata.creationTimestamp',
    caughtBy: ['core/metadata/creation-timestamp-set-by-server', 'core/metadata/creation-timestamp-kept-on-update'],
    match: { method: ['POST', 'PUT'] },
    response: (r, ctx) => {
      const sent = metadataOf(sentObject(ctx.request))?.creationTimestamp;
      if (typeof sent !== 'string' || r.status >= 300) return undefined;
      return editJson(r, (body) => {
        const meta = metadataOf(body);
        if (!meta || meta.creationTimestamp === sent) return false;
        meta.creationTimestamp = sent;
        return true;
      });
    },
  },
];

/**
 * Authorization faults: the server grants a restricted user's request in one case where the rule
 * says it must not. The proxy simulates it by sending that request as the kit's own identity (it
 * drops the impersonation headers), which a correct server allows.
 */
function asTheKit(request: { headers: Record<string, string[]> }): boolean {
  const had = request.headers['impersonate-user'] !== undefined;
  for (const h of Object.keys(request.headers)) if (h.startsWith('impersonate-')) delete request.headers[h];
  return had;
}
const RESTRICTED = { 'impersonate-user': /./ };

const authorization: Mutation[] = [
  {
    id: 'dry-run-authorized-loosely',
    description: 'allows a dry-run the real request would be forbidden',
    rule: 'core-protocol.md#Authentication: 2',
    caughtBy: ['core/authz/dry-run-needs-the-real-permission'],
    match: { method: [...WRITES, 'DELETE'], query: (q) => q.get('dryRun') === 'All', headers: RESTRICTED },
    request: asTheKit,
  },
  {
    id: 'apply-creates-with-patch',
    description: 'lets server-side apply create an object with patch permission alone',
    rule: 'core-protocol.md#Authentication: 3',
    caughtBy: ['core/authz/apply-creates-only-with-create'],
    match: { method: 'PATCH', headers: { ...RESTRICTED, 'content-type': /apply-patch/ } },
    request: asTheKit,
  },
  {
    id: 'subresource-authorized-as-parent',
    description: 'authorizes a subresource with the permission of its parent resource',
    rule: 'core-protocol.md#Authentication: 4',
    caughtBy: ['core/authz/subresources-authorized-separately'],
    match: { method: 'GET', path: /\/status$/, headers: RESTRICTED },
    request: asTheKit,
  },
  {
    id: 'verbs-not-checked',
    description: 'allows any verb on a resource a rule names for some verbs',
    rule: 'core-protocol.md#Authentication: 1',
    caughtBy: ['core/authz/rules-name-groups-resources-verbs'],
    match: { method: 'POST', path: /\/configmaps$/, headers: RESTRICTED },
    request: asTheKit,
  },
];

export const MUTATIONS: readonly Mutation[] = [
  ...warningsAndValidation,
  ...conflicts,
  ...dryRunAndDeletion,
  ...statusErrors,
  ...lists,
  ...resourceVersions,
  ...watches,
  ...mediaTypes,
  ...metadata,
  ...WRITE_PATH_MUTATIONS,
  ...authorization,
  ...SECURITY_MUTATIONS,
  ...CLIENT_MUTATIONS,
  ...DISCOVERY_MUTATIONS,
  ...RESPONSE_SHAPE_MUTATIONS,
  ...SERVER_FILLED_MUTATIONS,
  ...CONTROLLER_MUTATIONS,
  ...API_MUTATIONS,
  ...SERVED_APIS2_MUTATIONS,
];
