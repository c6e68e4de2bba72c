import { rewriteGroupSuffix } from './group-suffix.js';
import type { HttpClient } from './http.js';
import { isObject } from './json.js';
import type { Feature } from './types.js';

/** The user the authorization probe asks about: nobody any policy would grant reading Secrets. */
const PROBE_USER = 'svckit-conformance-probe';

/**
 * Asks the server whether it offers the features the selected scenarios need and cannot be read
 * from discovery: authorization that refuses anybody (a server with AlwaysAllow fails every
 * authorization scenario for that one reason), and `sendInitialEvents` (refused while the WatchList
 * feature gate is off). Returns each feature found missing with why, so those scenarios are
 * skipped with the reason rather than failed. A probe that cannot tell (an answer it does not
 * understand) says nothing: the scenarios then run and judge.
 */
export async function probeFeatures(client: HttpClient, needed: ReadonlySet<Feature>, groupSuffix: string): Promise<Map<Feature, string>> {
  const missing = new Map<Feature, string>();
  if (needed.has('authz')) {
    const why = await authorizationAllowsEverything(client, groupSuffix);
    if (why) missing.set('authz', why);
  }
  if (needed.has('send-initial-events')) {
    const why = await initialEventsRefused(client);
    if (why) missing.set('send-initial-events', why);
  }
  return missing;
}

/** A SubjectAccessReview for an unknown user reading Secrets: allowed means no authorization policy. */
async function authorizationAllowsEverything(client: HttpClient, groupSuffix: string): Promise<string | undefined> {
  const apiVersion = rewriteGroupSuffix('authorization.svc.io/v1', groupSuffix);
  const review = {
    apiVersion,
    kind: 'SubjectAccessReview',
    spec: { user: PROBE_USER, groups: [PROBE_USER], resourceAttributes: { verb: 'get', resource: 'secrets', namespace: 'default' } },
  };
  const res = await client
    .send('POST', `/apis/${apiVersion}/subjectaccessreviews`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(review),
    })
    .catch(() => undefined);
  const status = isObject(res?.json) ? res.json.status : undefined;
  if (res?.status !== 201 || !isObject(status) || status.allowed !== true) return undefined;
  const reason = typeof status.reason === 'string' && status.reason !== '' ? ` (${status.reason})` : '';
  return `authorization allows everything: an unknown user may read Secrets${reason}`;
}

/** A watch asking for initial events: a 4xx means the server does not offer them (WatchList off). */
async function initialEventsRefused(client: HttpClient): Promise<string | undefined> {
  const res = await client
    .send('GET', '/api/v1/namespaces', {
      query: {
        watch: 'true',
        sendInitialEvents: 'true',
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: 'true',
        fieldSelector: 'metadata.name=default',
        timeoutSeconds: '1',
      },
    })
    .catch(() => undefined);
  if (res === undefined || res.status < 400 || res.status >= 500) return undefined;
  const message = isObject(res.json) && typeof res.json.message === 'string' ? `: ${res.json.message}` : '';
  return `the server refuses sendInitialEvents (${res.status}${message}); is the WatchList feature gate off?`;
}
