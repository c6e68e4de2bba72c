/**
 * The vocabulary every handler shares: server settings, the server context, what a request
 * targets, and the ports through which declared kind behaviour (named hooks) plugs in. A leaf of
 * the handler graph: it imports types of the server's vocabulary modules only, never a handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonApiObject } from '../api/index.js';
import type { ProtobufCodecs } from '../codec/index.js';
import type { FeatureGates } from '../features/index.js';
import type { KeyValue, Store } from '../store/index.js';
import type { AdmissionPlugin, RuleChecker } from './admission.js';
import type { Body } from './body.js';
import type { Reply, Request, Warnings } from './http.js';
import type { Negotiated } from './media.js';
import type { ServedResource, ResourceRegistry } from './resources.js';
import type { Route } from './router.js';
import type {
  AuthenticationExplanation,
  AuthenticationResult,
  AuthorizationRequest,
  AuthorizationStep,
  RequestAttributes,
  RuleList,
  UserInfo,
} from '../auth/index.js';
import type { RequestAudit } from '../audit/index.js';
import type { ApiServerMetrics } from '../metrics/index.js';
import type { KindRegistration, NamedTypeDefaulter } from '../schema/index.js';

/** Settings every handler reads; built once per server with every option defaulted. */
export interface ServerSettings {
  /** Continue-token lifetime. */
  continueTtlMs: number;
  /** Secret that signs continue tokens. */
  continueSecret: Uint8Array;
  /** How long a read at a not-yet-reached resourceVersion waits before answering 504. */
  futureRevisionWaitMs: number;
  /** Largest accepted request body. */
  maxBodyBytes: number;
  /** Interval of BOOKMARK events on watches that asked for them. */
  bookmarkIntervalMs: number;
  /** Upper bound of a watch without timeoutSeconds (the real system's default is 30 to 60 minutes). */
  maxWatchSeconds: number;
  now: () => Date;
}

/** The server-wide parts a handler works with. */
export interface ServerContext {
  store: Store;
  /** Protobuf codecs of the built-in kinds; undefined when the server offers no Protobuf. */
  codecs: ProtobufCodecs | undefined;
  /** Response compression (`APIResponseCompression`); on by default. */
  compression: boolean;
  /** The feature gates the server runs with (`--feature-gates`). */
  features: FeatureGates;
  registry: ResourceRegistry;
  settings: ServerSettings;
  rules: RuleChecker;
  /** Admission plugins, in order (none by default). */
  admission: readonly AdmissionPlugin[];
  /** The authorization policy: the authorize stage and access reviews ask it. */
  authorizer: RequestAuthorizer;
  /**
   * The authentication policy the authenticate stage applies (undefined: every request is
   * anonymous), and the audiences the server identifies itself with (`--api-audiences`): token reviews use both.
   */
  authenticationPolicy: { authenticator: RequestAuthenticator | undefined; apiAudiences: readonly string[] };
  /** The named hooks the served kinds declare, instantiated for this server. */
  hooks: ServerHooks;
  /** The server's metrics (`/metrics`); stages and plugins observe into its named metrics. */
  metrics: ApiServerMetrics | undefined;
  /** Serving CustomResourceDefinitions: undefined when the server cannot compile their kinds. */
  customResources?: CustomResourceHost;
}

/**
 * What serving a CustomResourceDefinition needs beyond the registry: its kinds built from its
 * schemas (the wiring above the runtime supplies the compiler), and the OpenAPI documents to publish.
 */
export interface CustomResourceHost {
  /** The kinds (and their OpenAPI documents) a definition declares; rejects with the loader's message when it cannot. */
  compile(definition: JsonApiObject): Promise<DefinedKinds>;
  openApi: {
    publish(documents: Readonly<Record<string, () => Promise<Record<string, unknown>>>>): void;
    withdraw(keys: readonly string[]): void;
  };
}

/** The kinds one CustomResourceDefinition declares, ready to serve. */
export interface DefinedKinds {
  kinds: readonly KindRegistration[];
  openApiDocuments: Readonly<Record<string, () => Promise<Record<string, unknown>>>>;
}

/** What one resource request addresses. */
export interface Target {
  resource: ServedResource;
  /** The namespace in the path (undefined for cluster-scoped and all-namespaces requests). */
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  /**
   * The request watches: a GET of a collection whose `watch` parameter is true, or any GET under a
   * `/watch/` path (upstream's deprecated WATCH and WATCHLIST routes, which a name narrows to one object).
   */
  watch: boolean;
}

