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
  const copy: JsonApiObject = { apiVersion, kind, metadata, ...rest };
  if (copy.metadata) delete copy.metadata.resourceVersion;
  if (storage !== r) {
    for (const rename of r.descriptor.conversion) movePath(copy, rename.path, rename.storagePath);
    copy.apiVersion = storage.apiVersion;
  }
  return JSON.stringify(copy);
}

/** The object as served at `r`'s version, with its resourceVersion. */
export function decodeObject(kv: Pick<KeyValue, 'value' | 'modRevision'>, r: ServedResource): JsonApiObject {
  const obj = JSON.parse(kv.value) as JsonApiObject;
  const storage = r.storageVersion ?? r;
  if (storage !== r) {
    for (const rename of r.descriptor.conversion) movePath(obj, rename.storagePath, rename.path);
    obj.apiVersion = r.apiVersion;
  }
  obj.metadata ??= {};
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}

/** Moves the value at dotted path `from` to `to` (same parent), through lists element by element. */
function movePath(obj: unknown, from: string, to: string): void {
  const a = from.split('.');
  const b = to.split('.');
  const parent = a.slice(0, -1);
  if (parent.join('.') !== b.slice(0, -1).join('.'))
    throw new Error(`conversion ${from} -> ${to}: only renames within one parent are supported`);
  const leafFrom = a[a.length - 1]!;
  const leafTo = b[b.length - 1]!;
  for (const holder of walk(obj, parent)) {
    if (leafFrom in holder) {
      holder[leafTo] = holder[leafFrom];
      delete holder[leafFrom];
    }
  }
}

function* walk(value: unknown, segments: string[]): Generator<Record<string, unknown>> {
  if (Array.isArray(value)) {
    for (const item of value) yield* walk(item, segments);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const rec = value as Record<string, unknown>;
  if (segments.length === 0) {
    yield rec;
    return;
  }
  yield* walk(rec[segments[0]!], segments.slice(1));
}
