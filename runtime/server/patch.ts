import { StatusError } from '../api/index.js';
import { findDuplicateKeys } from '../codec/index.js';
import { type PatchType, acceptedPatchMediaTypes, applyJsonPatch, applyMergePatch, applyStrategicMergePatch, isPatchError, patchTypeOf } from '../patch/index.js';
import type { RequestContext, Target } from './context.js';
import type { Reply } from './http.js';
import type { ApiObject } from './objects.js';
import type { WriteOptions } from './query.js';
import { readCurrent } from './read.js';
import { conflict, notFound } from './versions.js';
import { writeUpdate } from './write.js';

/** The patch types this server applies (server-side apply is answered separately). */
const APPLIED: ReadonlySet<PatchType> = new Set(['json-patch', 'merge-patch', 'strategic-merge-patch']);

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
