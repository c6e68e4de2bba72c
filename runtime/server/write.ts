import { sameJson } from '../json/index.js';
import { randomUUID } from 'node:crypto';
import {
  type JsonApiObject,
  alreadyExists,
  badRequest,
  fieldForbidden,
  fieldInvalid,
  generateName,
  methodNotAllowed,
  notFound,
  objectModified,
  requestEntityTooLarge,
  resourceVersionRequired,
  timestamp,
} from '../api/index.js';
import { managerForWrite, update } from '../apply/index.js';
import type { JsonObject } from '../patch/index.js';
import { isStoreKeyExistsError } from '../store/index.js';
import { isStaleValue } from '../encryption/index.js';
import { admit, checkDecodable, checkTypeMeta, invalidObject, noteStored } from './admission.js';
import type { RequestContext, Target } from './context.js';
import type { Body } from './body.js';
import type { Reply } from './http.js';
import { objectKey, storedForm, writtenObject } from './objects.js';
import type { WriteOptions } from './query.js';
import { readCurrent } from './read.js';
import { letOthersRun } from './fairness.js';
import { keepIdentity } from './object-shape.js';
import { authorizeCreate } from './stages/index.js';
import { nextForWrite } from './subresource.js';
import { fromStoreError, parseRevision } from './versions.js';

/** How a write records field ownership (`managedFields`). */
export interface OwnershipOptions {
  /** Apply recorded ownership already (as the applier); the write must not record it again. */
  ownershipRecorded?: boolean;
}

/**
 * Records field ownership of a non-apply write (`managedFields`): the writer, named by
 * fieldManager or inferred from the User-Agent, owns what it changed.
 */
function recordOwnership(
  ctx: RequestContext,
  t: Target,
  live: JsonApiObject | undefined,
  next: JsonApiObject,
  opts: WriteOptions,
): JsonApiObject {
  const manager = managerForWrite(opts.fieldManager, ctx.req.headers['user-agent']);
  return update(live as JsonObject | undefined, next as JsonObject, manager, ownershipOptions(ctx, t)) as JsonApiObject;
}

/** What the ownership library needs about the resource written through. */
export function ownershipOptions(ctx: RequestContext, t: Target) {
  return {
    schema: t.resource.registration.schema,
    custom: t.resource.descriptor.custom,
    apiVersion: t.resource.apiVersion,
    ...(t.subresource === 'status' ? { subresource: 'status' } : {}),
    now: ctx.settings.now(),
  };
}

/** create: POST to a collection. */
export async function createObject(
  ctx: RequestContext,
  t: Target,
  body: Body,
  opts: WriteOptions,
  ownership: OwnershipOptions = {},
): Promise<Reply> {
  const r = t.resource;
  // The all-namespaces path of a namespaced resource only reads, as upstream.
  if (r.namespaced && t.namespace === undefined)
    throw methodNotAllowed('POST', `${r.resource} are created under namespaces/<namespace>/${r.resource}`);
  const object = body.object;
  const meta = (object.metadata ??= {});
  const generated = !meta.name && Boolean(meta.generateName);
  if (generated) meta.name = generateName(meta.generateName!);
  if (r.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = t.namespace;
    // Awaited only where a hook waits: an await per hook would cost every create a turn of the microtask queue per kind.
    for (const hook of ctx.hooks.all()) {
      const admitting = hook.admitCreate?.(ctx, r, t.namespace!, meta.name ?? '');
      if (admitting) await admitting;
    }
  } else {
    delete meta.namespace;
  }
  if (!meta.name)
    throw invalidObject(r, object, [
      { type: 'FieldValueRequired', field: 'metadata.name', badValue: '', detail: 'name or generateName is required' },
    ]);
  // Upstream's storage refuses a create that names a version ("resourceVersion should not be set
  // on objects to be created", a plain error there, answered 500): a client mistake, so 400 here.
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== null && meta.resourceVersion !== '') {
    throw badRequest('resourceVersion should not be set on objects to be created');
  }
  // Server-set fields: whatever the client sent is replaced.
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  meta.uid = randomUUID();
  meta.creationTimestamp = timestamp(ctx.settings.now());
  if (r.descriptor.generation) meta.generation = 1;
  else delete meta.generation;
  // Create cannot set the status of a kind with a status subresource (upstream's PrepareForCreate).
  if (r.subresources.has('status')) delete object.status;
  // The kind's hooks see the object as decoded, its type meta defaulted from the endpoint.
  checkTypeMeta(r, object);
  const hooks = ctx.hooks.of(r);
  if (hooks.length > 0) checkDecodable(r, object);
  for (const hook of hooks) {
    hook.prepareCreate?.(object, ctx);
    await hook.prepareWrite?.(object, undefined, ctx);
  }
  await letOthersRun(ctx.req.raw);
  await admit(ctx, {
    resource: r,
    object,
    fieldValidation: opts.fieldValidation,
    duplicates: body.duplicates,
    subresource: t.subresource,
    dryRun: opts.dryRun,
    options: admissionOptions(opts),
  });
  await letOthersRun(ctx.req.raw);
  const stored = ownership.ownershipRecorded ? object : recordOwnership(ctx, t, undefined, object, opts);
  await letOthersRun(ctx.req.raw);
  const storedMeta = (stored.metadata ??= {});
  if (opts.dryRun) {
    if (await readCurrent(ctx, r, t.namespace, meta.name)) throw alreadyExists(r, meta.name);
    return { status: 201, body: stored };
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const key = objectKey(r, t.namespace, storedMeta.name!);
      const form = await storedForm(stored, r);
      const value = checkStoredSize(key, JSON.stringify(form));
      const kv = await ctx.store.create(key, value);
      noteStored(ctx, key);
      return { status: 201, body: await writtenObject(form, kv, r) };
    } catch (e) {
      // A generated name that collides is drawn again, as the real system retries.
      if (generated && isStoreKeyExistsError(e) && attempt < 8) {
        storedMeta.name = generateName(meta.generateName!);
        continue;
      }
      throw fromStoreError(e, r, storedMeta.name) ?? e;
    }
  }
}

