import { parse as parseYaml } from 'yaml';
import { StatusError } from '../api/index.js';
import { apply, isApplyInputError } from '../apply/index.js';
import { findDuplicateKeys } from '../codec/index.js';
import { type JsonObject, type PatchType, acceptedPatchMediaTypes, applyJsonPatch, applyMergePatch, applyStrategicMergePatch, isPatchError, patchTypeOf } from '../patch/index.js';
import type { RequestContext, Target } from './context.js';
import type { Reply } from './http.js';
import type { ApiObject } from './objects.js';
import type { WriteOptions } from './query.js';
import { readCurrent } from './read.js';
import { conflict, notFound } from './versions.js';
import { createObject, ownershipOptions, writeUpdate } from './write.js';

/** The patch types this server applies. */
const APPLIED: ReadonlySet<PatchType> = new Set(['json-patch', 'merge-patch', 'strategic-merge-patch', 'apply-patch']);

/** How often a patch without a resourceVersion is re-applied after losing a race. */
const RETRIES = 5;

/**
 * patch: the type comes from Content-Type; the patched object goes through the same admission and
 * conditional write as an update. A patch that carries a resourceVersion is checked against it;
 * one without never fails for staleness (it is re-applied to the newer object instead).
 */
export async function patchObject(ctx: RequestContext, t: Target, text: string, contentType: string | undefined, opts: WriteOptions): Promise<Reply> {
  const { r } = t;
  const type = patchTypeOf(contentType);
  const accepted = acceptedPatchMediaTypes(r.descriptor.custom ? 'custom-resource' : 'built-in').filter((m) => APPLIED.has(patchTypeOf(m)!));
  if (!type || !APPLIED.has(type) || (type === 'strategic-merge-patch' && r.descriptor.custom)) {
    throw new StatusError({ code: 415, reason: 'UnsupportedMediaType', message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}` });
  }
  if (type === 'apply-patch') return applyObject(ctx, t, text, opts);
  let patch: unknown;
  try {
    patch = JSON.parse(text);
  } catch (e) {
    throw new StatusError({ code: 400, reason: 'BadRequest', message: `the patch is not valid JSON: ${(e as Error).message}` });
  }
  const duplicates = findDuplicateKeys(text);
  for (let attempt = 0; ; attempt++) {
    const current = await readCurrent(ctx, r, t.namespace, t.name!);
    if (!current) throw notFound(r, t.name!);
    const patched = applyPatch(type, current.object, patch, t);
    const requested = patched.metadata?.resourceVersion;
    if (requested !== undefined && requested !== current.object.metadata?.resourceVersion) {
      throw conflict(r, t.name!, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    const next = t.subresource === 'status' ? { ...current.object, status: patched.status } : keepStatus(t, current.object, patched);
    try {
      return await writeUpdate(ctx, t, current.object, next, current.kv.modRevision, duplicates, opts);
    } catch (e) {
      const lostRace = e instanceof StatusError && e.code === 409 && e.reason === 'Conflict' && requested === undefined;
      if (!lostRace || attempt >= RETRIES) throw e;
    }
  }
}

function applyPatch(type: PatchType, current: ApiObject, patch: unknown, t: Target): ApiObject {
  try {
    const result =
      type === 'json-patch' ? applyJsonPatch(current, patch) : type === 'merge-patch' ? applyMergePatch(current, patch) : applyStrategicMergePatch(current, patch, t.r.registration.schema);
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw new StatusError({ code: 422, reason: 'Invalid', message: 'the patched document is not an object' });
    }
    return result as ApiObject;
  } catch (e) {
    if (!isPatchError(e)) throw e;
    if (e.reason === 'malformed') throw new StatusError({ code: 400, reason: 'BadRequest', message: e.message });
    throw new StatusError({ code: 422, reason: 'Invalid', message: e.message, details: { name: t.name ?? '', group: t.r.group, kind: t.r.kind, causes: [{ type: 'FieldValueInvalid', message: e.detail, field: e.path }] } });
  }
}

/** A patch to the main resource of a kind with a status subresource leaves the status alone. */
function keepStatus(t: Target, current: ApiObject, patched: ApiObject): ApiObject {
  if (!t.r.subresources.has('status')) return patched;
  const next = { ...patched };
  if (current.status === undefined) delete next.status;
  else next.status = current.status;
  return next;
}

/**
 * Server-side apply (`application/apply-patch+yaml`, JSON accepted as YAML): the configuration is
 * merged into the live object by the schema's markers with field ownership and conflicts; it
 * creates the object when it is absent. Defaults apply after the merge, so the applier does not
 * own them.
 */
async function applyObject(ctx: RequestContext, t: Target, text: string, opts: WriteOptions): Promise<Reply> {
  const { r } = t;
  let config: unknown;
  try {
    config = parseYaml(text, { uniqueKeys: true });
  } catch (e) {
    throw new StatusError({ code: 400, reason: 'BadRequest', message: `the apply configuration is not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}` });
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new StatusError({ code: 400, reason: 'BadRequest', message: 'the apply configuration must be an object with apiVersion, kind and metadata.name' });
  }
  const named = config as ApiObject;
  if (named.metadata?.name !== undefined && named.metadata.name !== t.name) {
    throw new StatusError({ code: 400, reason: 'BadRequest', message: `the name of the object (${named.metadata.name}) does not match the name on the URL (${t.name})` });
  }
  const options = { ...ownershipOptions(ctx, t), kind: r.kind, force: opts.force };
  for (let attempt = 0; ; attempt++) {
    const current = await readCurrent(ctx, r, t.namespace, t.name!);
    let merged: ApiObject;
    try {
      merged = apply(current?.object as JsonObject | undefined, config as JsonObject, opts.fieldManager ?? '', options) as ApiObject;
    } catch (e) {
      if (isApplyInputError(e)) throw new StatusError({ code: 400, reason: 'BadRequest', message: e.message });
      throw e;
    }
    try {
      if (!current) {
        merged.metadata = { ...merged.metadata, name: t.name! };
        return await createObject(ctx, { ...t, name: undefined, subresource: undefined }, { object: merged, duplicates: [] }, opts, true);
      }
      const next = t.subresource === 'status' ? { ...current.object, status: merged.status, metadata: { ...current.object.metadata, managedFields: merged.metadata?.managedFields } } : keepStatus(t, current.object, merged);
      return await writeUpdate(ctx, t, current.object, next, current.kv.modRevision, [], opts, true);
    } catch (e) {
      // Lost a race with another writer (or a create): apply again to what is there now.
      const raced = e instanceof StatusError && ((e.code === 409 && e.reason === 'Conflict') || e.reason === 'AlreadyExists');
      if (!raced || attempt >= RETRIES) throw e;
    }
  }
}
