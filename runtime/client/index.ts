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
export {
  CLIENT_CONFIG_ENV,
  EXEC_CLUSTER_EXTENSION,
  type ClientConfigFile,
  type ClientConfigSelection,
  type ClusterEntry,
  type ContextEntry,
  type LoadClientConfigOptions,
  type UserEntry,
  clientConfigFromFile,
  defaultClientConfig,
  loadClientConfig,
  parseClientConfigFile,
} from './client-config-file.js';
export { type Codec, JSON_MEDIA_TYPE, jsonCodec } from './codec.js';
export { protobufCodec } from './protobuf-codec.js';
export type { ClientConfig, RetryOptions, WarningContext, WarningHandler } from './config.js';
export { type CredentialSource, type Credentials, type TokenFileOptions, bearerToken, clientCertificate, tokenFile } from './credentials.js';
export { ConnectionError, isConnectionError, isExpired, isTransient } from './errors.js';
export { EXEC_API_VERSIONS, EXEC_INFO_ENV, type ExecClusterInfo, type ExecConfig, type ExecCredentialOptions, execCredential } from './exec-credential.js';
export { SERVICE_ACCOUNT_DIR, SERVICE_HOST_ENV, SERVICE_PORT_ENV, type InClusterOptions, inClusterConfig, isInCluster } from './in-cluster.js';
export { type EventHandler, type IndexFunction, Informer, type InformerOptions, byLabel, byNamespace } from './informer.js';
export type { TlsOptions } from './node-http.js';
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
export type { ApplyConfiguration, DeepPartial, JsonPatchOperation, MergePatch, StrategicDirectives, StrategicMergePatch } from './patch-types.js';
export { PATCH_CONTENT_TYPES, ResourceClient, type WatchOptions } from './resource-client.js';
export type { ReflectOptions } from './reflector.js';
export { type ApiRequest, type ByteStream, type FetchInit, type FetchLike, type FetchResponse, type HttpMethod, Transport } from './transport.js';
export type { ApiObject, BookmarkObject, KnownSubresource, ListMetaFields, ObjectEvent, ObjectList, ObjectMetaFields, ResourceInfo, SuccessStatus, WatchEvent } from './types.js';
export { objectKey } from './types.js';