/**
 * update: PUT to an object (or its status subresource) with a current resourceVersion. A missing
 * object of a kind that declares `createOnUpdate` is created (201), as upstream's AllowCreateOnUpdate:
 * the body's resourceVersion is ignored, and the user needs `create` as well, as upstream's handler asks.
 */
export async function updateObject(ctx: RequestContext, t: Target, body: Body, opts: WriteOptions): Promise<Reply> {
  const r = t.resource;
  const name = t.name!;
  const object = body.object;
  keepIdentity(t, object);
  const meta = object.metadata!;
  const current = await readCurrent(ctx, r, t.namespace, name);
  if (!current && r.descriptor.createOnUpdate && t.subresource === undefined) {
    await authorizeCreate(ctx);
    delete meta.resourceVersion;
    return createObject(ctx, { ...t, name: undefined }, body, opts);
  }
  if (!current) throw notFound(r, name);
  const old = current.object;
  // Built-in kinds allow an unconditional update without a resourceVersion, as upstream; custom
  // resources require one.
  if (!meta.resourceVersion && !r.descriptor.custom) {
    meta.resourceVersion = String(current.kv.modRevision);
  }
  if (!meta.resourceVersion) throw resourceVersionRequired(r, name);
  if (parseRevision(meta.resourceVersion) !== current.kv.modRevision) throw objectModified(r, name);
  const next = nextForWrite(t, old, object, ['resourceVersion']);
  return writeUpdate(ctx, { t, old, next, modRevision: current.kv.modRevision, duplicates: body.duplicates, opts });
}

/** One write of an existing object, as update, patch and apply hand it to {@link writeUpdate}. */
export interface UpdateWrite extends OwnershipOptions {
  t: Target;
  /** The stored object and the revision it was read at (the write is conditional on it). */
  old: JsonApiObject;
  modRevision: number;
  /** The object to store, the status policy already applied. */
  next: JsonApiObject;
  /** Duplicate keys of the request body. */
  duplicates: readonly string[];
  opts: WriteOptions;
}

/**
 * The shared tail of update and patch: keep server-owned metadata, admit, bump generation when
 * anything but metadata and status changed (kinds that track it), finish a deletion whose last
 * finalizer is gone, and write conditionally on the revision that was read.
 */
