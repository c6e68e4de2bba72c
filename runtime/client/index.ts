/**
 * The client runtime: the generic typed resource client, transport, watches, informers and
 * credentials that need no file system. It runs in Node and in browsers; what needs Node (client
 * config files, token files, exec plugins, in-cluster config, TLS connections) is in
 * `runtime/client-node` (`svckit/client/node`).
 */
export { StatusError, isStatusError } from '../api/index.js';
export {
  type AllNamespacesClient,
  type ClusterCustomResource,
  type ClusterResource,
  type NamespacedCustomResource,
  type NamespacedResource,
  type TypedCustomResourceClient,
  type TypedResourceClient,
  type Verb,
  clusterResource,
  namespacedResource,
} from './accessors.js';
export { Backoff, type BackoffOptions } from './backoff.js';
export { type Codec, JSON_MEDIA_TYPE, jsonCodec } from './codec.js';
export { protobufCodec } from './protobuf-codec.js';
export type {
  ByteStream,
  ClientConfig,
  Connector,
  FetchInit,
  FetchLike,
  FetchResponse,
  RetryOptions,
  TlsOptions,
  WarningContext,
  WarningHandler,
} from './config.js';
export { type CredentialSource, type Credentials, bearerToken, clientCertificate } from './credentials.js';
export { ConnectionError, isConnectionError, isExpired, isTransient } from './errors.js';
export { type EventHandler, type IndexFunction, Informer, type InformerOptions, byLabel, byNamespace } from './informer.js';
export type {
  ApplyOptions,
  CallOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  Selector,
  WriteOptions,
} from './options.js';
export { DEFAULT_PAGE_SIZE, type ListAllOptions } from './pager.js';
export type {
  ApplyConfiguration,
  DeepPartial,
  JsonPatchOperation,
  MergePatch,
  StrategicDirectives,
  StrategicMergePatch,
} from './patch-types.js';
export { PATCH_CONTENT_TYPES, ResourceClient, type WatchOptions } from './resource-client.js';
export type { ReflectOptions } from './reflector.js';
export { type ApiRequest, type HttpMethod, Transport } from './transport.js';
export type {
  ApiObject,
  BookmarkObject,
  KnownSubresource,
  ListMetaFields,
  ObjectEvent,
  ObjectList,
  ObjectMetaFields,
  ResourceInfo,
  SuccessStatus,
  TokenRequest,
  TokenRequestSpec,
  WatchEvent,
} from './types.js';
export { objectKey } from './types.js';
