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
 * store's revision is the version, set again on the way out). Asynchronous because a custom
 * resource may convert through its webhook.
 */
export async function encodeObject(obj: JsonApiObject, r: ServedResource): Promise<string> {
  return JSON.stringify(await storedForm(obj, r));
}

/**
 * The object {@link encodeObject} writes as JSON. A copy down to metadata; below that it shares
 * `obj`'s values unless it is converted (conversions work in place on a deep copy), so it is read,
 * never changed.
 */
export async function storedForm(obj: JsonApiObject, r: ServedResource): Promise<JsonApiObject> {
  const storage = r.storageVersion ?? r;
  // Type meta and metadata first, as the real system writes objects.
  const { apiVersion, kind, metadata, ...rest } = obj;
  const copy: JsonApiObject = { apiVersion: apiVersion ?? r.apiVersion, kind, metadata, ...rest };
  if (metadata) {
    const { resourceVersion: _, ...kept } = metadata;
    copy.metadata = kept;
  }
  if (copy.apiVersion === storage.apiVersion) return copy;
  return r.converter.convert(structuredClone(copy), storage.apiVersion);
}

/**
 * What a write of `form` ({@link storedForm}) answers once stored at `modRevision`: the object as
 * {@link decodeObject} reads it back, without reading the text again when the storage version
 * is the served one (then only a copy of the top level and metadata).
 */
export async function writtenObject(
  form: JsonApiObject,
  kv: Pick<KeyValue, 'value' | 'modRevision'>,
  r: ServedResource,
): Promise<JsonApiObject> {
  if (form.apiVersion !== r.apiVersion) return decodeObject(kv, r);
  return { ...form, metadata: servedMetadata(form.metadata, kv.modRevision) };
}

/**
 * The object as served at `r`'s version, with its resourceVersion: converted from the version it
 * was stored in, whichever that was (an older storage version, one no longer served).
 */
export async function decodeObject(kv: Pick<KeyValue, 'value' | 'modRevision'>, r: ServedResource): Promise<JsonApiObject> {
  return decodeObjectNow(kv, r);
}

/**
 * As {@link decodeObject}, at once when the object needs no conversion (it is stored at `r`'s
 * version): the readers that serve many (a get, a watch event for every watcher) wait only for a
 * conversion.
 */
export function decodeObjectNow(kv: Pick<KeyValue, 'value' | 'modRevision'>, r: ServedResource): JsonApiObject | Promise<JsonApiObject> {
  const stored = parseStored(kv.value);
  if (!needsConversion(stored, r)) return withResourceVersion(stored, kv.modRevision);
  return r.converter.convert(stored, r.apiVersion).then((obj) => withResourceVersion(obj, kv.modRevision));
}

/**
 * A stored value as an object. One that is no JSON (corrupt, or "opened" by a wrong key that
 * unpadded by chance) is reported without its text: that could be a Secret's.
 */
function parseStored(value: string): JsonApiObject {
  try {
    return JSON.parse(value) as JsonApiObject;
  } catch {
    throw new Error('the stored value is not JSON (corrupt, or decrypted with another key than it was written with)');
  }
}

/** The converter changes only an object that names another version (`ResourceConverter.convertAll`). */
function needsConversion(stored: JsonApiObject, r: ServedResource): boolean {
  return typeof stored.apiVersion === 'string' && stored.apiVersion !== r.apiVersion;
}

/** Several stored objects as served at `r`'s version, converted together (one webhook call for a list, as upstream). */
export async function decodeObjects(kvs: readonly Pick<KeyValue, 'value' | 'modRevision'>[], r: ServedResource): Promise<JsonApiObject[]> {
  const parsed = kvs.map((kv) => parseStored(kv.value));
  const objects = await r.converter.convertAll(parsed, r.apiVersion);
  return objects.map((obj, i) => withResourceVersion(obj, kvs[i]!.modRevision));
}

/** A stored object with its resourceVersion: the store's revision of its last write. */
export function withResourceVersion(obj: JsonApiObject, modRevision: number): JsonApiObject {
  obj.metadata = servedMetadata(obj.metadata, modRevision);
  return obj;
}

/**
 * Metadata as served: the resourceVersion its first member, where a stored text gets it without
 * being parsed (stored-text.ts), so an object reads the same byte for byte however it is served.
 */
function servedMetadata(metadata: JsonApiObject['metadata'], modRevision: number): NonNullable<JsonApiObject['metadata']> {
  const { resourceVersion: _, ...rest } = metadata ?? {};
  return { resourceVersion: String(modRevision), ...rest };
}