export async function writeUpdate(ctx: RequestContext, w: UpdateWrite): Promise<Reply> {
  const { t, old, next, modRevision, opts } = w;
  const r = t.resource;
  const name = t.name!;
  keepIdentity(t, next);
  const meta = next.metadata as Record<string, unknown> & NonNullable<JsonApiObject['metadata']>;
  const oldMeta = (old.metadata ?? {}) as Record<string, unknown>;
  // An absent uid takes the stored one; another one is refused, as upstream's ValidateObjectMetaUpdate.
  if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== oldMeta.uid) {
    throw invalidObject(r, next, [fieldInvalid('metadata.uid', meta.uid, 'field is immutable')]);
  }
  // Server-owned metadata is never changed by a write.
  for (const key of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) {
    if (oldMeta[key] === undefined) delete meta[key];
    else meta[key] = oldMeta[key];
  }
  checkTypeMeta(r, next);
  const hooks = ctx.hooks.of(r);
  if (hooks.length > 0) checkDecodable(r, next);
  for (const hook of hooks) await hook.prepareWrite?.(next, old, ctx);
  await letOthersRun(ctx.req.raw);
  await admit(ctx, {
    resource: r,
    object: next,
    old,
    fieldValidation: opts.fieldValidation,
    duplicates: w.duplicates,
    subresource: t.subresource,
    dryRun: opts.dryRun,
    options: admissionOptions(opts),
  });
  if (oldMeta.deletionTimestamp) {
    const before = old.metadata?.finalizers ?? [];
    const added = [...new Set((meta.finalizers ?? []).filter((f) => !before.includes(f)))].sort();
    if (added.length > 0) {
      const list = `[]string{${added.map((f) => JSON.stringify(f)).join(', ')}}`;
      throw invalidObject(r, next, [
        fieldForbidden(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers ${list}`,
        ),
      ]);
    }
  }
  if (r.descriptor.generation && specChanged(old, next)) meta.generation = (old.metadata?.generation ?? 1) + 1;
  await letOthersRun(ctx.req.raw);
  const stored = w.ownershipRecorded ? next : recordOwnership(ctx, t, old, next, opts);
  await letOthersRun(ctx.req.raw);
  const storedMeta = stored.metadata ?? {};
  const key = objectKey(r, t.namespace, name);
  // A no-op update writes nothing and keeps the resourceVersion, as upstream (key order does not count),
  // unless the stored value was encrypted with an old key: then it is written again (a rotation).
  const form = await storedForm(stored, r);
  if (sameJson(form, await storedForm(old, r)) && !(await isStaleValue(ctx.store, key, modRevision))) return { status: 200, body: old };
  const value = JSON.stringify(form);
  const finishing = Boolean(storedMeta.deletionTimestamp) && (storedMeta.finalizers ?? []).length === 0;
  if (opts.dryRun) return { status: 200, body: { ...stored, metadata: { ...storedMeta, resourceVersion: old.metadata?.resourceVersion } } };
  try {
    if (finishing) {
      const kv = await ctx.store.delete(key, { expectedModRevision: modRevision });
      noteStored(ctx, key);
      if (r.namespaced && t.namespace) ctx.hooks.namespaceChanged(t.namespace);
      return { status: 200, body: await writtenObject(form, { value, modRevision: kv.modRevision }, r) };
    }
    const kv = await ctx.store.update(key, checkStoredSize(key, value), { expectedModRevision: modRevision });
    noteStored(ctx, key);
    return { status: 200, body: await writtenObject(form, kv, r) };
  } catch (e) {
    throw fromStoreError(e, r, name) ?? e;
  }
}

/** The write's options as webhooks see them in `request.options`. */
function admissionOptions(opts: WriteOptions): Record<string, unknown> {
  return { ...(opts.dryRun ? { dryRun: ['All'] } : {}), ...(opts.fieldManager ? { fieldManager: opts.fieldManager } : {}) };
}

function specChanged(old: JsonApiObject, next: JsonApiObject): boolean {
  return !sameJson({ ...old, metadata: undefined, status: undefined }, { ...next, metadata: undefined, status: undefined });
}

/**
 * The largest object stored: etcd's default request limit (`--max-request-bytes`, 1.5 MiB), which
 * the real system meets as `etcdserver: request is too large` (413). Every store here keeps it,
 * so an object that etcd would refuse is refused on every backend alike.
 */
export const MAX_STORED_BYTES = 1.5 * 1024 * 1024;

function checkStoredSize(key: string, value: string): string {
  if (Buffer.byteLength(key) + Buffer.byteLength(value) > MAX_STORED_BYTES) {
    throw requestEntityTooLarge('etcdserver: request is too large');
  }
  return value;
}