/** How this request's response is written: the negotiated representation, and for what resource. */
export interface ResponsePlan {
  negotiated: Negotiated;
  resource: ServedResource | undefined;
  /** get and list responses may be gzip-compressed. */
  compressible: boolean;
}

/**
 * Decides who sent a request from its credentials (the Authorization header and the TLS client
 * certificate): `runtime/auth`'s `AuthPolicy` fits. A presented credential no authenticator
 * accepts, or no credential with anonymous requests off, is a 401.
 */
export interface RequestAuthenticator {
  /** `audiences`: those the credential must be for (a TokenReview's); the server's when absent. */
  authenticate(req: Pick<IncomingMessage, 'headers' | 'socket'>, audiences?: readonly string[]): Promise<AuthenticationResult>;
}

/** The result of asking the server's authorizer (an AuthorizerChain's result fits). */
export interface AuthorizationVerdict {
  allowed: boolean;
  reason: string;
  /** The deciding answer, authorizer and every step, when the policy records them (an AuthorizerChain does). */
  decision?: 'Allow' | 'Deny' | 'NoOpinion';
  authorizer?: string;
  steps?: readonly AuthorizationStep[];
}

/**
 * Decides whether a request may proceed (upstream's `authorizer.Authorizer`): who (the user from
 * the authenticate stage) asks to do what (`runtime/auth`'s request attributes, as upstream's
 * RequestInfo derives them); a refusal becomes a 403 with the reason.
 */
export interface RequestAuthorizer {
  /** A policy that decides without waiting may answer at once (the authorize stage then stays synchronous). */
  authorize(request: AuthorizationRequest): AuthorizationVerdict | Promise<AuthorizationVerdict>;
  /** What a user may do in a namespace (SelfSubjectRulesReview); an AuthorizerChain answers it. */
  rulesFor?(user: UserInfo, namespace: string): Promise<RuleList>;
}

/** One request in flight: the server context plus the request, its warnings and its response plan. */
export interface RequestContext extends ServerContext {
  req: Request;
  /** The response stream, for handlers that stream (watch); everything else answers a Reply. */
  res: ServerResponse;
  warnings: Warnings;
  response: ResponsePlan;
  /** What the path addresses (set by the negotiate stage). */
  route?: Route;
  /** The resource request's target (set by the negotiate stage for resource paths). */
  target?: Target;
  /** Who sent the request (set by the authenticate stage, replaced by the impersonated user). */
  user?: UserInfo;
  /** The request's audit, when the policy records it (set by the audit stage): handlers add the request object, annotations. */
  audit?: RequestAudit;
  /** Audit annotations of the request (admission plugins add them; the audit stage records them). */
  auditAnnotations?: Record<string, string>;
  /** Which authenticator identified the user, and what it rejected first (set by the authenticate stage). */
  authentication?: AuthenticationExplanation;
  /** The request attributes of the path as it is now, once derived (`stages/attributes.ts`). */
  attributes?: RequestAttributes | undefined;
}

/**
 * A new request's context: every member, the ones the stages set later included, present from the
 * start (each member listed, which the type checks), so every request's context has one shape the
 * engine knows, and adding a member on the way does not make it a dictionary.
 */
export function requestContext(
  server: ServerContext,
  request: Pick<RequestContext, 'req' | 'res' | 'warnings' | 'response'>,
): RequestContext {
  const all: { [K in keyof Required<RequestContext>]: RequestContext[K] } = {
    store: server.store,
    codecs: server.codecs,
    compression: server.compression,
    features: server.features,
    registry: server.registry,
    settings: server.settings,
    rules: server.rules,
    admission: server.admission,
    authorizer: server.authorizer,
    authenticationPolicy: server.authenticationPolicy,
    hooks: server.hooks,
    metrics: server.metrics,
    customResources: server.customResources,
    req: request.req,
    res: request.res,
    warnings: request.warnings,
    response: request.response,
    route: undefined,
    target: undefined,
    user: undefined,
    audit: undefined,
    auditAnnotations: undefined,
    authentication: undefined,
    attributes: undefined,
  };
  return all;
}

/** An object about to be deleted, as the delete handler read it. */
export interface DeleteTarget {
  resource: ServedResource;
  namespace: string | undefined;
  object: JsonApiObject;
  kv: Pick<KeyValue, 'modRevision'>;
  dryRun: boolean;
}

