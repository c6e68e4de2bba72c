import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StatusError, isStatusError } from '../api/index.js';
import { compressResponseSync } from '../compression/index.js';
import { MEDIA_PROTOBUF, type ProtobufPackage, ProtobufCodecs, decodeYaml, findDuplicateKeys, isProtobufCodecError, isProtobufEnvelopeError } from '../codec/index.js';
import type { KindRegistration } from '../schema/index.js';
import { type Store, createContinueTokenSecret } from '../store/index.js';
import type { RuleChecker } from './admission.js';
import type { RequestContext, ServerContext, ServerSettings, Target } from './context.js';
import { deleteCollection, deleteObject, deleteOptions } from './delete.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery.js';
import { type Reply, type Request, Warnings, readBody, sendBody } from './http.js';
import { JSON_RESPONSE, includeObjectOf, negotiateResponse, renderBody } from './media.js';
import { NamespaceReaper } from './namespace-reaper.js';
import type { ApiObject } from './objects.js';
import { patchObject } from './patch.js';
import { pretty, readOptions, writeOptions } from './query.js';
import { getObject, listObjects } from './read.js';
import { ResourceRegistry } from './resources.js';
import { type Route, route } from './router.js';
import { OpenApiPublisher } from './openapi.js';
import { evictPod, reviewAccess } from './virtual.js';
import { watchObjects } from './watch.js';
import { type Body, createObject, updateObject } from './write.js';

export interface ApiServerOptions {
  /** The kinds to serve (generated `allKinds`, or a project's own). */
  kinds: readonly KindRegistration[];
  store: Store;
  /** CEL rules of the kinds; by default none are checked. */
  rules?: RuleChecker;
  continueTtlMs?: number;
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
  /** Response compression; false is the real system's `--feature-gates APIResponseCompression=false`. */
  compression?: boolean;
  /** OpenAPI v3 documents by path below `/openapi/v3/` (generated `openApiDocuments`). */
  openApiDocuments?: Record<string, () => Promise<Record<string, unknown>>>;
}

/** The reference server's HTTP front: routing, the handler chain and the one place errors become Status. */
export class ApiServer {
  readonly http: Server;
  readonly context: ServerContext;
  private readonly log: (line: string) => void;
  private readonly openApi: OpenApiPublisher;

  constructor(options: ApiServerOptions) {
    const registry = new ResourceRegistry(options.kinds, { ...(options.release ? { release: options.release } : {}), ...(options.runtimeConfig ? { runtimeConfig: options.runtimeConfig } : {}) });
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
    this.context = {
      store: options.store,
      codecs: options.protobufPackages ? new ProtobufCodecs(options.protobufPackages) : undefined,
      compression: options.compression ?? true,
      registry,
      settings,
      rules: options.rules ?? (() => []),
      reaper: new NamespaceReaper(options.store, registry, settings),
    };
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.openApi = new OpenApiPublisher(options.openApiDocuments ?? {});
    this.http = createServer((req, res) => void this.handle(req, res));
  }

