import {
  type JsonApiObject,
  OBJECT_MODIFIED,
  StatusError,
  badRequest,
  fieldForbidden,
  fieldRequired,
  invalid,
  invalidPatch,
  notFound,
  objectModified,
  unsupportedMediaType,
} from '../api/index.js';
import { apply, isApplyInputError } from '../apply/index.js';
import {
  type JsonObject,
  type PatchType,
  acceptedPatchMediaTypes,
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  isPatchError,
  patchTypeOf,
} from '../patch/index.js';
import type { RequestContext, Target } from './context.js';
import type { Reply } from './http.js';
import type { WriteOptions } from './query.js';
import { readCurrent } from './read.js';
import { letOthersRun } from './fairness.js';
import { checkDepth, checkMetadataShape } from './object-shape.js';
import { reportUnknownFields } from './admission.js';
import { checkIntegers, parseJsonBody } from './body.js';
import { decodeApplyConfiguration } from './apply-configuration.js';
import { prune, validatorOf } from '../schema/index.js';
import { Collector } from '../validate/index.js';
import { nextForWrite } from './subresource.js';
import { createObject, ownershipOptions, writeUpdate } from './write.js';
import { authorizeCreate } from './stages/index.js';

/** The patch types this server applies. */
const APPLIED: ReadonlySet<PatchType> = new Set(['json-patch', 'merge-patch', 'strategic-merge-patch', 'apply-patch']);

/**
 * A patch without a resourceVersion that lost a race is re-applied to the newer object for as
 * long as its client waits, as upstream's GuaranteedUpdate loops (each round one writer wins, so
 * the server as a whole progresses); a fixed count turned contention into 409s.
 */
function stillWanted(ctx: RequestContext): boolean {
  return ctx.req.raw.socket?.destroyed !== true;
}

/** The store's compare failed: another write came between our read and our write (not, say, a webhook's 409). */
function lostRace(e: unknown): boolean {
  return e instanceof StatusError && e.code === 409 && e.message.endsWith(OBJECT_MODIFIED);
}

/**
 * patch: the type comes from Content-Type; the patched object goes through the same admission and
 * conditional write as an update. A patch that carries a resourceVersion is checked against it;
 * one without never fails for staleness (it is re-applied to the newer object instead).
 */
export async function patchObject(
  ctx: RequestContext,
  t: Target,
  text: string,
  contentType: string | undefined,
  opts: WriteOptions,
): Promise<Reply> {
  const r = t.resource;
  const type = patchTypeOf(contentType);
  const accepted = acceptedPatchMediaTypes(r.descriptor.custom ? 'custom-resource' : 'built-in').filter((m) =>
    APPLIED.has(patchTypeOf(m)!),
  );
  if (!type || !APPLIED.has(type) || (type === 'strategic-merge-patch' && r.descriptor.custom)) {
    throw unsupportedMediaType(accepted);
  }
  // Upstream's ValidatePatchOptions: force, whatever its value, belongs to apply alone, and
  // apply names its manager (no User-Agent inference: the manager owns what it declares).
  if (type !== 'apply-patch' && ctx.req.query.has('force')) {
    throw invalid({ group: 'meta.svc.io', kind: 'PatchOptions' }, '', [
      fieldForbidden('force', 'may not be specified for non-apply patch'),
    ]);
  }
  if (type === 'apply-patch' && opts.fieldManager === undefined) {
    throw invalid({ group: 'meta.svc.io', kind: 'PatchOptions' }, '', [fieldRequired('fieldManager', 'is required for apply patch')]);
  }
  if (type === 'apply-patch') return applyObject(ctx, t, text, opts);
  const { value: patch, duplicates } = parseJsonBody(text, false, 'the patch');
  checkDepth(patch, 'the patch');
  for (;;) {
    const current = await readCurrent(ctx, r, t.namespace, t.name!);
    if (!current) throw notFound(r, t.name!);
    await letOthersRun(ctx.req.raw);
    const patched = applyPatch(type, current.object, patch, t);
    checkMetadataShape(t, patched);
    const requested = patched.metadata?.resourceVersion;
    if (requested !== undefined && requested !== current.object.metadata?.resourceVersion) {
      throw objectModified(r, t.name!);
    }
    const next = nextForWrite(t, current.object, patched);
    try {
      return await writeUpdate(ctx, { t, old: current.object, next, modRevision: current.kv.modRevision, duplicates, opts });
    } catch (e) {
      // A patch that named a resourceVersion meets its check above on the next round.
      if (!lostRace(e) || !stillWanted(ctx)) throw e;
    }
  }
}

