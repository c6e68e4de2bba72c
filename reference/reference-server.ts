import { allKinds } from '../generated/kinds.js';
import { SPEC_GROUP_SUFFIX } from '../runtime/api/index.js';
import { openApiDocuments as builtinDocuments } from '../generated/openapi.js';
import { type DefinitionFile, definitionKinds, installDefinitions } from './custom-resources/index.js';
import { allProtobufPackages } from '../generated/protobuf.js';
import type { EncryptionAtRest } from '../runtime/encryption/index.js';
import type { Auditor } from '../runtime/audit/index.js';
import { ApiServerMetrics } from '../runtime/metrics/index.js';
import { type FeatureGates, parseFeatureGates } from '../runtime/features/index.js';
import type { KindRegistration } from '../runtime/schema/index.js';
import { type NamespaceDefaultsOptions, builtinHandlers, namespaceDefaults, serviceClusterIPs } from './kinds/index.js';
import {
  type AdmissionPluginSource,
  ApiServer,
  DEFAULT_RELEASE,
  type HandlerCatalog,
  type ServingTls,
  type RuleChecker,
  type Stage,
  celRuleChecker,
  mergeCatalogs,
  mutatingWebhookAdmission,
  validatingAdmissionPolicy,
  validatingWebhookAdmission,
} from '../runtime/server/index.js';
import { type Store, createStore } from '../runtime/store/index.js';
import { type AccessControlOptions, accessControl, bootstrapRbac } from './access-control.js';
import { type LoopbackClient, loopbackClient } from './loopback-client.js';
import { SYSTEM_NAMESPACES, reconcileKubernetesService } from './system-services.js';
import { registerLocalApiServices } from './local-api-services.js';
import { keptKeyPlace } from './kept-signing-key.js';
import { type ServiceAccountOptions, serviceAccountAuthenticator, serviceAccountIssuer, withTokenRequests } from './service-accounts.js';

/** Where the reference server keeps its objects unless told otherwise. */
export const DEFAULT_STORE = 'sqlite:.svckit/data.db';

export interface ReferenceServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** `memory` or `sqlite:<path>`, or a store already open (the test server's); default {@link DEFAULT_STORE}. */
  store?: string | Store;
  /**
   * The `--store` text of a store given open: where a generated service-account signing key is
   * kept (kept-signing-key.ts); without it, such a store's key lasts as long as the process.
   */
  storeSpec?: string;
  /** The server's clock (timestamps, continue-token lifetimes, table ages); default the system's. */
  now?: () => Date;
  /** Stages only a test server adds to the handler chain (`svckit/testing`). */
  testStages?: readonly Stage[];
  historyWindowMs?: number;
  continueTtlMs?: number;
  /** The continue-token signing key (`--continue-token-key-file`); by default one kept in the store. */
  continueSecret?: Uint8Array;
  bookmarkIntervalMs?: number;
  rules?: RuleChecker;
  /** `--runtime-config`: enables removed versions (e.g. `batch/v1beta1=true`) or disables served ones. */
  runtimeConfig?: string;
  /** The release the server acts as (served versions and `/version`); default 1.30. */
  release?: string;
  /** Response compression; default: the `APIResponseCompression` gate. */
  compression?: boolean;
  /** `--feature-gates`, parsed or as its text; default: every gate at its 1.30 default (WatchList, alpha, off). */
  featureGates?: FeatureGates | string;
  /**
   * A project's own kinds and OpenAPI documents instead of the built-in ones (`svckit serve
   * --schemas`); they are custom resources, so the server offers no Protobuf for them.
   */
  project?: { kinds: readonly KindRegistration[]; openApiDocuments: Record<string, () => Promise<Record<string, unknown>>> };
  /** Named handlers the kinds refer to, over the built-in catalogue. */
  handlers?: HandlerCatalog;
  /** Encryption at rest (`--encryption-provider-config`, loaded by `EncryptionAtRest.load`). */
  encryption?: EncryptionAtRest;
  /** The audit policy and backend (`--audit-policy-file`, `--audit-log-path`); none records nothing. */
  audit?: Auditor;
  /** `--show-hidden-metrics-for-version`: the previous minor release, whose hidden metrics `/metrics` shows again. */
  showHiddenMetricsForVersion?: string;
  /** Admission plugins in order; default the webhook plugins (`svckit serve --enable-admission-plugins`). */
  admission?: readonly AdmissionPluginSource[];
  /** HTTPS, authentication and authorization (`svckit serve --secure` and the auth flags); default plain HTTP, everyone allowed. */
  access?: AccessControlOptions;
  /** CustomResourceDefinitions applied through the API at start, established before the server is ready (`--crds`). */
  crds?: readonly DefinitionFile[];
  /** `--group-suffix`: the spec's groups served as `<name>.<suffix>` (`k8s.io`: the real system's names); default svc.io. */
  groupSuffix?: string;
  /** `--service-cluster-ip-range`: the IPv4 range services' cluster IPs come from; default 10.96.0.0/12, as kube-apiserver's. */
  serviceClusterIPRange?: string;
  /**
   * The controllers of kube-controller-manager that fill namespaces (the `default` ServiceAccount,
   * the `kube-root-ca.crt` ConfigMap); default on, as in a cluster. false: neither runs.
   */
  namespaceControllers?: boolean;
  /** The CA `kube-root-ca.crt` publishes; default the client CA of HTTPS, else its serving certificate; none over HTTP. */
  rootCa?: string;
  /** kube-controller-manager's root-ca-cert-publisher (`--controllers -root-ca-cert-publisher`); default on. */
  rootCaPublisher?: boolean;
  /** Service-account tokens (`--service-account-issuer`, `--service-account-signing-key-file`, ...); default a generated key (kept-signing-key.ts). */
  serviceAccounts?: ServiceAccountOptions;
}

