/**
 * The SubjectAccessReview an authorization webhook receives, in `authorization.svc.io/v1` or
 * `v1beta1` (`authorization.k8s.io` from a server started with `--group-suffix k8s.io`) (they differ in one field name: `groups` in v1, `group` in v1beta1), and the parsing
 * of its answer. Match conditions always see the v1 spec as `request`, whichever version is sent.
 */
import { SPEC_GROUP_SUFFIX, apiVersionWithSuffix } from '../api/index.js';
import { type RequestAttributes, nonResource } from './attributes.js';
import type { AuthorizationRequest } from './authorize.js';
import type { SchemaNode } from '../schema/index.js';
import type { UserInfo } from './user.js';

export const AUTHORIZATION_GROUP = 'authorization.svc.io';
export type SubjectAccessReviewVersion = 'v1' | 'v1beta1';

/** The v1 spec, with empty values left out as the real system's omitempty does. */
export interface SubjectAccessReviewSpec {
  resourceAttributes?: Record<string, string>;
  nonResourceAttributes?: Record<string, string>;
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

function withoutEmpty(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== ''));
}

/** The v1 spec of a request; keys in a fixed order, so its JSON can key a cache. */
export function subjectAccessReviewSpec(user: UserInfo, a: RequestAttributes): SubjectAccessReviewSpec {
  const spec: SubjectAccessReviewSpec = {};
  if (a.isResourceRequest) {
    spec.resourceAttributes = withoutEmpty({
      namespace: a.namespace,
      verb: a.verb,
      group: a.apiGroup,
      version: a.apiVersion,
      resource: a.resource,
      subresource: a.subresource,
      name: a.name,
    });
  } else {
    spec.nonResourceAttributes = withoutEmpty({ path: a.path, verb: a.verb });
  }
  if (user.username) spec.user = user.username;
  if (user.groups.length > 0) spec.groups = [...user.groups];
  const extraKeys = Object.keys(user.extra).sort();
  if (extraKeys.length > 0) spec.extra = Object.fromEntries(extraKeys.map((k) => [k, [...(user.extra[k] ?? [])]]));
  if (user.uid) spec.uid = user.uid;
  return spec;
}

/**
 * The access a SubjectAccessReview's spec describes, as an authorization request: what the server
 * asks its authorizer when a review is created (the inverse of {@link subjectAccessReviewSpec}).
 */
export function accessRequestOfReview(spec: unknown): AuthorizationRequest {
  const s = (spec ?? {}) as {
    user?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
    resourceAttributes?: Partial<Record<'namespace' | 'verb' | 'group' | 'version' | 'resource' | 'subresource' | 'name', string>>;
    nonResourceAttributes?: Partial<Record<'path' | 'verb', string>>;
  };
  const user: UserInfo = { username: s.user ?? '', groups: s.groups ?? [], extra: s.extra ?? {}, ...(s.uid ? { uid: s.uid } : {}) };
  const r = s.resourceAttributes;
  const n = s.nonResourceAttributes ?? {};
  const attributes: RequestAttributes = r
    ? {
        isResourceRequest: true,
        path: '',
        verb: r.verb ?? '',
        apiPrefix: r.group ? 'apis' : 'api',
        apiGroup: r.group ?? '',
        apiVersion: r.version ?? '',
        namespace: r.namespace ?? '',
        resource: r.resource ?? '',
        subresource: r.subresource ?? '',
        name: r.name ?? '',
      }
    : // A review's verb is written as the real system's (lowercase already).
      nonResource(n.verb ?? '', n.path ?? '');
  return { user, attributes };
}

/** The document POSTed to the webhook, in the authorization group of a server whose groups end in `groupSuffix`. */
export function subjectAccessReview(
  spec: SubjectAccessReviewSpec,
  version: SubjectAccessReviewVersion,
  groupSuffix = SPEC_GROUP_SUFFIX,
): Record<string, unknown> {
  let body: Record<string, unknown> = { ...spec };
  if (version === 'v1beta1') {
    const { groups, ...rest } = spec;
    body = { ...rest, ...(groups ? { group: groups } : {}) };
  }
  return { apiVersion: apiVersionWithSuffix(`${AUTHORIZATION_GROUP}/${version}`, groupSuffix), kind: 'SubjectAccessReview', spec: body };
}

export interface SubjectAccessReviewStatus {
  readonly allowed: boolean;
  readonly denied: boolean;
  readonly reason: string;
  readonly evaluationError: string;
}

/** Reads the webhook's answer; throws when it is not a SubjectAccessReview with a boolean `status.allowed`. */
export function parseSubjectAccessReviewStatus(body: unknown): SubjectAccessReviewStatus {
  const doc = body as { kind?: unknown; status?: Record<string, unknown> } | undefined;
  if (!doc || typeof doc !== 'object') throw new Error('the response is not a JSON object');
  if (doc.kind !== undefined && doc.kind !== 'SubjectAccessReview')
    throw new Error(`the response is a ${String(doc.kind)}, not a SubjectAccessReview`);
  const s = doc.status;
  if (!s || typeof s.allowed !== 'boolean') throw new Error('the response has no boolean status.allowed');
  if (s.denied !== undefined && typeof s.denied !== 'boolean') throw new Error('status.denied is not a boolean');
  return {
    allowed: s.allowed,
    denied: s.denied === true,
    reason: typeof s.reason === 'string' ? s.reason : '',
    evaluationError: typeof s.evaluationError === 'string' ? s.evaluationError : '',
  };
}

const str: SchemaNode = { type: 'string' };
const strings: SchemaNode = { type: 'list', items: str };

/**
 * The CEL type of `request` in match conditions: the v1 SubjectAccessReviewSpec. The attribute
 * blocks are string maps rather than objects because `namespace` is a reserved word in CEL: an
 * object field of that name would have to be written `__namespace__`, while the real system's
 * documented conditions say `request.resourceAttributes.namespace`, which a map key allows.
 */
export const SUBJECT_ACCESS_REVIEW_SPEC_SCHEMA: SchemaNode = {
  type: 'object',
  typeName: 'authorization.v1.SubjectAccessReviewSpec',
  fields: [
    { name: 'resourceAttributes', schema: { type: 'map', values: str } },
    { name: 'nonResourceAttributes', schema: { type: 'map', values: str } },
    { name: 'user', schema: str },
    { name: 'groups', schema: strings },
    { name: 'extra', schema: { type: 'map', values: strings } },
    { name: 'uid', schema: str },
  ],
};
