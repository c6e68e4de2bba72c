import {
  type FieldError,
  type JsonApiObject,
  StatusError,
  badRequest,
  conflict,
  deletedStatus,
  fieldInvalid,
  fieldNotSupported,
  invalid,
  methodNotAllowed,
  notFound,
  queryBool,
  queryInt64,
  timestamp,
} from '../api/index.js';
import { isStoreConflictError, isStoreNotFoundError } from '../store/index.js';
import { isObject } from '../validate/index.js';
import { admitDelete, noteStored } from './admission.js';
import type { DeleteTarget, RequestContext, ServerContext, Target } from './context.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './gc-finalizers.js';
import type { Reply } from './http.js';
import { collectionPrefix, decodeObject, encodeObject, objectKey } from './objects.js';
import type { ReadOptions } from './query.js';
import { readCurrent, selectorMatcher } from './read.js';
import type { ServedResource } from './resources.js';
import { fromStoreError } from './versions.js';

/** DeleteOptions from the body or the query: preconditions, propagation, grace period, dry run. */
export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  dryRun: boolean;
  /** Admission already ran for the operation this delete carries out (an eviction): it is not admitted again. */
  admitted?: boolean;
}

const POLICIES = new Set(['Orphan', 'Background', 'Foreground']);

/** The kind upstream's ValidateDeleteOptions reports its 422 on. */
const DELETE_OPTIONS = { group: 'meta.svc.io', kind: 'DeleteOptions' };

/**
 * DeleteOptions as upstream's DeleteResource reads them: from the body when one is sent (the
 * query's options are then not read), from the query otherwise; checked as ValidateDeleteOptions
 * (one 422 on DeleteOptions with every cause, in upstream's order). One exception, the spec's:
 * `?dryRun=All` makes any DELETE a dry run, with a body or without.
 */
export function deleteOptions(body: unknown, q: URLSearchParams): DeleteOptions {
  const query = queryDeleteOptions(q);
  if (body === undefined) return deleteOptionsOf(query);
  const b = isObject(body) ? body : {};
  if (b.kind !== undefined && b.kind !== 'DeleteOptions')
    throw badRequest(`expected a DeleteOptions body, found kind ${JSON.stringify(b.kind)}`);
  const opts = deleteOptionsOf(b);
  if (!opts.dryRun && (query.dryRun as string[]).includes('All')) opts.dryRun = true;
  return opts;
}

/** The DeleteOptions fields a query carries, in the body's shape. */
function queryDeleteOptions(q: URLSearchParams): Record<string, unknown> {
  return {
    dryRun: q.getAll('dryRun'),
    propagationPolicy: q.get('propagationPolicy') ?? undefined,
    orphanDependents: queryBool(q, 'orphanDependents'),
    gracePeriodSeconds: queryInt64(q, 'gracePeriodSeconds'),
  };
}