/** The object a (non-apply) patch of `type` makes of `current`; a bad patch is a 400 or 422 naming the field. */
export function applyPatch(type: PatchType, current: JsonApiObject, patch: unknown, t: Target): JsonApiObject {
  try {
    const result =
      type === 'json-patch'
        ? applyJsonPatch(current, patch)
        : type === 'merge-patch'
          ? applyMergePatch(current, patch)
          : applyStrategicMergePatch(current, patch, t.resource.registration.schema);
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw invalidPatch('the patched document is not an object');
    }
    return result as JsonApiObject;
  } catch (e) {
    if (!isPatchError(e)) throw e;
    if (e.reason === 'malformed') throw badRequest(e.message);
    throw invalidPatch(e.message, { name: t.name ?? '', group: t.resource.group, kind: t.resource.kind, field: e.path, detail: e.detail });
  }
}

/**
 * Server-side apply (`application/apply-patch+yaml`, JSON accepted as YAML): the configuration is
 * merged into the live object by the schema's markers with field ownership and conflicts; it
 * creates the object when it is absent. Defaults apply after the merge, so the applier does not
 * own them.
 */
async function applyObject(ctx: RequestContext, t: Target, text: string, opts: WriteOptions): Promise<Reply> {
  const r = t.resource;
  await letOthersRun(ctx.req.raw);
  const decoded = decodeApplyConfiguration(text);
  await letOthersRun(ctx.req.raw);
  const config: unknown = decoded.value;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw badRequest('the apply configuration must be an object with apiVersion, kind and metadata.name');
  }
  checkDepth(config, 'the apply configuration');
  checkIntegers(config);
  const named = config as JsonApiObject;
  checkMetadataShape(t, named);
  // Unknown fields never reach the merge: refused under Strict, otherwise dropped (with a warning
  // under Warn), so the applier owns no field the object does not have.
  const collector = new Collector();
  validatorOf(r.registration.schema)(config, '', collector);
  reportUnknownFields(ctx.warnings, { fieldValidation: opts.fieldValidation, duplicates: decoded.duplicates }, collector.unknownFields);
  prune(config, r.registration.schema);
  if (named.metadata?.name !== undefined && named.metadata.name !== t.name) {
    throw badRequest(`the name of the object (${named.metadata.name}) does not match the name on the URL (${t.name})`);
  }
  const options = { ...ownershipOptions(ctx, t), kind: r.kind, force: opts.force };
  // A configuration that names a resourceVersion applies to that version alone, as every other
  // write (upstream's update precondition); one without never fails for staleness.
  const requested = named.metadata?.resourceVersion;
  const conditional = requested !== undefined && requested !== null && requested !== '';
  for (;;) {
    const current = await readCurrent(ctx, r, t.namespace, t.name!);
    if (current && conditional && String(requested) !== current.object.metadata?.resourceVersion) throw objectModified(r, t.name!);
    let merged: JsonApiObject;
    try {
      merged = apply(current?.object as JsonObject | undefined, config as JsonObject, opts.fieldManager ?? '', options) as JsonApiObject;
    } catch (e) {
      if (isApplyInputError(e)) throw badRequest(e.message);
      throw e;
    }
    await letOthersRun(ctx.req.raw);
    try {
      if (!current) {
        // Apply that creates refuses a resourceVersion as create does (upstream's storage).
        if (conditional) throw badRequest('resourceVersion should not be set on objects to be created');
        await authorizeCreate(ctx);
        merged.metadata = { ...merged.metadata, name: t.name! };
        return await createObject(ctx, { ...t, name: undefined, subresource: undefined }, { object: merged, duplicates: [] }, opts, {
          ownershipRecorded: true,
        });
      }
      const next = nextForWrite(t, current.object, merged, ['managedFields']);
      return await writeUpdate(ctx, {
        t,
        old: current.object,
        next,
        modRevision: current.kv.modRevision,
        duplicates: [],
        opts,
        ownershipRecorded: true,
      });
    } catch (e) {
      // Lost a race with another writer (or a create): apply again to what is there now.
      const raced = lostRace(e) || (e instanceof StatusError && e.reason === 'AlreadyExists');
      if (!raced || (conditional && lostRace(e)) || !stillWanted(ctx)) throw e;
    }
  }
}
