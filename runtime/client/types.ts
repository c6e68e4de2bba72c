/** The shapes every resource client works with: objects, lists, watch events, resource identity. */

import type { ApiObject } from '../api/index.js';

/** Any API object and its metadata: runtime/api's one definition; generated kinds are assignable to it. */
export type { ApiObject, ObjectMeta as ObjectMetaFields } from '../api/index.js';

/** The list metadata of a collection response. */
export interface ListMetaFields {
  resourceVersion?: string;
  /** Empty on the last page. */
  continue?: string;
  remainingItemCount?: number;
}

/** A `<Kind>List`: generated list kinds are assignable to it. */
export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMetaFields;
  items: T[];
}

/** A BOOKMARK carries only the resourceVersion, in an object of the watched kind. */
export interface BookmarkObject {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion: string; annotations?: Record<string, string> };
}

/** A change of one object of a watched collection. */
export interface ObjectEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: T;
}

/** One event of a watch: a change, or (when asked for) a BOOKMARK. */
export type WatchEvent<T> = ObjectEvent<T> | { type: 'BOOKMARK'; object: BookmarkObject };

/** The success Status a delete answers when the object is removed at once. */
export interface SuccessStatus {
  kind: 'Status';
  apiVersion: string;
  status: 'Success';
  details?: { name?: string; group?: string; kind?: string; uid?: string };
}

/** Subresources the typed clients have verbs for. */
export type KnownSubresource = 'status' | 'eviction' | 'finalize' | 'token';

/** What a service account's token subresource is asked for (the TokenRequest's spec). */
export interface TokenRequestSpec {
  audiences?: string[];
  /** Default 3600; at least 600. */
  expirationSeconds?: number;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string };
}

/** The TokenRequest the token subresource answers: the spec as defaulted, and the token. */
export interface TokenRequest extends ApiObject {
  spec: TokenRequestSpec;
  status: { token: string; expirationTimestamp: string };
}

/**
 * What a typed client hands to the generic one: where the resource is served, its kinds and scope,
 * and the subresources its kind has (generated per resource, as client-go's generated clients do).
 */
export interface ResourceInfo<S extends string = string> {
  /** '' for the core group. */
  group: string;
  version: string;
  /** The plural name used in paths. */
  resource: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  subresources: readonly S[];
  /** Defined by a CustomResourceDefinition: no strategic merge patch, no Protobuf. */
  custom?: boolean;
}

/** `namespace/name`, or `name` for a cluster-scoped object: the key of caches and watch state. */
export function objectKey(object: ApiObject): string {
  const m = object.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}
