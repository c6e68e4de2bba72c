/**
 * The Node half of the client (`svckit/client/node`): client config files, token files, exec
 * credential plugins, in-cluster config, writing a client config file, and the connector that carries TLS settings, client
 * certificates and proxies. The configs its loaders return already carry the connector.
 */
export {
  CLIENT_CONFIG_ENV,
  EXEC_CLUSTER_EXTENSION,
  KUBECONFIG_ENV,
  KUBERNETES_EXEC_CLUSTER_EXTENSION,
  type ClientConfigFile,
  type ClientConfigSelection,
  type ClusterEntry,
  type ContextEntry,
  type LoadClientConfigOptions,
  type UserEntry,
  clientConfigFromFile,
  clientConfigPaths,
  defaultClientConfig,
  loadClientConfig,
  parseClientConfigFile,
} from './client-config-file.js';
export { type ClientConfigFileContent, formatClientConfigFile, writeClientConfigFile } from './client-config-writer.js';
export { nodeConnector } from './connector.js';
export {
  EXEC_API_VERSIONS,
  EXEC_INFO_ENV,
  KUBERNETES_EXEC_INFO_ENV,
  type ExecClusterInfo,
  type ExecConfig,
  type ExecCredentialOptions,
  execCredential,
  execInfoEnv,
  isKubernetesExecVersion,
} from './exec-credential.js';
export {
  KUBERNETES_SERVICE_ACCOUNT_DIR,
  KUBERNETES_SERVICE_HOST_ENV,
  KUBERNETES_SERVICE_PORT_ENV,
  POD_NAMESPACE_ENV,
  SERVICE_ACCOUNT_DIR,
  SERVICE_HOST_ENV,
  SERVICE_PORT_ENV,
  type InClusterOptions,
  inClusterConfig,
  isInCluster,
} from './in-cluster.js';
export { type TokenFileOptions, tokenFile } from './token-file.js';
