import type { ServerResponse } from 'node:http';
import {
  badRequest,
  escapeFieldSelectorValue,
  goQuote,
  isValidPathSegmentName,
  methodNotAllowed,
  parseFieldSelector,
} from '../api/index.js';
import { checkRequestBody, subresourceKind } from './request-kind.js';
import type { RequestContext, SubresourceHandler, Target } from './context.js';
import { deleteCollection, deleteObject, deleteOptions } from './delete.js';
import type { ResourceDescriptor } from '../schema/index.js';
import { type Body, decodeBody, decodeOptionalJson } from './body.js';
import type { Outcome } from './chain.js';
import { type Reply, readBody } from './http.js';
import { letOthersRun } from './fairness.js';
import { checkMetadataShape } from './object-shape.js';
import { patchObject } from './patch.js';
import { type ReadOptions, getOptions, readOptions, writeOptions } from './query.js';
import { scaleRequest } from './scale.js';
import { getObject, listObjects } from './read.js';
import { watchObjects } from './watch.js';
import { createObject, updateObject } from './write.js';

/** A verb handler: answers a reply, or undefined when it wrote a streamed response itself (watch). */
type VerbHandler = (ctx: RequestContext, t: Target, res: ServerResponse) => Outcome;

/** One entry of the table: the verb it needs (405 when the resource lacks it) and the handler. */
interface Entry {
  verb: (ctx: RequestContext) => string;
  handle: VerbHandler;
}

const verb = (name: string) => () => name;

/** Requests to a collection, by method. */
const COLLECTION: Readonly<Record<string, Entry>> = {
  GET: {
    verb: (ctx) => (ctx.target!.watch ? 'watch' : 'list'),
    async handle(ctx, t, res) {
      const opts = listOptions(ctx, t);
      if (!t.watch) return listObjects(ctx, t, opts);
      await watchObjects(ctx, t, opts, res, ctx.response.negotiated);
      return undefined;
    },
  },
  POST: {
    verb: verb('create'),
    async handle(ctx, t) {
      const body = await objectBody(ctx, t);
      // A virtual kind (an access review) is answered by its declared handler and never stored.
      const virtual = ctx.hooks.virtual(t.resource);
      if (virtual) return virtual(ctx, t, body);
      return createObject(ctx, t, body, writeOptions(ctx.req.query, ctx.req.method));
    },
  },
  DELETE: {
    verb: verb('deletecollection'),
    async handle(ctx, t) {
      const { query } = ctx.req;
      return deleteCollection(ctx, t, listOptions(ctx, t), deleteOptions(await optionalJson(ctx), query));
    },
  },
};

/** Requests to one object (or its status subresource), by method. */
const OBJECT: Readonly<Record<string, Entry>> = {
  GET: {
    verb: (ctx) => (ctx.target!.watch ? 'watch' : 'get'),
    handle(ctx, t, res) {
      if (!t.watch) return getObject(ctx, t, getOptions(ctx.req.query));
      // A watch route with a name: a watch of the collection narrowed to that object, as upstream.
      return watchObjects(ctx, t, namedWatchOptions(listOptions(ctx, t), t.name!), res, ctx.response.negotiated).then(() => undefined);
    },
  },
  PUT: {
    verb: verb('update'),
    handle: async (ctx, t) => updateObject(ctx, t, await objectBody(ctx, t), writeOptions(ctx.req.query, ctx.req.method)),
  },
  PATCH: {
    verb: verb('patch'),
    async handle(ctx, t) {
      const text = (await readBody(ctx.req.raw, ctx.settings.maxBodyBytes)).toString('utf8');
      ctx.audit?.requestObject(patchForAudit(text));
      return patchObject(ctx, t, text, ctx.req.headers['content-type'], writeOptions(ctx.req.query, ctx.req.method));
    },
  },
  DELETE: {
    verb(ctx) {
      const t = ctx.target!;
      if (t.subresource !== undefined) throw methodNotAllowed('DELETE', `${t.resource.resource}/${t.subresource} does not take DELETE`);
      return 'delete';
    },
    async handle(ctx, t) {
      return deleteObject(ctx, t, deleteOptions(await optionalJson(ctx), ctx.req.query));
    },
  },
};

const ALLOWED = { collection: 'a collection takes GET, POST and DELETE', object: 'an object takes GET, PUT, PATCH and DELETE' };

/**
 * Dispatches a resource request by (scope, method), to the scale subresource of a kind that
 * declares replica paths, or to the handler a kind declares for a subresource (`eviction`,
 * `finalize`, `token`), a body of the subresource's declared kind checked first; the method must
 * be one the resource's verbs allow.
 */
export function dispatchResource(ctx: RequestContext, t: Target, res: ServerResponse): Outcome {
  const { method } = ctx.req;
  checkPathNames(t);
  if (ctx.route?.kind === 'resource' && ctx.route.watchPath && method !== 'GET') throw methodNotAllowed(method, 'a watch path takes GET');
  const scope = t.name === undefined ? 'collection' : 'object';
  if (scope === 'object' && t.subresource !== undefined) {
    const handled = subresourceRequest(ctx, t, t.subresource);
    if (handled) return handled;
  }
  const entry = (scope === 'collection' ? COLLECTION : OBJECT)[method];
  if (!entry) throw methodNotAllowed(method, ALLOWED[scope]);
  const name = entry.verb(ctx);
  if (!t.resource.verbs.has(name)) throw methodNotAllowed(method, `${t.resource.resource} does not support ${name}`);
  return entry.handle(ctx, t, res);
}

