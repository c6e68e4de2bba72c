import { ResourceClient } from './resource-client.js';
import type { Transport } from './transport.js';
import type { ApiObject, KnownSubresource, ObjectList, ResourceInfo } from './types.js';

/** The methods each subresource adds; a kind without the subresource does not show them. */
interface SubresourceMethods {
  status: 'getStatus' | 'updateStatus' | 'applyStatus';
  eviction: 'evict';
  finalize: 'finalize';
  token: 'createToken';
}

/** The verbs of the protocol a resource may serve. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** The methods each verb stands for; a resource that does not serve the verb does not show them. */
interface VerbMethods {
  get: 'get';
  list: 'list' | 'listAll';
  watch: 'watch' | 'informer';
  create: 'create';
  update: 'update';
  patch: 'jsonPatch' | 'mergePatch' | 'strategicMergePatch' | 'apply';
  delete: 'delete';
  deletecollection: 'deleteCollection';
}

/** The methods of a resource whose kind has the subresources `S` and that serves the verbs `V`. */
export type TypedResourceClient<
  T extends ApiObject,
  L extends ObjectList<T>,
  S extends KnownSubresource = never,
  V extends Verb = Verb,
> = Omit<ResourceClient<T, L>, SubresourceMethods[Exclude<KnownSubresource, S>] | VerbMethods[Exclude<Verb, V>]>;

/** The same for a custom resource: no strategic merge patch (the server never serves it for them). */
export type TypedCustomResourceClient<
  T extends ApiObject,
  L extends ObjectList<T>,
  S extends KnownSubresource = never,
  V extends Verb = Verb,
> = Omit<TypedResourceClient<T, L, S, V>, 'strategicMergePatch'>;

/** Reads across all namespaces: list, listAll, watch, informer. */
export type AllNamespacesClient<T extends ApiObject, L extends ObjectList<T>> = Pick<
  ResourceClient<T, L>,
  'list' | 'listAll' | 'watch' | 'informer' | 'info'
>;

/** `pods('ns')` for one namespace (the client's default namespace when omitted), `pods.all()` across all. */
export interface NamespacedResource<
  T extends ApiObject,
  L extends ObjectList<T>,
  S extends KnownSubresource = never,
  V extends Verb = Verb,
> {
  (namespace?: string): TypedResourceClient<T, L, S, V>;
  all(): AllNamespacesClient<T, L>;
}

export interface NamespacedCustomResource<
  T extends ApiObject,
  L extends ObjectList<T>,
  S extends KnownSubresource = never,
  V extends Verb = Verb,
> {
  (namespace?: string): TypedCustomResourceClient<T, L, S, V>;
  all(): AllNamespacesClient<T, L>;
}

/** A cluster-scoped resource's client: `namespaces.get('x')`. */
export type ClusterResource<
  T extends ApiObject,
  L extends ObjectList<T>,
  S extends KnownSubresource = never,
  V extends Verb = Verb,
> = TypedResourceClient<T, L, S, V>;

export type ClusterCustomResource<
  T extends ApiObject,
  L extends ObjectList<T>,
  S extends KnownSubresource = never,
  V extends Verb = Verb,
> = TypedCustomResourceClient<T, L, S, V>;

/** The accessor of a namespaced resource, for generated clients (assignable to every narrower accessor type). */
export function namespacedResource<T extends ApiObject, L extends ObjectList<T>>(
  transport: Transport,
  info: ResourceInfo,
): NamespacedResource<T, L, KnownSubresource> {
  const accessor = (namespace?: string) => new ResourceClient<T, L>(transport, info, namespace ?? transport.namespace);
  return Object.assign(accessor, { all: () => new ResourceClient<T, L>(transport, info, undefined) });
}

/** The client of a cluster-scoped resource, for generated clients (assignable to every narrower accessor type). */
export function clusterResource<T extends ApiObject, L extends ObjectList<T>>(
  transport: Transport,
  info: ResourceInfo,
): ResourceClient<T, L> {
  return new ResourceClient<T, L>(transport, info, undefined);
}