/**
 * A named piece of kind behaviour that a kind declares in its registration (`resource.hooks`).
 * Every member is optional; the server calls the ones present, for objects of the declaring kind
 * only, except the server-wide members (`admitCreate`, `namespaceChanged`, `resume`, `close`, `idle`).
 */
export interface KindHook {
  /** Prepares a new object before admission (server-set fields of the kind, which may name the requesting user). */
  prepareCreate?(object: JsonApiObject, ctx: RequestContext): void;
  /**
   * Prepares (or checks: throw a StatusError) every written object (create, update, patch, apply)
   * before admission; `old` is the stored object on an update; `ctx` the request (who writes).
   */
  prepareWrite?(object: JsonApiObject, old: JsonApiObject | undefined, ctx: RequestContext): void | Promise<void>;
  /** Deletes an object in place of the generic two-phase delete; undefined leaves it to the generic one. */
  delete?(ctx: ServerContext, target: DeleteTarget): Promise<Reply | undefined>;
  /** Server-wide: before an object of any namespaced kind is created in `namespace`. */
  admitCreate?(ctx: ServerContext, r: ServedResource, namespace: string, name: string): void | Promise<void>;
  /** Server-wide: something in `namespace` was removed, or the object named `namespace` changed. */
  namespaceChanged?(namespace: string): void;
  /** Server-wide: background work left over from a previous run (the server is starting). */
  resume?(): Promise<void>;
  /** Server-wide: stops starting background work until the returned function is called (a test server's restore). */
  pause?(): Promise<() => void>;
  /** Server-wide: waits until background work has nothing in flight (tests observe it). */
  idle?(): Promise<void>;
  close?(): void;
}

/** What a named hook gets when the server instantiates it: the server and the resource that declared it. */
export interface HookHost {
  context: Omit<ServerContext, 'hooks'>;
  /** The storage version of the declaring resource. */
  declaring: ServedResource;
}

/** Answers a create of a virtual kind (one that is never stored, such as an access review). */
export type VirtualCreateHandler = (ctx: RequestContext, t: Target, body: Body) => Promise<Reply>;

/** The methods a subresource with behaviour of its own may take. */
export type SubresourceMethod = 'GET' | 'POST' | 'PUT' | 'PATCH';

/** Answers requests to a subresource with behaviour of its own (`eviction`, `finalize`, `token`). */
export interface SubresourceHandler {
  /** The methods the subresource takes (405 for any other). */
  methods: readonly SubresourceMethod[];
  /** The handler reads no body (a connection such as a pod's exec): a POST is not decoded. */
  bodyless?: boolean;
  /** `body` is the decoded object of a POST or PUT; GET has none and PATCH reads its own patch. */
  handle(ctx: RequestContext, t: Target, body: Body | undefined): Promise<Reply>;
}

/**
 * Defaults of a named type that need code (upstream's hand-written `SetDefaults_<Type>`): run after
 * the schema's defaults, wherever the type appears in a built-in kind (a Pod's containers and a
 * Deployment's template alike), outer types first.
 */
export type TypeDefaulter = NamedTypeDefaulter;

/** Named implementations that kinds refer to from their registrations. */
export interface HandlerCatalog {
  hooks?: Readonly<Record<string, (host: HookHost) => KindHook>>;
  /** By the schema's type name (`core.v1.Container`). */
  defaulters?: Readonly<Record<string, TypeDefaulter>>;
  virtual?: Readonly<Record<string, VirtualCreateHandler>>;
  subresources?: Readonly<Record<string, SubresourceHandler>>;
}

/** The hooks of one server: per resource, and server-wide. */
export interface ServerHooks {
  /** The hooks `r`'s kind declares. */
  of(r: ServedResource): readonly KindHook[];
  /** Every hook instance, for the server-wide members. */
  all(): readonly KindHook[];
  /** The subresource handler `r` declares for `subresource`, if any. */
  subresource(r: ServedResource, subresource: string): SubresourceHandler | undefined;
  /** The create handler of a virtual kind, if `r` is one. */
  virtual(r: ServedResource): VirtualCreateHandler | undefined;
  /** The code defaulters of named types, by type name. */
  defaulters: Readonly<Record<string, TypeDefaulter>>;
  /** Tells every hook that something in (or named) `namespace` changed. */
  namespaceChanged(namespace: string): void;
  /** Waits until no hook has background work in flight. */
  idle(): Promise<void>;
}