/** The scale subresource, or one with a handler of its own; undefined for any other (status: the verb handlers'). */
function subresourceRequest(ctx: RequestContext, t: Target, subresource: string): Promise<Reply> | undefined {
  const { method } = ctx.req;
  const scale = subresource === 'scale' ? t.resource.descriptor.scale : undefined;
  if (scale) {
    const name = method === 'GET' ? 'get' : method === 'PUT' ? 'update' : 'patch';
    if (!t.resource.verbs.has(name)) throw methodNotAllowed(method, `${t.resource.resource} does not support ${name}`);
    return scaleSubresource(ctx, t, scale);
  }
  const declared = ctx.hooks.subresource(t.resource, subresource);
  if (!declared) return undefined;
  const takes = declared.methods as readonly string[];
  if (!takes.includes(method)) throw methodNotAllowed(method, `${subresource} takes ${takes.join(', ')}`);
  return declaredSubresource(ctx, t, subresource, declared);
}

async function scaleSubresource(ctx: RequestContext, t: Target, scale: NonNullable<ResourceDescriptor['scale']>): Promise<Reply> {
  const body = ctx.req.method === 'PUT' ? await objectBody(ctx, t) : undefined;
  if (body) await checkRequestBody(ctx, t, body, subresourceKind(ctx.registry, t.resource, 'scale')!);
  return scaleRequest(ctx, t, scale, body);
}

async function declaredSubresource(ctx: RequestContext, t: Target, subresource: string, declared: SubresourceHandler): Promise<Reply> {
  const { method } = ctx.req;
  const body = (method === 'POST' || method === 'PUT') && !declared.bodyless ? await objectBody(ctx, t) : undefined;
  const kind = body && subresourceKind(ctx.registry, t.resource, subresource);
  if (body && kind) await checkRequestBody(ctx, t, body, kind);
  return declared.handle(ctx, t, body);
}

/** The list options of a collection request, validated for a list or a watch as the request is one. */
function listOptions(ctx: RequestContext, t: Target): ReadOptions {
  return readOptions(ctx.req.query, {
    watchList: ctx.features.enabled('WatchList'),
    ...(ctx.req.method === 'GET' ? { watch: t.watch } : {}),
  });
}

/**
 * Upstream's ListResource for a name from the path: the field selector becomes
 * `metadata.name=<name>`, or must already require exactly that name (400 otherwise).
 */
function namedWatchOptions(opts: ReadOptions, name: string): ReadOptions {
  if (opts.fieldSelector === undefined) return { ...opts, fieldSelector: `metadata.name=${escapeFieldSelectorValue(name)}` };
  let pinned: string | undefined;
  try {
    pinned = parseFieldSelector(opts.fieldSelector).requiresExactMatch('metadata.name');
  } catch {
    return opts; // a malformed selector is the watch's own 400
  }
  if (pinned !== name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
  return opts;
}

/**
 * A name or namespace from the path must be a valid path segment, as upstream's storage key
 * functions require (`Name parameter invalid: "..": may not be '..'`, a 400): a request to `.`
 * or `..` addresses no object and never its collection or its parent. Checked after
 * authorization, as upstream does, so the decision and the audit record name what was asked.
 */
function checkPathNames(t: Target): void {
  for (const [what, value] of [
    ['Namespace', t.namespace],
    ['Name', t.name],
  ] as const) {
    if (value === undefined) continue;
    const problems = isValidPathSegmentName(value);
    if (problems.length > 0) throw badRequest(`${what} parameter invalid: ${goQuote(value)}: ${problems.join(';')}`);
  }
}

/** The request's object body (JSON, YAML, or Protobuf for kinds with messages), its metadata well-formed. */
async function objectBody(ctx: RequestContext, t: Target): Promise<Body> {
  const bytes = await readBody(ctx.req.raw, ctx.settings.maxBodyBytes);
  const r = ctx.response.resource;
  const protobuf = ctx.codecs && r && ctx.codecs.supports(r.apiVersion, r.kind) ? { codecs: ctx.codecs } : undefined;
  // Duplicate keys in JSON merge into a built-in kind's Go structs, as upstream's decoder fills them.
  const body = decodeBody(bytes, ctx.req.headers['content-type'], protobuf, { mergeDuplicates: !t.resource.descriptor.custom });
  await letOthersRun(ctx.req.raw);
  checkMetadataShape(t, body.object);
  ctx.audit?.requestObject(body.object);
  return body;
}

/** The optional DeleteOptions body of a delete (the audit's request object, as upstream records it). */
async function optionalJson(ctx: RequestContext): Promise<unknown> {
  const options = decodeOptionalJson(await readBody(ctx.req.raw, ctx.settings.maxBodyBytes));
  if (options !== undefined) ctx.audit?.requestObject(options);
  return options;
}

/** A patch as the audit records it (upstream's raw patch): its JSON value, or the text of a YAML apply. */
function patchForAudit(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