function deleteOptionsOf(b: Record<string, unknown>): DeleteOptions {
  const errors: FieldError[] = [];
  const policy = b.propagationPolicy;
  const orphan = b.orphanDependents;
  if (orphan !== undefined && orphan !== null && policy !== undefined && policy !== null) {
    errors.push(fieldInvalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  const policyKnown = typeof policy === 'string' && POLICIES.has(policy);
  if (policy !== undefined && policy !== null && !policyKnown) {
    errors.push(fieldNotSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  // A bare `dryRun` (no value) is not a dry run, as on the other writes.
  const dryRun = Array.isArray(b.dryRun) ? b.dryRun.filter((v) => v !== '') : [];
  if (dryRun.some((v) => v !== 'All')) errors.push(fieldNotSupported('dryRun', dryRun, ['All']));
  if (errors.length > 0) throw invalid(DELETE_OPTIONS, '', errors);
  const out: DeleteOptions = { dryRun: dryRun.length > 0 };
  if (policyKnown) out.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  // orphanDependents (deprecated) is the Orphan policy when true and Background when false, as upstream.
  if (orphan === true) out.propagationPolicy = 'Orphan';
  else if (orphan === false) out.propagationPolicy = 'Background';
  const grace = b.gracePeriodSeconds;
  if (grace !== undefined && grace !== null) {
    if (typeof grace !== 'number' || !Number.isInteger(grace)) throw badRequest('gracePeriodSeconds: must be an integer');
    // A negative grace period means "as soon as possible" (1 second) upstream.
    out.gracePeriodSeconds = grace < 0 ? 1 : grace;
  }
  if (b.preconditions !== undefined && b.preconditions !== null) {
    const p = b.preconditions as Record<string, unknown>;
    out.preconditions = {};
    if (typeof p.uid === 'string') out.preconditions.uid = p.uid;
    if (typeof p.resourceVersion === 'string') out.preconditions.resourceVersion = p.resourceVersion;
  }
  return out;
}

/**
 * delete: the two phases of the spec. An object with finalizers gets a deletionTimestamp and stays
 * until the last finalizer is removed; one without is removed at once. A kind's delete hook (the
 * namespace lifecycle) may take the delete over.
 */
export async function deleteObject(ctx: RequestContext, t: Target, opts: DeleteOptions): Promise<Reply> {
  const r = t.resource;
  const name = t.name!;
  const current = await readCurrent(ctx, r, t.namespace, name);
  if (!current) throw notFound(r, name);
  return deleteCurrent(ctx, { resource: r, namespace: t.namespace, object: current.object, kv: current.kv, dryRun: opts.dryRun }, opts);
}

async function deleteCurrent(ctx: RequestContext, target: DeleteTarget, opts: DeleteOptions): Promise<Reply> {
  const { resource: r, namespace, object } = target;
  const meta = object.metadata ?? {};
  const name = meta.name ?? '';
  checkPreconditions(r, object, opts);
  if (!opts.admitted)
    await admitDelete(ctx, {
      resource: r,
      namespace,
      old: object,
      dryRun: opts.dryRun,
      options: {
        ...(opts.dryRun ? { dryRun: ['All'] } : {}),
        ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
        ...(opts.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: opts.gracePeriodSeconds } : {}),
      },
    });
  for (const hook of ctx.hooks.of(r)) {
    const reply = await hook.delete?.(ctx, target);
    if (reply) return reply;
  }
  const key = objectKey(r, namespace, name);
  const gc = garbageCollectionFinalizer(opts, r);
  if (opts.propagationPolicy === undefined && JOB_WARNING_FOR.has(resourceKey(r))) ctx.warnings.add(JOB_DELETE_WARNING);
  if ((meta.finalizers ?? []).length > 0 || gc) {
    if (meta.deletionTimestamp) return { status: 200, body: object };
    const next = markDeleted(ctx, object);
    if (gc && !(meta.finalizers ?? []).includes(gc)) next.metadata!.finalizers = [...(meta.finalizers ?? []), gc];
    if (opts.dryRun) return { status: 200, body: next };
    try {
      const kv = await ctx.store.update(key, await encodeObject(next, r), { expectedModRevision: target.kv.modRevision });
      noteStored(ctx, key);
      return { status: 200, body: await decodeObject(kv, r) };
    } catch (e) {
      throw fromStoreError(e, r, name) ?? e;
    }
  }
  if (!opts.dryRun) {
    try {
      await ctx.store.delete(key, { expectedModRevision: target.kv.modRevision });
      noteStored(ctx, key);
    } catch (e) {
      throw fromStoreError(e, r, name) ?? e;
    }
    if (namespace) ctx.hooks.namespaceChanged(namespace);
  }
  // Kinds whose upstream registry returns the deleted object answer with it (kubectl prints its name either way).
  return { status: 200, body: r.descriptor.deleteReturnsObject ? object : deletedStatus(r, name, meta.uid) };
}

/**
 * The finalizer a propagation policy asks the garbage collector for (upstream's
 * deletionFinalizersForGarbageCollection): Orphan and Foreground keep the owner until the collector
 * has orphaned or deleted its dependents; Background (the default) removes it at once and the
 * collector deletes the dependents after.
 */
function garbageCollectionFinalizer(opts: DeleteOptions, r: ServedResource): string | undefined {
  const policy = opts.propagationPolicy ?? (ORPHAN_BY_DEFAULT.has(resourceKey(r)) ? 'Orphan' : 'Background');
  if (policy === 'Orphan') return ORPHAN_FINALIZER;
  if (policy === 'Foreground') return FOREGROUND_FINALIZER;
  return undefined;
}

/**
 * Resources whose delete without a policy orphans dependents, for backward compatibility
 * (upstream's DefaultGarbageCollectionPolicy of core/v1 ReplicationController and batch/v1 Job).
 */
const ORPHAN_BY_DEFAULT = new Set(['v1/replicationcontrollers', 'batch/v1/jobs']);

/** Upstream's Job storage warns when a delete leaves its pods to that default. */
const JOB_WARNING_FOR = new Set(['batch/v1/jobs']);
const JOB_DELETE_WARNING =
  'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning';

function resourceKey(r: ServedResource): string {
  return `${r.apiVersion}/${r.resource}`;
}

/** The object with a deletionTimestamp (now) and a zero grace period: the first phase of a delete. */
export function markDeleted(ctx: Pick<ServerContext, 'settings'>, object: JsonApiObject): JsonApiObject {
  const next = structuredClone(object);
  next.metadata = { ...next.metadata, deletionTimestamp: timestamp(ctx.settings.now()), deletionGracePeriodSeconds: 0 };
  return next;
}

function checkPreconditions(r: ServedResource, object: JsonApiObject, opts: DeleteOptions): void {
  const p = opts.preconditions;
  const meta = object.metadata ?? {};
  if (p?.uid !== undefined && p.uid !== meta.uid) {
    throw conflict(r, meta.name ?? '', `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${meta.uid ?? ''}`);
  }
  if (p?.resourceVersion !== undefined && p.resourceVersion !== meta.resourceVersion) {
    throw conflict(
      r,
      meta.name ?? '',
      `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
    );
  }
}

/** deletecollection: DELETE on a collection deletes every object that matches the selectors. */
export async function deleteCollection(ctx: RequestContext, t: Target, read: ReadOptions, opts: DeleteOptions): Promise<Reply> {
  // The all-namespaces path of a namespaced resource only reads, as upstream: never delete across namespaces.
  if (t.resource.namespaced && t.namespace === undefined)
    throw methodNotAllowed('DELETE', `${t.resource.resource} are deleted per namespace`);
  const matcher = selectorMatcher(t.resource, read);
  const page = await ctx.store.list(collectionPrefix(t.resource, t.namespace));
  const items: JsonApiObject[] = [];
  for (const kv of page.items) {
    const object = await decodeObject(kv, t.resource);
    if (matcher && !matcher(object)) continue;
    try {
      await deleteCurrent(ctx, { resource: t.resource, namespace: object.metadata?.namespace, object, kv, dryRun: opts.dryRun }, opts);
      items.push(object);
    } catch (e) {
      // An object changed or deleted meanwhile is left to its writer, as upstream.
      if (e instanceof StatusError && (e.code === 404 || e.code === 409)) continue;
      throw e;
    }
  }
  return {
    status: 200,
    body: {
      kind: t.resource.listKind,
      apiVersion: t.resource.apiVersion,
      metadata: { resourceVersion: String(await ctx.store.currentRevision()) },
      items,
    },
  };
}

/** Removes an object that is being deleted once nothing holds it (a cascading delete); false while finalizers hold it. */
export async function removeIfFinalized(
  ctx: Pick<ServerContext, 'store' | 'settings'>,
  r: ServedResource,
  key: string,
  object: JsonApiObject,
  modRevision: number,
): Promise<boolean> {
  const meta = object.metadata ?? {};
  try {
    if ((meta.finalizers ?? []).length === 0) {
      await ctx.store.delete(key, { expectedModRevision: modRevision });
      return true;
    }
    if (!meta.deletionTimestamp)
      await ctx.store.update(key, await encodeObject(markDeleted(ctx, object), r), { expectedModRevision: modRevision });
    return false;
  } catch (e) {
    if (isStoreConflictError(e) || isStoreNotFoundError(e)) return false;
    throw e;
  }
}
