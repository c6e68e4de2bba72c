import { randomUUID } from 'node:crypto';
import { StatusError, generateName } from '../api/index.js';
import { managerForWrite, update } from '../apply/index.js';
import type { JsonObject } from '../patch/index.js';
import { isStoreKeyExistsError } from '../store/index.js';
import { admit, badRequest, invalidError } from './admission.js';
import type { RequestContext, Target } from './context.js';
import type { Reply } from './http.js';
import { type ApiObject, decodeObject, encodeObject, objectKey } from './objects.js';
import type { WriteOptions } from './query.js';
import { readCurrent } from './read.js';
import type { ServedResource } from './resources.js';
import { alreadyExists, conflict, fromStoreError, notFound, parseRevision } from './versions.js';

/** A decoded request body and the duplicate keys found in it. */
export interface Body {
  object: ApiObject;
  duplicates: readonly string[];
}

/** RFC 3339 with seconds, as the real system writes metadata timestamps. */
export function timestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/**
 * Records field ownership of a non-apply write (`managedFields`): the writer, named by
 * fieldManager or inferred from the User-Agent, owns what it changed.
 */
export function track(ctx: RequestContext, t: Target, live: ApiObject | undefined, next: ApiObject, opts: WriteOptions): ApiObject {
  const manager = managerForWrite(opts.fieldManager, ctx.req.headers['user-agent']);
  return update(live as JsonObject | undefined, next as JsonObject, manager, ownershipOptions(ctx, t)) as ApiObject;
}

/** What the ownership library needs about the resource written through. */
export function ownershipOptions(ctx: RequestContext, t: Target) {
  return {
    schema: t.r.registration.schema,
    custom: t.r.descriptor.custom,
    apiVersion: t.r.apiVersion,
    ...(t.subresource === 'status' ? { subresource: 'status' } : {}),
    now: ctx.settings.now(),
  };
}

