/**
 * Faults on one write path only, and the defects an audit once found, each as a mutation the suite
 * must catch. A path-specific fault keeps every other path correct (the request's content type, patch
 * type or API version decides), so only a scenario that takes that very path can notice it: these
 * prove the kit covers each path a rule applies to (conformance/COVERAGE.md, "Write paths").
 */
import { parse as parseYaml } from 'yaml';
import { isObject } from '../json.js';
import type { Json, JsonObject } from '../types.js';
import { askAgain, editJson, metadataOf, statusOf, withJson } from './edits.js';
import type { ExchangeMatcher, Mutation, ProxiedRequest, ProxiedResponse } from './types.js';

const APPLY = /apply-patch/i;
const YAML_BODY = /^application\/yaml/i;
const PROTOBUF = /protobuf/i;

/** The object a write sent, read as YAML (which JSON is too); undefined for Protobuf or garbage. */
function sentDocument(req: ProxiedRequest): JsonObject | undefined {
  try {
    const doc = parseYaml(req.body.toString('utf8'), { uniqueKeys: false }) as Json;
    return isObject(doc) ? doc : undefined;
  } catch {
    return undefined;
  }
}

function causes(r: ProxiedResponse): JsonObject[] {
  const details = statusOf(r)?.details;
  return isObject(details) && Array.isArray(details.causes) ? details.causes.filter((c): c is JsonObject => isObject(c)) : [];
}

const hasCause = (r: ProxiedResponse, reason: string) => causes(r).some((c) => c.reason === reason);

/** What a server that skipped the check answers: the write "succeeds" with the object sent. */
function acceptedAsSent(r: ProxiedResponse, req: ProxiedRequest): ProxiedResponse {
  const sent = sentDocument(req) ?? { metadata: {} };
  return withJson(r, sent, req.method === 'POST' ? 201 : 200);
}

/** A 4xx this fault would have let through, for writes matching `match`. */
function skipsCheck(
  fields: Pick<Mutation, 'id' | 'description' | 'rule' | 'caughtBy'>,
  match: ExchangeMatcher,
  refused: (r: ProxiedResponse) => boolean,
): Mutation {
  return { ...fields, match, response: (r, ctx) => (refused(r) ? acceptedAsSent(r, ctx.request) : undefined) };
}

const required = (r: ProxiedResponse) => r.status === 400 && hasCause(r, 'FieldValueRequired');
const nameMismatch = (r: ProxiedResponse) => r.status === 400 && /does not match the name on the URL/.test(String(statusOf(r)?.message));
const stale = (r: ProxiedResponse) => r.status === 409 && statusOf(r)?.reason === 'Conflict' && causes(r).length === 0;

