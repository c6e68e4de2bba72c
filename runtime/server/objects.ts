import type { JsonApiObject } from '../api/index.js';
import type { KeyValue } from '../store/index.js';
import type { ServedResource } from './resources.js';

/** The storage key of one object: `<storagePrefix><namespace>/<name>` (`/registry/pods/ns/name`) or `<storagePrefix><name>`. */
export function objectKey(r: ServedResource, namespace: string | undefined, name: string): string {
  return r.namespaced ? `${r.storagePrefix}${namespace}/${name}` : `${r.storagePrefix}${name}`;
}

/** The key prefix of a collection: one namespace, or every namespace when `namespace` is undefined. */
export function collectionPrefix(r: ServedResource, namespace: string | undefined): string {
  return r.namespaced && namespace !== undefined ? `${r.storagePrefix}${namespace}/` : r.storagePrefix;
}

/**
 * The stored form: the storage version's apiVersion and field names, without resourceVersion (the
 * store's revision is the version, set again on the way out).
 */
export function encodeObject(obj: JsonApiObject, r: ServedResource): string {
  const storage = r.storageVersion ?? r;
  // Type meta and metadata first, as the real system writes objects.
  const { apiVersion, kind, metadata, ...rest } = structuredClone(obj);
  const copy: JsonApiObject = { apiVersion: apiVersion ?? r.apiVersion, kind, metadata, ...rest };
  if (copy.metadata) delete copy.metadata.resourceVersion;
  r.converter.convert(copy, storage.apiVersion);
  return JSON.stringify(copy);
}

/**
 * The object as served at `r`'s version, with its resourceVersion: converted from the version it
 * was stored in, whichever that was (an older storage version, one no longer served).
 */
export function decodeObject(kv: Pick<KeyValue, 'value' | 'modRevision'>, r: ServedResource): JsonApiObject {
  const obj = r.converter.convert(JSON.parse(kv.value) as JsonApiObject, r.apiVersion);
  obj.metadata ??= {};
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}
