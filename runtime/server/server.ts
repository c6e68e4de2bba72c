import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { StatusError, isStatusError, methodNotAllowed, pathNotFound, serviceUnavailable, unexpectedError } from '../api/index.js';
import { type ProtobufPackage, ProtobufCodecs } from '../codec/index.js';
import { compressResponse, shouldCompress } from '../compression/index.js';
import { type EncryptionAtRest, encryptStore } from '../encryption/index.js';
import { ApiServerMetrics } from '../metrics/index.js';
import { FeatureGates } from '../features/index.js';
import type { KindRegistration } from '../schema/index.js';
import { type Store, createContinueTokenSecret, isStoreUnavailableError } from '../store/index.js';
import { assertStorageLayout } from './storage-layout.js';
import type { AdmissionPluginSource, RuleChecker } from './admission.js';
import { type Outcome, compose, isPromise } from './chain.js';
import {
  type CustomResourceHost,
  type HandlerCatalog,
  type RequestContext,
  type ServerContext,
  type ServerSettings,
  requestContext,
} from './context.js';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupDiscoveryList,
  apiGroupList,
  apiResourceList,
  apiVersions,
  servesGroupVersionPath,
} from './discovery.js';
import { dispatchResource } from './handlers.js';
import { GarbageCollector } from './garbage-collector.js';
import { bindHooks } from './hooks.js';
import { type Reply, type Request, Warnings, readRequest, sendBody } from './http.js';
import { JSON_RESPONSE, MEDIA_OPENAPI_V2_PROTOBUF, includeObjectOf, renderBody } from './media.js';
import { OpenApiPublisher } from './openapi.js';
import { pretty } from './query.js';
import { DEFAULT_RELEASE, ResourceRegistry } from './resources.js';
import { withGroupSuffix } from './group-suffix.js';
import { SPEC_GROUP_SUFFIX } from '../api/index.js';
import type { Route } from './router.js';
import { type ChainPolicies, authorizerOf, defaultStages } from './stages/index.js';

export interface ApiServerOptions {
  /** The kinds to serve (generated `allKinds`, or a project's own). */
  kinds: readonly KindRegistration[];
  /**
   * `--group-suffix`: serve the spec's groups (`<name>.svc.io`) as `<name>.<suffix>` (`k8s.io` for
   * the real system's names); kinds, OpenAPI documents and Protobuf packages are renamed at start.
   */
  groupSuffix?: string;
  store: Store;
  /** CEL rules of the kinds; by default none are checked. */
  rules?: RuleChecker;
  continueTtlMs?: number;
  /**
   * The key continue tokens are signed with, shared by every replica; by default one kept in the
   * store (created by the first server to start on it).
   */
  continueSecret?: Uint8Array;
  futureRevisionWaitMs?: number;
  maxBodyBytes?: number;
  bookmarkIntervalMs?: number;
  maxWatchSeconds?: number;
  now?: () => Date;
  /** Logs unexpected errors (a 500); default stderr. */
  log?: (line: string) => void;
  /** The release the server acts as (default 1.30) and `--runtime-config`. */
  release?: string;
  runtimeConfig?: string;
  /** Protobuf packages of the built-in kinds (generated `allProtobufPackages`): enables Protobuf. */
  protobufPackages?: readonly ProtobufPackage[];
  /** Response compression; default: the `APIResponseCompression` gate. */
  compression?: boolean;
  /** `--feature-gates` (`parseFeatureGates`); default: every gate at its 1.30 default (alpha off, beta and GA on). */
  featureGates?: FeatureGates;
  /** OpenAPI v3 documents by path below `/openapi/v3/` (generated `openApiDocuments`). */
  openApiDocuments?: Record<string, () => Promise<Record<string, unknown>>>;
  /**
   * Named handlers the kinds' registrations refer to (hooks, virtual kinds, subresources, defaulters):
   * the only source of them. The reference server passes the built-in kinds' catalogue; a project
   * passes its own (over the built-ins' with {@link mergeCatalogs} when it serves built-in kinds too).
   */
  handlers?: HandlerCatalog;
  /** Admission plugins (or factories of them, given the server's store and registry), in order; none by default. */
  admission?: readonly AdmissionPluginSource[];
  /** The policies of the handler chain's stages (authentication, authorization, audit, rate limits). */
  chain?: ChainPolicies;
  /** Encryption at rest (`--encryption-provider-config`): the store holds what its providers write. */
  encryption?: EncryptionAtRest;
  /**
   * The metrics `/metrics` exports and the stages observe into; by default a new set for this
   * server's release. false serves no `/metrics` and observes nothing.
   */
  metrics?: ApiServerMetrics | false;
  /** Serve HTTPS with this certificate (PEM); with `clientCa`, ask for client certificates and verify them against it. */
  tls?: ServingTls;
  /** The garbage collector of owner references (`garbage-collector.ts`); default on, as in a cluster. */
  garbageCollector?: boolean;
  /**
   * Builds the kinds a CustomResourceDefinition declares (the wiring above the runtime compiles
   * them with the generator): without it, definitions are checked and stored but not served.
   */
  compileCustomResource?: CustomResourceHost['compile'];
}