const onePathOnly: Mutation[] = [
  skipsCheck(
    {
      id: 'required-unchecked-on-apply',
      description: 'checks required fields on every write but apply: an apply creating a Pod without spec succeeds',
      rule: 'core-protocol.md#Field validation: 1',
      caughtBy: ['core/validation/required-absent-on-apply-400'],
    },
    { method: 'PATCH', headers: { 'content-type': APPLY } },
    required,
  ),
  {
    id: 'strict-ignored-on-apply',
    description: 'honours fieldValidation=Strict on every write but apply, where an unknown field is dropped',
    rule: 'core-protocol.md#Field validation: 3',
    caughtBy: ['core/validation/apply-strict-unknown-400'],
    match: { method: 'PATCH', headers: { 'content-type': APPLY }, query: (q) => q.get('fieldValidation') === 'Strict' },
    request: (req) => {
      req.query.set('fieldValidation', 'Ignore');
      return true;
    },
  },
  skipsCheck(
    {
      id: 'required-unchecked-for-yaml',
      description: 'checks required fields in JSON and Protobuf bodies but not in YAML ones',
      rule: 'core-protocol.md#Field validation: 1',
      caughtBy: ['core/validation/required-null-on-create-yaml-400'],
    },
    { method: ['POST', 'PUT'], headers: { 'content-type': YAML_BODY } },
    required,
  ),
  {
    id: 'strict-ignored-for-yaml',
    description: 'honours fieldValidation=Strict for JSON bodies but not for YAML ones',
    rule: 'core-protocol.md#Field validation: 3',
    caughtBy: ['core/validation/yaml-strict-unknown-400', 'core/validation/yaml-strict-names-every-duplicate-and-unknown'],
    match: { method: ['POST', 'PUT'], headers: { 'content-type': YAML_BODY }, query: (q) => q.get('fieldValidation') === 'Strict' },
    request: (req) => {
      req.query.set('fieldValidation', 'Ignore');
      return true;
    },
  },
  skipsCheck(
    {
      id: 'stale-update-accepted-for-yaml',
      description: 'answers 409 to a stale PUT in JSON but accepts the same PUT written as YAML',
      rule: 'core-protocol.md#Update rules: 1',
      caughtBy: ['core/validation/stale-update-yaml-409'],
    },
    { method: 'PUT', headers: { 'content-type': YAML_BODY } },
    stale,
  ),
  {
    id: 'required-unchecked-for-protobuf',
    description: 'checks required fields in JSON and YAML bodies but creates a Pod without spec sent as Protobuf',
    rule: 'core-protocol.md#Field validation: 1',
    caughtBy: ['core/validation/protobuf-required-absent-400'],
    match: { method: ['POST', 'PUT'], headers: { 'content-type': PROTOBUF } },
    response: (r) => (required(r) ? withJson(r, { apiVersion: 'v1', kind: 'Pod', metadata: {} }, 201) : undefined),
  },
  {
    id: 'name-unchecked-for-protobuf',
    description: 'refuses a body naming another object than the URL in JSON and YAML, but not in Protobuf',
    rule: 'core-protocol.md#Common object metadata: metadata.name',
    caughtBy: ['core/validation/protobuf-name-change-by-update-400'],
    match: { method: 'PUT', headers: { 'content-type': PROTOBUF } },
    response: (r) => (nameMismatch(r) ? withJson(r, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, 200) : undefined),
  },
  {
    id: 'stale-update-accepted-for-protobuf',
    description: 'answers 409 to a stale PUT in JSON and YAML but accepts it in Protobuf',
    rule: 'core-protocol.md#Update rules: 1',
    caughtBy: ['core/validation/protobuf-stale-update-409'],
    match: { method: 'PUT', headers: { 'content-type': PROTOBUF } },
    response: (r) => (stale(r) ? withJson(r, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, 200) : undefined),
  },
  skipsCheck(
    {
      id: 'required-unchecked-in-v1beta3',
      description: 'checks required fields in flowcontrol v1 but not in the deprecated v1beta3',
      rule: 'core-protocol.md#Field validation: 1',
      caughtBy: ['core/validation/required-absent-v1beta3-400'],
    },
    { method: ['POST', 'PUT', 'PATCH'], path: /^\/apis\/flowcontrol\.apiserver\.[^/]+\/v1beta3\// },
    required,
  ),
  skipsCheck(
    {
      id: 'cel-rule-unchecked-for-yaml',
      description: "runs a custom resource's CEL rules on JSON bodies but not on YAML ones",
      rule: 'config-kinds-and-cel.md#Expression language: 1',
      caughtBy: ['core/validation/cel-rule-yaml-create-422'],
    },
    { method: ['POST', 'PUT'], path: /^\/apis\/stable\.example\.[^/]+\//, headers: { 'content-type': YAML_BODY } },
    (r) => r.status === 422 && statusOf(r)?.reason === 'Invalid',
  ),
  skipsCheck(
    {
      id: 'cel-transition-unchecked-on-apply',
      description: 'runs transition rules (oldSelf) on PUT and merge patch but not on apply',
      rule: 'config-kinds-and-cel.md#Expression language: 2',
      caughtBy: ['core/validation/cel-transition-by-apply-422'],
    },
    { method: 'PATCH', headers: { 'content-type': APPLY } },
    (r) => r.status === 422 && causes(r).some((c) => c.field === 'spec.mode'),
  ),
  skipsCheck(
    {
      id: 'name-change-by-strategic-patch-accepted',
      description: 'refuses a name change by merge and JSON patch but not by strategic merge patch',
      rule: 'core-protocol.md#Common object metadata: metadata.name',
      caughtBy: ['core/validation/name-change-by-strategic-patch-400'],
    },
    { method: 'PATCH', headers: { 'content-type': /strategic-merge-patch/ } },
    nameMismatch,
  ),
  {
    id: 'namespace-unchecked-for-protobuf',
    description: 'refuses a body naming another namespace than the path in JSON and YAML, but not in Protobuf',
    rule: 'core-protocol.md#Common object metadata: metadata.namespace',
    caughtBy: ['core/validation/protobuf-namespace-mismatch-400'],
    match: { method: ['POST', 'PUT'], headers: { 'content-type': PROTOBUF } },
    response: (r) =>
      r.status === 400 && /namespace of the provided object/.test(String(statusOf(r)?.message))
        ? withJson(r, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, 201)
        : undefined,
  },
  skipsCheck(
    {
      id: 'stale-strategic-patch-accepted',
      description: 'honours a stale resourceVersion in merge and JSON patches but not in strategic merge patches',
      rule: 'core-protocol.md#Update rules: 3',
      caughtBy: ['core/validation/stale-strategic-patch-409'],
    },
    { method: 'PATCH', headers: { 'content-type': /strategic-merge-patch/ } },
    stale,
  ),
];

/** The defects of an earlier release, put back one at a time. */
const pastDefects: Mutation[] = [
  skipsCheck(
    {
      id: 'namespace-change-by-apply',
      description: 'lets an apply rewrite metadata.namespace (the other writes refuse it)',
      rule: 'core-protocol.md#Common object metadata: metadata.namespace',
      caughtBy: ['core/validation/namespace-change-by-apply-400'],
    },
    { method: 'PATCH', headers: { 'content-type': APPLY } },
    (r) => r.status === 400 && /namespace of the provided object does not match/.test(String(statusOf(r)?.message)),
  ),
  skipsCheck(
    {
      id: 'identity-change-by-patch',
      description: 'lets a merge or JSON patch rewrite metadata.name (the object then answers at its old URL under a new name)',
      rule: 'core-protocol.md#Common object metadata: metadata.name',
      caughtBy: ['core/validation/name-change-by-merge-patch-400', 'core/validation/name-change-by-json-patch-400'],
    },
    { method: 'PATCH', headers: { 'content-type': /merge-patch\+json|json-patch\+json/ } },
    nameMismatch,
  ),
  {
    id: 'metadata-not-an-object-500',
    description: 'answers 500 InternalError to a metadata that is a string, number or boolean',
    rule: 'core-protocol.md#Field validation: 1',
    caughtBy: ['core/validation/metadata-not-an-object-400'],
    match: { method: ['POST', 'PUT', 'PATCH'] },
    response: (r) =>
      r.status === 400 && causes(r).some((c) => c.field === 'metadata' && c.reason === 'FieldValueTypeInvalid')
        ? withJson(
            r,
            {
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              status: 'Failure',
              message: 'Internal error',
              reason: 'InternalError',
              code: 500,
            },
            500,
          )
        : undefined,
  },
  skipsCheck(
    {
      id: 'required-spec-dropped-by-merge-patch',
      description: 'lets a merge patch {"spec": null} remove a valid Pod\'s spec',
      rule: 'core-protocol.md#Field validation: 1',
      caughtBy: ['core/validation/required-dropped-by-merge-patch-400'],
    },
    { method: 'PATCH', headers: { 'content-type': /merge-patch\+json/ } },
    required,
  ),
  {
    id: 'apply-unknown-field-owned',
    description: "records an unknown field dropped from an apply body as owned in the manager's managedFields",
    rule: 'core-protocol.md#Field validation: 2',
    caughtBy: ['core/validation/apply-unknown-field-not-owned'],
    match: { method: 'PATCH', headers: { 'content-type': APPLY } },
    response: (r, ctx) => {
      const sent = sentDocument(ctx.request);
      const manager = ctx.request.query.get('fieldManager');
      if (!sent || !manager || r.status >= 300) return undefined;
      const unknown = Object.keys(sent).filter(
        (k) => !['apiVersion', 'kind', 'metadata', 'data', 'binaryData', 'immutable', 'spec'].includes(k),
      );
      if (unknown.length === 0) return undefined;
      return editJson(r, (body) => {
        const entries = metadataOf(body)?.managedFields;
        const entry = Array.isArray(entries) ? entries.find((e) => isObject(e) && e.manager === manager) : undefined;
        if (!isObject(entry) || !isObject(entry.fieldsV1)) return false;
        for (const k of unknown) entry.fieldsV1[`f:${k}`] = {};
        return true;
      });
    },
  },
  skipsCheck(
    {
      id: 'stale-apply-accepted',
      description: 'ignores a stale metadata.resourceVersion in an apply body (the other patch types answer 409)',
      rule: 'core-protocol.md#Update rules: 3',
      caughtBy: ['core/validation/stale-apply-409'],
    },
    { method: 'PATCH', headers: { 'content-type': APPLY } },
    stale,
  ),
  {
    id: 'force-on-non-apply-accepted',
    description: 'accepts force on merge and JSON patches instead of 422',
    rule: 'core-protocol.md#Query parameters: force',
    caughtBy: ['core/validation/force-on-non-apply-patch-422'],
    match: { method: 'PATCH', query: (q) => q.has('force') },
    response: async (r, ctx) =>
      r.status === 422 && causes(r).some((c) => c.field === 'force')
        ? askAgain(ctx, (q) => {
            q.delete('force');
          })
        : undefined,
  },
  {
    id: 'duplicate-keys-refused-under-warn',
    description: 'refuses YAML and apply bodies with duplicate keys with 400 under Warn instead of accepting them with a warning',
    rule: 'core-protocol.md#Field validation: 3',
    caughtBy: ['core/validation/yaml-duplicate-key-warn-accepted', 'core/validation/apply-duplicate-key-warn-accepted'],
    match: { method: ['POST', 'PUT', 'PATCH'], headers: { 'content-type': /yaml/ } },
    response: (r) =>
      r.status < 300 && (r.headers.warning ?? []).some((w) => /duplicate field/.test(w))
        ? withJson(
            r,
            {
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              status: 'Failure',
              message: 'yaml: duplicate key',
              reason: 'BadRequest',
              code: 400,
            },
            400,
          )
        : undefined,
  },
  {
    id: 'strict-names-first-duplicate-only',
    description: 'under Strict names only the first duplicate key, without the other duplicates and unknown fields',
    rule: 'core-protocol.md#Field validation: 3',
    caughtBy: ['core/validation/yaml-strict-names-every-duplicate-and-unknown', 'core/validation/extra-strict-names-every-duplicate*'],
    match: { method: ['POST', 'PUT', 'PATCH'], query: (q) => q.get('fieldValidation') === 'Strict' },
    response: (r) => {
      const first = causes(r).find((c) => c.reason === 'FieldValueDuplicate');
      if (r.status !== 400 || !first) return undefined;
      return editJson(r, (body) => {
        body.message = `strict decoding error: ${String(first.message)}`;
        body.details = { causes: [first] };
        return true;
      });
    },
  },
];

/** Each breaks a rule on one path (a content type, patch type or API version) and leaves the others correct. */
export const ONE_PATH_MUTATIONS: readonly Mutation[] = onePathOnly;
export const PAST_DEFECT_MUTATIONS: readonly Mutation[] = pastDefects;
export const WRITE_PATH_MUTATIONS: readonly Mutation[] = [...onePathOnly, ...pastDefects];