  /** Starts listening; resolves with the base URL (`http://127.0.0.1:<port>`). */
  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    this.context.settings.continueSecret = await persistentSecret(this.context.store);
    await this.context.reaper.resume();
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(port, host, () => resolve());
    });
    const address = this.http.address() as AddressInfo;
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }

  /** Stops accepting requests, ends open watches, closes the store. */
  async close(): Promise<void> {
    this.context.reaper.close();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
    await this.context.store.close();
  }

  private async handle(raw: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(raw.url ?? '/', 'http://localhost');
    const req: Request = { method: raw.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: raw.headers, raw };
    const ctx: RequestContext = { ...this.context, req, warnings: new Warnings(), response: { negotiated: JSON_RESPONSE, r: undefined, compressible: false } };
    try {
      const reply = await this.dispatch(ctx, res);
      if (reply) this.send(res, ctx, reply);
    } catch (e) {
      const error = this.toStatusError(e, req);
      if (res.headersSent) {
        res.end();
        return;
      }
      const headers: Record<string, string> = {};
      const retry = error.details?.retryAfterSeconds;
      if (retry !== undefined) headers['retry-after'] = String(retry);
      // An error whose Status cannot be written in the negotiated type (a 406 itself) goes out as JSON.
      if (error.code === 406) ctx.response = { ...ctx.response, negotiated: JSON_RESPONSE };
      this.send(res, ctx, { status: error.code, body: error.toStatus(), headers });
    }
  }

  /** Renders a reply in the negotiated representation, gzip-compressed when asked and large. */
  private send(res: ServerResponse, ctx: RequestContext, reply: Reply): void {
    if (reply.contentType !== undefined && typeof reply.body === 'string') {
      sendBody(res, reply.status, reply.body, reply.contentType, reply.headers ?? {}, ctx.warnings);
      return;
    }
    const plan = ctx.response;
    let negotiated = plan.negotiated;
    let body: string | Uint8Array;
    try {
      const includeObject = negotiated.representation === 'table' ? includeObjectOf(ctx.req.query) : 'Metadata';
      body = renderBody(reply.body, negotiated, { codecs: ctx.codecs, r: plan.r, includeObject, pretty: pretty(ctx.req.query), now: ctx.settings.now });
    } catch {
      // Only a body the negotiated type cannot carry gets here (an error Status in Protobuf for a
      // kind without messages): JSON is what every client reads.
      negotiated = JSON_RESPONSE;
      body = JSON.stringify(reply.body);
    }
    const headers = { ...reply.headers };
    if (plan.compressible && reply.status < 300) {
      const compressed = compressResponseSync(body, { acceptEncoding: ctx.req.headers['accept-encoding'], enabled: ctx.compression });
      body = compressed.body;
      Object.assign(headers, compressed.headers);
    }
    sendBody(res, reply.status, body, negotiated.contentType, headers, ctx.warnings);
  }

  /** Client mistakes are Status errors already; anything else is logged and answered 500. */
  private toStatusError(e: unknown, req: Request): StatusError {
    if (isStatusError(e)) return e;
    this.log(`svckit serve: ${req.method} ${req.path}: ${(e as Error)?.stack ?? String(e)}`);
    return new StatusError({ code: 500, reason: 'InternalError', message: `an error on the server ("${(e as Error)?.message ?? 'unknown'}") has prevented the request from succeeding` });
  }

  private async dispatch(ctx: RequestContext, res: ServerResponse): Promise<Reply | undefined> {
    const r = route(ctx.req.path, ctx.registry);
    if (r.kind !== 'resource') {
      ctx.response.negotiated = negotiateResponse(ctx.req.headers.accept, { protobuf: false, table: false, watch: false });
      return this.nonResource(ctx, r);
    }
    if (r.r.deprecationWarning) ctx.warnings.add(r.r.deprecationWarning);
    const t: Target = { r: r.r, namespace: r.namespace, name: r.name, subresource: r.subresource };
    const { method, query } = ctx.req;
    const reading = method === 'GET' && (t.subresource === undefined || t.subresource === 'status');
    const watching = reading && t.name === undefined && query.has('watch') && query.get('watch') !== 'false' && query.get('watch') !== '0';
    ctx.response = {
      negotiated: negotiateResponse(ctx.req.headers.accept, { protobuf: ctx.codecs?.supports(t.r.apiVersion, t.r.kind) ?? false, table: reading, watch: watching }),
      r: t.r,
      compressible: reading && !watching,
    };
    // A bad includeObject is the client's mistake (400), found before any work is done.
    if (ctx.response.negotiated.representation === 'table') includeObjectOf(query);
    const verb = (name: string) => {
      if (!t.r.verbs.has(name)) throw methodNotAllowed(method, `${t.r.resource} does not support ${name}`);
    };

    if (t.name === undefined) {
      if (method === 'GET') {
        const opts = readOptions(query);
        verb(opts.watch ? 'watch' : 'list');
        if (!opts.watch) return listObjects(ctx, t, opts);
        await watchObjects(ctx, t, opts, res, ctx.response.negotiated);
        return undefined;
      }
      if (method === 'POST') {
        verb('create');
        const body = await this.body(ctx);
        if (t.r.group === 'authorization.svc.io' && t.r.resource === 'subjectaccessreviews') return reviewAccess(ctx, t, body);
        return createObject(ctx, t, body, writeOptions(query));
      }
      if (method === 'DELETE') {
        verb('deletecollection');
        const write = writeOptions(query);
        return deleteCollection(ctx, t, readOptions(query), deleteOptions(await this.optionalJson(ctx), query, write));
      }
      throw methodNotAllowed(method, 'a collection takes GET, POST and DELETE');
    }

    if (t.subresource === 'eviction') {
      if (method !== 'POST') throw methodNotAllowed(method, 'eviction takes POST');
      return evictPod(ctx, t, await this.body(ctx));
    }
    if (t.subresource === 'finalize') {
      if (method !== 'PUT') throw methodNotAllowed(method, 'finalize takes PUT');
      return updateObject(ctx, { ...t, subresource: undefined }, await this.body(ctx), writeOptions(query));
    }
    switch (method) {
      case 'GET':
        verb('get');
        return getObject(ctx, t, readOptions(query));
      case 'PUT':
        verb('update');
        return updateObject(ctx, t, await this.body(ctx), writeOptions(query));
      case 'PATCH': {
        verb('patch');
        const text = (await readBody(ctx.req.raw, ctx.settings.maxBodyBytes)).toString('utf8');
        return patchObject(ctx, t, text, ctx.req.headers['content-type'], writeOptions(query));
      }
      case 'DELETE': {
        if (t.subresource !== undefined) throw methodNotAllowed(method, `${t.r.resource}/${t.subresource} does not take DELETE`);
        verb('delete');
        return deleteObject(ctx, t, deleteOptions(await this.optionalJson(ctx), query, writeOptions(query)));
      }
      default:
        throw methodNotAllowed(method, 'an object takes GET, PUT, PATCH and DELETE');
    }
  }

  private async nonResource(ctx: RequestContext, r: Exclude<Route, { kind: 'resource' }>): Promise<Reply> {
    if (r.kind === 'not-found') throw notFoundPath(r.message);
    if (ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD') throw methodNotAllowed(ctx.req.method, 'discovery documents are read with GET');
    switch (r.kind) {
      case 'api-versions':
        return { status: 200, body: apiVersions(ctx.req.headers.host ?? 'localhost') };
      case 'api-groups':
        return { status: 200, body: apiGroupList(ctx.registry) };
      case 'api-group': {
        const body = apiGroup(ctx.registry, r.group);
        if (!body) throw notFoundPath(`the server could not find the requested resource (group ${r.group})`);
        return { status: 200, body };
      }
      case 'api-resources':
        return { status: 200, body: apiResourceList(ctx.registry, r.group, r.version) };
      case 'version':
        return { status: 200, body: { major: '1', minor: '30', gitVersion: 'v1.30.0-svckit', platform: `${process.platform}/${process.arch}` } };
      case 'health':
        return { status: 200, body: 'ok', contentType: 'text/plain; charset=utf-8' };
      case 'openapi': {
        const body = await this.openApi.get(r.path);
        if (!body) throw notFoundPath(`no OpenAPI document at /openapi/${r.path}`);
        return { status: 200, body };
      }
    }
  }

  /** A JSON or YAML object body, with its duplicate keys. */
  private async body(ctx: RequestContext): Promise<Body> {
    const bytes = await readBody(ctx.req.raw, ctx.settings.maxBodyBytes);
    const text = bytes.toString('utf8');
    const type = (ctx.req.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase();
    let object: unknown;
    if (type === 'application/json' || type === '') {
      try {
        object = JSON.parse(text);
      } catch (e) {
        throw new StatusError({ code: 400, reason: 'BadRequest', message: `the request body is not valid JSON: ${(e as Error).message}` });
      }
      if (isObject(object)) return { object: object as ApiObject, duplicates: findDuplicateKeys(text) };
    } else if (type === 'application/yaml') {
      try {
        object = decodeYaml(text);
      } catch (e) {
        throw new StatusError({ code: 400, reason: 'BadRequest', message: `the request body is not valid YAML: ${(e as Error).message}` });
      }
      if (isObject(object)) return { object: object as ApiObject, duplicates: [] };
    } else if (type === MEDIA_PROTOBUF && ctx.codecs && ctx.response.r && ctx.codecs.supports(ctx.response.r.apiVersion, ctx.response.r.kind)) {
      try {
        return { object: ctx.codecs.decode(bytes) as ApiObject, duplicates: [] };
      } catch (e) {
        if (isProtobufEnvelopeError(e) || isProtobufCodecError(e)) throw new StatusError({ code: 400, reason: 'BadRequest', message: `the Protobuf request body cannot be decoded: ${e.message}` });
        throw e;
      }
    } else {
      const accepted = ['application/json', 'application/yaml', ...(ctx.codecs && ctx.response.r && ctx.codecs.supports(ctx.response.r.apiVersion, ctx.response.r.kind) ? [MEDIA_PROTOBUF] : [])];
      throw new StatusError({ code: 415, reason: 'UnsupportedMediaType', message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}` });
    }
    throw new StatusError({ code: 400, reason: 'BadRequest', message: `the request body must be a JSON object, not ${Array.isArray(object) ? 'an array' : typeof object}` });
  }

  /** The optional DeleteOptions body of a delete. */
  private async optionalJson(ctx: RequestContext): Promise<unknown> {
    const text = (await readBody(ctx.req.raw, ctx.settings.maxBodyBytes)).toString('utf8').trim();
    if (text === '') return undefined;
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new StatusError({ code: 400, reason: 'BadRequest', message: `the request body is not valid JSON: ${(e as Error).message}` });
    }
  }
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

function methodNotAllowed(method: string, why: string): StatusError {
  return new StatusError({ code: 405, reason: 'MethodNotAllowed', message: `the server does not allow this method on the requested resource (${method}: ${why})` });
}

function notFoundPath(message: string): StatusError {
  return new StatusError({ code: 404, reason: 'NotFound', message });
}

function isObject(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