/** The serving certificate and the client CA of an HTTPS server (PEM text). */
export interface ServingTls {
  cert: string;
  key: string;
  /** Client certificates are requested and their chain verified against this CA; the x509 authenticator reads the verdict. */
  clientCa?: string;
}

/** Upstream's MaxHeaderBytes: the request line and headers of one request, at most. */
const MAX_HEADER_BYTES = 1 << 20;

/** The reference server's HTTP front: routing, the handler chain and the one place errors become Status. */
export class ApiServer {
  readonly http: Server;
  readonly context: ServerContext;
  readonly #log: (line: string) => void;
  readonly #openApi: OpenApiPublisher;
  readonly #release: string;
  readonly #continueSecret: Uint8Array | undefined;
  readonly #chain: (ctx: RequestContext) => Outcome;
  readonly #scheme: 'http' | 'https';
  /** Owner references honoured for every kind; undefined when turned off. */
  readonly garbageCollector: GarbageCollector | undefined;

  constructor(given: ApiServerOptions) {
    const options = withGroupSuffix(given, given.groupSuffix ?? SPEC_GROUP_SUFFIX);
    this.#release = options.release ?? DEFAULT_RELEASE;
    this.#continueSecret = options.continueSecret;
    const registry = new ResourceRegistry(options.kinds, {
      release: this.#release,
      runtimeConfig: options.runtimeConfig ?? '',
      ...(options.groupSuffix !== undefined ? { groupSuffix: options.groupSuffix } : {}),
    });
    const features = options.featureGates ?? new FeatureGates();
    const settings: ServerSettings = {
      continueTtlMs: options.continueTtlMs ?? 5 * 60_000,
      // Replaced in listen() by the secret kept in the store, so tokens survive a restart.
      continueSecret: createContinueTokenSecret(),
      futureRevisionWaitMs: options.futureRevisionWaitMs ?? 3000,
      maxBodyBytes: options.maxBodyBytes ?? 3 * 1024 * 1024,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
      maxWatchSeconds: options.maxWatchSeconds ?? 1800,
      now: options.now ?? (() => new Date()),
    };
    // Everything inside the server reads through encryption at rest, admission plugins included.
    const store = options.encryption ? encryptStore(options.store, options.encryption, () => registry.resources()) : options.store;
    const metrics = options.metrics === false ? undefined : (options.metrics ?? new ApiServerMetrics({ release: this.#release }));
    this.#openApi = new OpenApiPublisher(
      options.openApiDocuments ?? {},
      (path) => servesGroupVersionPath(registry, path),
      versionInfo(this.#release).gitVersion,
    );
    const base = {
      store,
      codecs: options.protobufPackages ? new ProtobufCodecs(options.protobufPackages) : undefined,
      compression: options.compression ?? features.enabled('APIResponseCompression'),
      features,
      registry,
      settings,
      rules: options.rules ?? (() => []),
      admission: (options.admission ?? []).map((p) => (typeof p === 'function' ? p({ store, registry, metrics }) : p)),
      authorizer: authorizerOf(options.chain ?? {}),
      authenticationPolicy: {
        authenticator: options.chain?.authentication,
        apiAudiences: options.chain?.serviceAccountIssuer?.apiAudiences ?? [],
      },
      metrics,
      customResources: options.compileCustomResource ? { compile: options.compileCustomResource, openApi: this.#openApi } : undefined,
    };
    base.metrics?.countStorageWith(() => countStoredObjects(registry, options.store));
    const catalog = options.handlers ?? {};
    this.context = { ...base, hooks: bindHooks(base, catalog) };
    this.garbageCollector = options.garbageCollector === false ? undefined : new GarbageCollector(this.context);
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.#chain = compose(defaultStages(options.chain ?? {}), (ctx) => this.#endpoint(ctx));
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      try {
        this.#handle(req, res)?.catch((e: unknown) => this.#lastResort(req, res, e));
      } catch (e) {
        this.#lastResort(req, res, e);
      }
    };
    // A client certificate is asked for but not required (rejectUnauthorized false): a request
    // without one may still carry a token, and an unverified one is refused by the authenticator
    // with a 401 that says why, instead of a TLS alert the client cannot explain.
    // Request lines and headers up to 1 MiB, as upstream's MaxHeaderBytes (Node's default is 16 KiB).
    const limits = { maxHeaderSize: MAX_HEADER_BYTES };
    this.http = options.tls
      ? createHttpsServer(
          {
            ...limits,
            cert: options.tls.cert,
            key: options.tls.key,
            ...(options.tls.clientCa ? { ca: options.tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
          },
          handle,
        )
      : createServer(limits, handle);
    // A connection's client certificate is its identity for the connection's life (the
    // authenticator reads it once per connection): no TLS 1.2 renegotiation may swap it.
    this.http.on('secureConnection', (socket: TLSSocket) => socket.disableRenegotiation());
    this.http.on('clientError', answerUnparsableRequest);
    // Idle keep-alive connections live 90 s, as kube-apiserver's (Go's transport keeps them that
    // long): with Node's 5 s a client reusing a connection the server is just closing sees its
    // request reset, which under load happened to POSTs clients cannot safely retry.
    this.http.keepAliveTimeout = 90_000;
    this.#scheme = options.tls ? 'https' : 'http';
  }

  /** Starts listening; resolves with the base URL (`http://127.0.0.1:<port>`, or `https://` when serving TLS). */
  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await assertStorageLayout(this.context.store);
    this.context.settings.continueSecret = this.#continueSecret ?? (await persistentSecret(this.context.store));
    for (const hook of this.context.hooks.all()) await hook.resume?.();
    await this.garbageCollector?.start();
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(port, host, () => resolve());
    });
    const address = this.http.address() as AddressInfo;
    return `${this.#scheme}://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }

  /** Stops accepting requests, ends open watches, closes the store. */
  async close(): Promise<void> {
    for (const hook of this.context.hooks.all()) hook.close?.();
    this.garbageCollector?.close();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
    await this.context.store.close();
  }

  /** Answers one request: synchronously when no stage or handler on its way waited, else once they have. */
  #handle(raw: IncomingMessage, res: ServerResponse): Promise<void> | undefined {
    const { req, malformed } = readRequest(raw);
    const ctx = requestContext(this.context, {
      req,
      res,
      warnings: new Warnings(),
      response: { negotiated: JSON_RESPONSE, resource: undefined, compressible: false },
    });
    try {
      if (malformed) throw malformed;
      const outcome = this.#chain(ctx);
      if (isPromise(outcome))
        return outcome.then(
          (reply) => this.#reply(res, ctx, reply),
          (e: unknown) => this.#answerError(res, ctx, e),
        );
      this.#reply(res, ctx, outcome);
    } catch (e) {
      this.#answerError(res, ctx, e);
    }
    return undefined;
  }

  /** Sends the chain's reply (none when it streamed one); failing to render it is answered as an error. */
  #reply(res: ServerResponse, ctx: RequestContext, reply: Reply | undefined): void {
    if (!reply) return;
    try {
      this.#send(res, ctx, reply);
    } catch (e) {
      this.#answerError(res, ctx, e);
    }
  }

  /** The one place an error becomes the response's Status (or ends a response already started). */
  #answerError(res: ServerResponse, ctx: RequestContext, e: unknown): void {
    const error = this.#toStatusError(e, ctx.req);
    if (res.headersSent) {
      res.end();
      return;
    }
    const headers: Record<string, string> = {};
    const retry = error.details?.retryAfterSeconds;
    if (retry !== undefined) headers['retry-after'] = String(retry);
    // An error whose Status cannot be written in the negotiated type (a 406 itself) goes out as JSON.
    if (error.code === 406 || ctx.response.negotiated.discoveryApiVersion) ctx.response = { ...ctx.response, negotiated: JSON_RESPONSE };
    this.#send(res, ctx, { status: error.code, body: error.toStatus(), headers });
  }

  /**
   * The last guard, as Go's http server recovers a handler's panic: an error while answering one
   * request (even while sending its error) is logged and answered 500 with nothing of the request
   * echoed, or the connection is closed when the response had started; the server keeps serving.
   */
  #lastResort(raw: IncomingMessage, res: ServerResponse, e: unknown): void {
    this.#log(`svckit serve: ${raw.method} ${raw.url}: answering failed: ${(e as Error)?.stack ?? String(e)}`);
    try {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      for (const name of res.getHeaderNames()) if (name !== 'audit-id') res.removeHeader(name);
      const body = `${JSON.stringify(unexpectedError(new Error('the server failed while answering the request')).toStatus())}\n`;
      res.writeHead(500, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
      res.end(body);
    } catch {
      res.destroy();
    }
  }

  /** Renders a reply in the negotiated representation, gzip-compressed when asked and large. */
  #send(res: ServerResponse, ctx: RequestContext, reply: Reply): void {
    if (reply.contentType !== undefined && (typeof reply.body === 'string' || reply.body instanceof Uint8Array)) {
      sendBody(res, reply.status, reply.body, reply.contentType, reply.headers ?? {}, ctx.warnings);
      return;
    }
    const plan = ctx.response;
    let negotiated = plan.negotiated;
    let body: string | Uint8Array;
    try {
      const indented = negotiated.representation === 'json' && pretty(ctx.req.query, ctx.req.headers['user-agent']);
      // A body whose JSON is known goes out as it is (ending with a newline, as renderBody's).
      if (reply.jsonLine !== undefined && negotiated.representation === 'json' && !indented) body = reply.jsonLine;
      else {
        const includeObject = negotiated.representation === 'table' ? includeObjectOf(ctx.req.query) : 'Metadata';
        body = renderBody(reply.body, negotiated, {
          codecs: ctx.codecs,
          resource: plan.resource,
          includeObject,
          pretty: indented,
          now: ctx.settings.now,
        });
      }
    } catch {
      // Only a body the negotiated type cannot carry gets here (an error Status in Protobuf for a
      // kind without messages): JSON is what every client reads.
      negotiated = JSON_RESPONSE;
      body = `${JSON.stringify(reply.body)}\n`;
    }
    const headers = { ...reply.headers };
    const compression = { acceptEncoding: ctx.req.headers['accept-encoding'], enabled: ctx.compression };
    // Text that is not compressed goes out as text: Node writes it with the headers in one write.
    if (plan.compressible && reply.status < 300 && shouldCompress(body, compression)) {
      // Off the event loop (zlib's thread pool): compressing a large list must not stall the other requests.
      const contentType = negotiated.contentType;
      compressResponse(body, compression)
        .then((compressed) =>
          sendBody(res, reply.status, compressed.body, contentType, { ...headers, ...compressed.headers }, ctx.warnings),
        )
        .catch((e: unknown) => {
          try {
            this.#answerError(res, ctx, e);
          } catch (inner) {
            this.#lastResort(ctx.req.raw, res, inner);
          }
        });
      return;
    }
    sendBody(res, reply.status, body, negotiated.contentType, headers, ctx.warnings);
  }

  /** Client mistakes are Status errors already; anything else is logged and answered 500. */
  #toStatusError(e: unknown, req: Request): StatusError {
    if (isStatusError(e)) return e;
    // The store is unreachable from a read outside the verb handlers (admission, hooks): the client
    // may retry, as from any other read (upstream's 503), and nothing here is the server's bug.
    if (isStoreUnavailableError(e)) return serviceUnavailable(e.message);
    this.#log(`svckit serve: ${req.method} ${req.path}: ${(e as Error)?.stack ?? String(e)}`);
    return unexpectedError(e);
  }

  /** The end of the chain: a resource request goes to its verb handler, anything else to the documents. */
  #endpoint(ctx: RequestContext): Outcome {
    const r = ctx.route!;
    if (r.kind === 'resource') return dispatchResource(ctx, ctx.target!, ctx.res);
    return this.#nonResource(ctx, r);
  }

  async #nonResource(ctx: RequestContext, r: Exclude<Route, { kind: 'resource' }>): Promise<Reply> {
    if (r.kind === 'not-found') throw pathNotFound(r.message);
    if (ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD')
      throw methodNotAllowed(ctx.req.method, 'discovery documents are read with GET');
    const aggregated = ctx.response.negotiated.discoveryApiVersion;
    switch (r.kind) {
      case 'api-versions':
        if (aggregated) return aggregatedDiscovery(ctx, apiGroupDiscoveryList(ctx.registry, 'api', aggregated));
        return { status: 200, body: apiVersions(ctx.req.headers.host ?? 'localhost') };
      case 'api-groups':
        if (aggregated) return aggregatedDiscovery(ctx, apiGroupDiscoveryList(ctx.registry, 'apis', aggregated));
        return { status: 200, body: apiGroupList(ctx.registry) };
      case 'api-group': {
        const body = apiGroup(ctx.registry, r.group);
        if (!body) throw pathNotFound(`the server could not find the requested resource (group ${r.group})`);
        return { status: 200, body };
      }
      case 'api-resources':
        return { status: 200, body: apiResourceList(ctx.registry, r.group, r.version) };
      case 'version':
        return { status: 200, body: versionInfo(this.#release) };
      case 'health':
        return { status: 200, body: 'ok', contentType: 'text/plain; charset=utf-8' };
      case 'metrics': {
        if (!ctx.metrics) throw pathNotFound('this server exports no metrics');
        const { contentType, text } = await ctx.metrics.render();
        return { status: 200, body: text, contentType };
      }
      case 'openapi': {
        const body = await this.#openApi.get(r.path);
        if (!body) throw pathNotFound(`no OpenAPI document at /openapi/${r.path}`);
        if (ctx.response.negotiated.contentType === MEDIA_OPENAPI_V2_PROTOBUF) {
          // Loaded on first use: protobufjs is not needed to start (issue 27).
          const { encodeSwaggerProtobuf } = await import('./openapi-v2-protobuf.js');
          return { status: 200, body: encodeSwaggerProtobuf(body), contentType: MEDIA_OPENAPI_V2_PROTOBUF };
        }
        return { status: 200, body };
      }
    }
  }
}

/**
 * A request Node's parser refuses (a control character in a header, a request line or headers
 * over the limit, broken framing) never reaches the chain: it is answered here, as Go's server
 * answers it, with a Status body so a client reads why, and the connection closed.
 */
function answerUnparsableRequest(e: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const tooLarge = e.code === 'HPE_HEADER_OVERFLOW';
  const status = new StatusError({
    code: tooLarge ? 431 : 400,
    reason: tooLarge ? 'RequestHeaderFieldsTooLarge' : 'BadRequest',
    message: tooLarge ? 'the request line and headers are larger than 1 MiB' : `the request could not be parsed (${e.code ?? 'malformed'})`,
  }).toStatus();
  const body = `${JSON.stringify(status)}\n`;
  socket.end(
    `HTTP/1.1 ${status.code} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The key of the continue-token secret: outside every resource prefix, so no watch or list sees it. */
const SECRET_KEY = '/svckit/continue-token-secret';

/** The server's continue-token secret, created once and kept in the store with the objects. */
async function persistentSecret(store: Store): Promise<Uint8Array> {
  const kept = await store.get(SECRET_KEY);
  if (kept) return Buffer.from(kept.value, 'base64');
  const secret = createContinueTokenSecret();
  try {
    await store.create(SECRET_KEY, Buffer.from(secret).toString('base64'));
    return secret;
  } catch {
    // Another process won the race: use its secret.
    return Buffer.from((await store.get(SECRET_KEY))!.value, 'base64');
  }
}

/** `/version`: the release the server acts as (`--release`, default 1.30). */
function versionInfo(release: string): Record<string, string> {
  const [major = '1', minor = '0'] = release.split('.');
  return { major, minor, gitVersion: `v${major}.${minor}.0-svckit`, platform: `${process.platform}/${process.arch}` };
}

/**
 * `apiserver_storage_objects`: the objects of each stored resource (every version shares one
 * storage prefix), labelled `<plural>` for the core group and `<plural>.<group>` otherwise.
 */
async function countStoredObjects(registry: ResourceRegistry, store: Store): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const seen = new Set<string>();
  for (const r of registry.resources()) {
    if (seen.has(r.storagePrefix) || r.registration.resource?.virtual) continue;
    seen.add(r.storagePrefix);
    counts.set(r.group === '' ? r.resource : `${r.resource}.${r.group}`, await store.count(r.storagePrefix));
  }
  return counts;
}

/** One catalogue with another's names added (the second's name wins): the built-ins' with a project's. */
export function mergeCatalogs(a: HandlerCatalog, b: HandlerCatalog): HandlerCatalog {
  return {
    hooks: { ...a.hooks, ...b.hooks },
    virtual: { ...a.virtual, ...b.virtual },
    subresources: { ...a.subresources, ...b.subresources },
    defaulters: { ...a.defaulters, ...b.defaulters },
  };
}
