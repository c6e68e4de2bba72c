import { StatusError, invalid } from '../api/index.js';
import { isStoreConflictError, isStoreNotFoundError } from '../store/index.js';
import type { RequestContext, Target } from './context.js';
import type { Reply } from './http.js';
import { type ApiObject, collectionPrefix, decodeObject, encodeObject, objectKey } from './objects.js';
import type { ReadOptions, WriteOptions } from './query.js';
import { readCurrent, selectorMatcher } from './read.js';
import type { ServedResource } from './resources.js';
import { conflict, fromStoreError, notFound } from './versions.js';
import { timestamp } from './write.js';

/** DeleteOptions from the body or the query: preconditions, propagation, grace period, dry run. */
export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  dryRun: boolean;
}

const POLICIES = new Set(['Orphan', 'Background', 'Foreground']);

/** Reads DeleteOptions from an optional JSON body, with query parameters as the fallback. */
export function deleteOptions(body: unknown, q: URLSearchParams, write: WriteOptions): DeleteOptions {
  const b = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (b.kind !== undefined && b.kind !== 'DeleteOptions') throw badRequest(`expected a DeleteOptions body, found kind ${JSON.stringify(b.kind)}`);
  const out: DeleteOptions = { dryRun: write.dryRun || (Array.isArray(b.dryRun) && b.dryRun.includes('All')) };
  if (Array.isArray(b.dryRun) && b.dryRun.some((v) => v !== 'All')) throw badRequest('dryRun: Unsupported value: supported values: "All"');
  const policy = b.propagationPolicy ?? q.get('propagationPolicy') ?? undefined;
  if (policy !== undefined && policy !== null) {
    if (typeof policy !== 'string' || !POLICIES.has(policy)) {
      // Upstream's ValidateDeleteOptions: a 422 on the DeleteOptions kind.
      throw invalid({ group: 'meta.svc.io', kind: 'DeleteOptions' }, '', [
        { type: 'FieldValueNotSupported', field: 'propagationPolicy', badValue: policy, detail: 'supported values: "Foreground", "Background", "Orphan", "nil"' },
      ]);
    }
    out.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  }
  const orphan = b.orphanDependents ?? (q.get('orphanDependents') === null ? undefined : q.get('orphanDependents') === 'true');
  if (orphan !== undefined && orphan !== null && out.propagationPolicy !== undefined) {
    throw invalid({ group: 'meta.svc.io', kind: 'DeleteOptions' }, '', [
      { type: 'FieldValueInvalid', field: 'propagationPolicy', badValue: out.propagationPolicy, detail: 'orphanDependents and deletionPropagation cannot be both set' },
    ]);
  }
  const grace = b.gracePeriodSeconds ?? (q.get('gracePeriodSeconds') === null ? undefined : Number(q.get('gracePeriodSeconds')));
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
 * until the last finalizer is removed; one without is removed at once. A namespace enters
 * Terminating and is removed once everything in it is gone.
 */
export async function deleteObject(ctx: RequestContext, t: Target, opts: DeleteOptions): Promise<Reply> {
  const { r } = t;
  const name = t.name!;
  const current = await readCurrent(ctx, r, t.namespace, name);
  if (!current) throw notFound(r, name);
  return deleteCurrent(ctx, r, t.namespace, current.object, current.kv.modRevision, opts);
}

async function deleteCurrent(ctx: RequestContext, r: ServedResource, namespace: string | undefined, object: ApiObject, modRevision: number, opts: DeleteOptions): Promise<Reply> {
  const meta = object.metadata ?? {};
  const name = meta.name ?? '';
  checkPreconditions(r, object, opts);
  const key = objectKey(r, namespace, name);
  const isNamespace = r.group === '' && r.resource === 'namespaces';
  const finalizers = meta.finalizers ?? [];
  if (isNamespace || finalizers.length > 0) {
    if (meta.deletionTimestamp && isNamespace) {
      throw conflict(r, name, 'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.');
    }
    if (meta.deletionTimestamp) return { status: 200, body: object };
    const next = structuredClone(object);
    next.metadata = { ...next.metadata, deletionTimestamp: timestamp(ctx.settings.now()), deletionGracePeriodSeconds: 0 };
    if (isNamespace) next.status = { ...(next.status as object | undefined), phase: 'Terminating' };
    if (opts.dryRun) return { status: 200, body: next };
    try {
      const kv = await ctx.store.update(key, encodeObject(next, r), { expectedModRevision: modRevision });
      if (isNamespace) ctx.reaper.kick(name);
      return { status: 200, body: decodeObject(kv, r) };
    } catch (e) {
      throw fromStoreError(e, r, name) ?? e;
    }
  }
  if (!opts.dryRun) {
    try {
      await ctx.store.delete(key, { expectedModRevision: modRevision });
    } catch (e) {
      throw fromStoreError(e, r, name) ?? e;
    }
    if (namespace) ctx.reaper.kick(namespace);
  }
  return { status: 200, body: successStatus(r, name, meta.uid) };
}

function checkPreconditions(r: ServedResource, object: ApiObject, opts: DeleteOptions): void {
  const p = opts.preconditions;
  const meta = object.metadata ?? {};
  if (p?.uid !== undefined && p.uid !== meta.uid) {
    throw conflict(r, meta.name ?? '', `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${meta.uid ?? ''}`);
  }
  if (p?.resourceVersion !== undefined && p.resourceVersion !== meta.resourceVersion) {
    throw conflict(r, meta.name ?? '', `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
  }
}

function successStatus(r: ServedResource, name: string, uid: string | undefined): unknown {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: r.group, kind: r.resource, uid } };
}

/** deletecollection: DELETE on a collection deletes every object that matches the selectors. */
export async function deleteCollection(ctx: RequestContext, t: Target, read: ReadOptions, opts: DeleteOptions): Promise<Reply> {
  // The all-namespaces path of a namespaced resource only reads, as upstream: never delete across namespaces.
  if (t.r.namespaced && t.namespace === undefined) {
    throw new StatusError({ code: 405, reason: 'MethodNotAllowed', message: `the server does not allow this method on the requested resource (DELETE: ${t.r.resource} are deleted per namespace)` });
  }
  const matcher = selectorMatcher(t.r, read);
  const page = await ctx.store.list(collectionPrefix(t.r, t.namespace));
  const items: ApiObject[] = [];
  for (const kv of page.items) {
    const object = decodeObject(kv, t.r);
    if (matcher && !matcher(object)) continue;
    try {
      await deleteCurrent(ctx, t.r, object.metadata?.namespace, object, kv.modRevision, opts);
      items.push(object);
    } catch (e) {
      // An object changed or deleted meanwhile is left to its writer, as upstream.
      if (e instanceof StatusError && (e.code === 404 || e.code === 409)) continue;
      throw e;
    }
  }
  return { status: 200, body: { kind: t.r.listKind, apiVersion: t.r.apiVersion, metadata: { resourceVersion: String(await ctx.store.currentRevision()) }, items } };
}

/** Removes an object that is being deleted once nothing holds it; used by the namespace reaper. */
export async function removeIfFinalized(ctx: Pick<RequestContext, 'store' | 'settings'>, r: ServedResource, key: string, object: ApiObject, modRevision: number): Promise<boolean> {
  const meta = object.metadata ?? {};
  try {
    if ((meta.finalizers ?? []).length === 0) {
      await ctx.store.delete(key, { expectedModRevision: modRevision });
      return true;
    }
    if (!meta.deletionTimestamp) {
      const next = structuredClone(object);
      next.metadata = { ...next.metadata, deletionTimestamp: timestamp(ctx.settings.now()), deletionGracePeriodSeconds: 0 };
      await ctx.store.update(key, encodeObject(next, r), { expectedModRevision: modRevision });
    }
    return false;
  } catch (e) {
    if (isStoreConflictError(e) || isStoreNotFoundError(e)) return false;
    throw e;
  }
}

function badRequest(message: string): StatusError {
  return new StatusError({ code: 400, reason: 'BadRequest', message });
}