/** create: POST to a collection. `tracked` is set when apply already recorded ownership. */
export async function createObject(ctx: RequestContext, t: Target, body: Body, opts: WriteOptions, tracked = false): Promise<Reply> {
  const { r } = t;
  // The all-namespaces path of a namespaced resource only reads, as upstream.
  if (r.namespaced && t.namespace === undefined) {
    throw new StatusError({ code: 405, reason: 'MethodNotAllowed', message: `the server does not allow this method on the requested resource (POST: ${r.resource} are created under namespaces/<namespace>/${r.resource})` });
  }
  const object = body.object;
  const meta = (object.metadata ??= {});
  const generated = !meta.name && Boolean(meta.generateName);
  if (generated) meta.name = generateName(meta.generateName!);
  if (r.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = t.namespace;
    await requireActiveNamespace(ctx, r, t.namespace!, meta.name ?? '');
  } else {
    delete meta.namespace;
  }
  if (!meta.name) {
    throw new StatusError({ code: 422, reason: 'Invalid', message: `${r.kind} "" is invalid: metadata.name: Required value: name or generateName is required`, details: { kind: r.kind, group: r.group, causes: [{ type: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }] } });
  }
  // Server-set fields: whatever the client sent is replaced.
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  meta.uid = randomUUID();
  meta.creationTimestamp = timestamp(ctx.settings.now());
  meta.generation = 1;
  // Create cannot set the status of a kind with a status subresource (upstream's PrepareForCreate).
  if (r.subresources.has('status')) delete object.status;
  if (isNamespace(r)) prepareNamespace(object);
  admit({ r, object, fieldValidation: opts.fieldValidation, duplicates: body.duplicates, warnings: ctx.warnings, rules: ctx.rules });
  const stored = tracked ? object : track(ctx, t, undefined, object, opts);
  const storedMeta = (stored.metadata ??= {});
  if (opts.dryRun) {
    if (await readCurrent(ctx, r, t.namespace, meta.name)) throw alreadyExists(r, meta.name);
    return { status: 201, body: stored };
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const kv = await ctx.store.create(objectKey(r, t.namespace, storedMeta.name!), encodeObject(stored, r));
      return { status: 201, body: decodeObject(kv, r) };
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

/** Namespaced creates need an existing namespace that is not being deleted (upstream's NamespaceLifecycle). */
export async function requireActiveNamespace(ctx: RequestContext, r: ServedResource, namespace: string, name: string): Promise<void> {
  const ns = ctx.registry.get('', 'v1', 'namespaces');
  if (!ns) return;
  const current = await readCurrent(ctx, ns, undefined, namespace);
  if (!current) throw notFound(ns, namespace);
  if (current.object.metadata?.deletionTimestamp) {
    const resource = r.group ? `${r.resource}.${r.group}` : r.resource;
    throw new StatusError({
      code: 403,
      reason: 'Forbidden',
      message: `${resource}${name ? ` "${name}"` : ''} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      details: { name, group: r.group, kind: r.resource, causes: [{ type: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] },
    });
  }
}

/** update: PUT to an object (or its status subresource) with a current resourceVersion. */
export async function updateObject(ctx: RequestContext, t: Target, body: Body, opts: WriteOptions): Promise<Reply> {
  const { r } = t;
  const name = t.name!;
  const object = body.object;
  const meta = (object.metadata ??= {});
  if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
  if (r.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  meta.name = name;
  if (r.namespaced) meta.namespace = t.namespace;
  const current = await readCurrent(ctx, r, t.namespace, name);
  if (!current) throw notFound(r, name);
  const old = current.object;
  // Built-in kinds allow an unconditional update without a resourceVersion, as upstream; custom
  // resources require one.
  if (!meta.resourceVersion && !r.descriptor.custom) {
    meta.resourceVersion = String(current.kv.modRevision);
  }
  if (!meta.resourceVersion) {
    throw new StatusError({ code: 422, reason: 'Invalid', message: `${r.kind} "${name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`, details: { name, kind: r.kind, group: r.group, causes: [{ type: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }] } });
  }
  const expected = parseRevision(meta.resourceVersion);
  if (expected !== current.kv.modRevision) throw conflict(r, name, 'the object has been modified; please apply your changes to the latest version and try again');
  const next = t.subresource === 'status' ? withStatusOf(old, object) : withoutStatusChange(r, old, object);
  return writeUpdate(ctx, t, old, next, current.kv.modRevision, body.duplicates, opts);
}

/**
 * The shared tail of update and patch: keep server-owned metadata, admit, bump generation when
 * anything but metadata and status changed, finish a deletion whose last finalizer is gone, and
 * write conditionally on the revision that was read.
 */
export async function writeUpdate(ctx: RequestContext, t: Target, old: ApiObject, next: ApiObject, modRevision: number, duplicates: readonly string[], opts: WriteOptions, tracked = false): Promise<Reply> {
  const { r } = t;
  const name = t.name!;
  const meta: Record<string, unknown> & ApiObject['metadata'] = (next.metadata ??= {});
  const oldMeta: Record<string, unknown> = old.metadata ?? {};
  // An absent uid takes the stored one; another one is refused, as upstream's ValidateObjectMetaUpdate.
  if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== oldMeta.uid) {
    throw invalidError(r, next, [{ type: 'FieldValueInvalid', field: 'metadata.uid', value: meta.uid, message: 'field is immutable' }]);
  }
  // Server-owned metadata is never changed by a write.
  for (const key of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) {
    if (oldMeta[key] === undefined) delete meta[key];
    else meta[key] = oldMeta[key];
  }
  admit({ r, object: next, old, fieldValidation: opts.fieldValidation, duplicates, warnings: ctx.warnings, rules: ctx.rules });
  if (oldMeta.deletionTimestamp) {
    const before = old.metadata?.finalizers ?? [];
    const added = [...new Set((meta.finalizers ?? []).filter((f) => !before.includes(f)))].sort();
    if (added.length > 0) {
      throw invalidError(r, next, [
        { type: 'FieldValueForbidden', field: 'metadata.finalizers', message: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}` },
      ]);
    }
  }
  if (specChanged(old, next)) meta.generation = ((old.metadata?.generation) ?? 1) + 1;
  const stored = tracked ? next : track(ctx, t, old, next, opts);
  const storedMeta = stored.metadata ?? {};
  const key = objectKey(r, t.namespace, name);
  // A no-op update writes nothing and keeps the resourceVersion, as upstream (key order does not count).
  if (canonical(JSON.parse(encodeObject(stored, r))) === canonical(JSON.parse(encodeObject(old, r)))) return { status: 200, body: old };
  const finishing = Boolean(storedMeta.deletionTimestamp) && (storedMeta.finalizers ?? []).length === 0;
  if (opts.dryRun) return { status: 200, body: { ...stored, metadata: { ...storedMeta, resourceVersion: old.metadata?.resourceVersion } } };
  try {
    if (finishing) {
      const kv = await ctx.store.delete(key, { expectedModRevision: modRevision });
      if (r.namespaced && t.namespace) ctx.reaper.kick(t.namespace);
      return { status: 200, body: decodeObject({ value: encodeObject(stored, r), modRevision: kv.modRevision }, r) };
    }
    const kv = await ctx.store.update(key, encodeObject(stored, r), { expectedModRevision: modRevision });
    return { status: 200, body: decodeObject(kv, r) };
  } catch (e) {
    throw fromStoreError(e, r, name) ?? e;
  }
}

/** A status update changes only the status: everything else comes from the stored object. */
function withStatusOf(old: ApiObject, request: ApiObject): ApiObject {
  const next = structuredClone(old);
  if (request.status === undefined) delete next.status;
  else next.status = request.status;
  next.metadata = { ...next.metadata, resourceVersion: request.metadata?.resourceVersion };
  return next;
}

/** With a status subresource, a write to the main resource leaves the status as it was. */
function withoutStatusChange(r: ServedResource, old: ApiObject, request: ApiObject): ApiObject {
  if (!r.subresources.has('status')) return request;
  const next = { ...request };
  if (old.status === undefined) delete next.status;
  else next.status = old.status;
  return next;
}

function specChanged(old: ApiObject, next: ApiObject): boolean {
  const strip = ({ metadata: _m, status: _s, ...rest }: ApiObject) => canonical(rest);
  return strip(old) !== strip(next);
}

/** JSON text with object keys sorted, so that equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

function isNamespace(r: ServedResource): boolean {
  return r.group === '' && r.resource === 'namespaces';
}

/** The namespace finalizer the server itself clears once the namespace is empty. */
export const NAMESPACE_FINALIZER = 'kubernetes';

/** A new namespace is Active and held by the server's own finalizer until its content is gone, as upstream. */
function prepareNamespace(object: ApiObject): void {
  const spec = (object.spec ?? {}) as { finalizers?: string[] };
  const finalizers = spec.finalizers ?? [];
  object.spec = { ...spec, finalizers: finalizers.includes(NAMESPACE_FINALIZER) ? finalizers : [...finalizers, NAMESPACE_FINALIZER] };
  object.status = { phase: 'Active' };
}