export interface RunningServer {
  url: string;
  server: ApiServer;
  close(): Promise<void>;
}

/**
 * The store's compaction interval for a history window: an eighth of the window, at least 50 ms
 * (tests use windows of a fraction of a second) and at most a minute. On etcd, history then goes
 * within the window plus one interval plus the one-second sampling of revisions (10 s for an 8 s
 * window), inside the window and a half that clients and the conformance kit allow.
 */
export function compactionIntervalMs(historyWindowMs: number): number {
  return Math.max(50, Math.min(60_000, Math.floor(historyWindowMs / 8)));
}

/** The reference server: every built-in kind (or a project's) over the chosen store. Wiring only; behaviour is in runtime/ and reference/kinds. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<RunningServer> {
  // Before the store opens: a missing key flag on etcd is refused with nothing to close.
  const storeSpec = typeof options.store === 'object' ? options.storeSpec : (options.store ?? DEFAULT_STORE);
  const keyPlace = options.serviceAccounts?.signingKey ? undefined : keptKeyPlace(storeSpec, options.encryption);
  const store =
    typeof options.store === 'object'
      ? options.store
      : await createStore(options.store ?? DEFAULT_STORE, {
          ...(options.historyWindowMs !== undefined
            ? { historyWindowMs: options.historyWindowMs, compactionIntervalMs: compactionIntervalMs(options.historyWindowMs) }
            : {}),
        });
  const issuer = await serviceAccountIssuer(options.serviceAccounts ?? {}, store, { keyPlace, now: options.now }).catch(
    async (e: unknown) => {
      if (typeof options.store !== 'object') await store.close(); // a key file refused: the store opened here closes
      throw e;
    },
  );
  const access = options.access
    ? accessControl(
        {
          ...options.access,
          authenticators: [serviceAccountAuthenticator(issuer, () => server), ...(options.access.authenticators ?? [])],
        },
        () => server,
        options.groupSuffix,
      )
    : undefined;
  const server: ApiServer = new ApiServer({
    kinds: options.project?.kinds ?? allKinds,
    groupSuffix: options.groupSuffix,
    store,
    continueTtlMs: options.continueTtlMs,
    continueSecret: options.continueSecret,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    rules: options.rules ?? celRuleChecker(),
    openApiDocuments: options.project?.openApiDocuments ?? builtinDocuments,
    // Protobuf is for the built-in kinds only; a project's own kinds are custom resources.
    protobufPackages: options.project ? undefined : allProtobufPackages,
    compression: options.compression,
    featureGates: typeof options.featureGates === 'string' ? parseFeatureGates(options.featureGates).gates : options.featureGates,
    runtimeConfig: options.runtimeConfig,
    release: options.release,
    handlers: mergeCatalogs(
      builtinHandlers,
      withNamespaceDefaults(
        withServiceRange(withTokenRequests(options.handlers, issuer), options.serviceClusterIPRange),
        options.namespaceControllers === false
          ? { enabled: false }
          : { rootCa: options.rootCaPublisher === false ? undefined : (options.rootCa ?? rootCaOf(access?.tls)) },
      ),
    ),
    encryption: options.encryption,
    chain: { ...access?.chain, audit: options.audit, testing: options.testStages, serviceAccountIssuer: issuer },
    now: options.now,
    ...(access ? { tls: access.tls } : {}),
    metrics: new ApiServerMetrics({
      release: options.release ?? DEFAULT_RELEASE,
      showHiddenMetricsForVersion: options.showHiddenMetricsForVersion,
    }),
    admission: options.admission ?? [mutatingWebhookAdmission(), validatingAdmissionPolicy(), validatingWebhookAdmission()],
    compileCustomResource: definitionKinds,
  });
  const url = await server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  const loopback = access ? access.loopback(url) : loopbackClient(url);
  if (access?.rbac) await bootstrapRbac(loopback, options.groupSuffix);
  if (!options.project) {
    for (const name of [DEFAULT_NAMESPACE, ...SYSTEM_NAMESPACES]) await ensureNamespace(loopback, name);
    await reconcileKubernetesService(loopback, { url, serviceCidr: options.serviceClusterIPRange, groupSuffix: options.groupSuffix });
    await registerLocalApiServices(server.context, options.groupSuffix ?? SPEC_GROUP_SUFFIX);
  }
  if (options.crds) {
    try {
      await installDefinitions(loopback, options.crds, options.groupSuffix);
    } catch (e) {
      await server.close(); // a refused definition: nothing keeps listening
      throw e;
    }
  }
  return {
    url,
    server,
    close: async () => {
      await server.close();
      options.audit?.close();
    },
  };
}

/** The catalogue with the services' cluster IPs taken from `range` (`--service-cluster-ip-range`) when given. */
function withServiceRange(given: HandlerCatalog, range: string | undefined): HandlerCatalog {
  if (range === undefined) return given;
  return { ...given, hooks: { 'service-cluster-ip': serviceClusterIPs(range), ...given.hooks } };
}

/** The catalogue with the namespace controllers as configured, unless the catalogue given has its own. */
function withNamespaceDefaults(given: HandlerCatalog, options: NamespaceDefaultsOptions): HandlerCatalog {
  return { ...given, hooks: { 'namespace-defaults': namespaceDefaults(options), ...given.hooks } };
}

/** The CA clients verify the server with, as kube-controller-manager's --root-ca-file: the cluster CA, else the serving certificate itself. */
function rootCaOf(tls: ServingTls | undefined): string | undefined {
  return tls ? (tls.clientCa ?? tls.cert) : undefined;
}

/** The namespace clients use when they name none; the server creates it at start, as a cluster does. */
export const DEFAULT_NAMESPACE = 'default';

/**
 * Creates a namespace unless it exists, as the real system's system-namespaces controller does at
 * start-up: a client of the server's own API, so the object goes through the same create path.
 */
async function ensureNamespace(client: LoopbackClient, name: string): Promise<void> {
  const { status } = await client('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (status !== 201 && status !== 409) throw new Error(`the reference server could not create namespace ${name}: ${status}`);
}
