import { type JsonApiObject, badRequest, cannotBeHandledAs, fieldTypeInvalid, jsonTypeOf } from '../api/index.js';
import { MAX_JSON_DEPTH, exceedsJsonDepth, exceedsTextNesting } from '../json/index.js';

/** What these checks read of a request's target (a leaf module: http.ts uses it too). */
interface Target {
  name?: string | undefined;
  namespace?: string | undefined;
  resource: { kind: string; version: string; namespaced: boolean };
}

/** The metadata fields the server reads before validation (to name, route or default an object). */
const IDENTITY_FIELDS = ['name', 'generateName', 'namespace', 'resourceVersion', 'uid'] as const;

/**
 * 400 for a decoded request document nested deeper than the decoder allows: checked before any
 * recursive code sees it. The real decoder stops at 10,000 levels; this one at MAX_JSON_DEPTH
 * (docs/decisions.md), far beyond any object a schema describes.
 */
export function checkDepth(value: unknown, what = 'the request body'): void {
  if (exceedsJsonDepth(value)) throw badRequest(`${what} is nested deeper than ${MAX_JSON_DEPTH} levels`);
}

/**
 * The same limit on a YAML text before it is read: flow collections (`[`, `{`) nested deeper
 * than MAX_JSON_DEPTH outside quoted strings are refused, as the YAML reader can exhaust memory
 * on them rather than fail.
 */
export function checkYamlDepth(text: string, what = 'the request body'): void {
  if (exceedsTextNesting(text)) throw badRequest(`${what} is nested deeper than ${MAX_JSON_DEPTH} levels`);
}

/**
 * An object's metadata must be an object, and the identity fields the server reads before
 * validation must be strings: otherwise 400 naming the field, as the real system's decoder answers
 * when ObjectMeta cannot be unmarshalled (and never a failure of the server). A null metadata or
 * field counts as absent, as decoding null into a Go struct does.
 */
export function checkMetadataShape(t: Target, object: JsonApiObject): void {
  const meta: unknown = object.metadata;
  if (meta === undefined || meta === null) return;
  if (typeof meta !== 'object' || Array.isArray(meta)) throw cannotDecode(t, 'metadata', meta, 'object');
  for (const field of IDENTITY_FIELDS) {
    const value = (meta as Record<string, unknown>)[field];
    if (value !== undefined && value !== null && typeof value !== 'string') throw cannotDecode(t, `metadata.${field}`, value, 'string');
  }
}

/**
 * A write of an existing object keeps its identity: the name must be the URL's, and a namespaced
 * object's namespace the request's (400 otherwise, as upstream's BeforeUpdate); a cluster-scoped
 * object carries no namespace. Sets both from the request.
 */
export function keepIdentity(t: Target, object: JsonApiObject): void {
  const meta = (object.metadata ??= {});
  if (meta.name !== undefined && meta.name !== null && meta.name !== t.name) {
    throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${t.name})`);
  }
  meta.name = t.name!;
  if (!t.resource.namespaced) {
    delete meta.namespace;
    return;
  }
  if (meta.namespace !== undefined && meta.namespace !== null && meta.namespace !== '' && meta.namespace !== t.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  meta.namespace = t.namespace!;
}

function cannotDecode(t: Target, field: string, value: unknown, expected: string) {
  const error = fieldTypeInvalid(field, jsonTypeOf(value), `must be of type ${expected}, not ${jsonTypeOf(value)}`);
  return cannotBeHandledAs(t.resource.kind, t.resource.version, error);
}
