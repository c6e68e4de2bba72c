import {
  type JsonApiObject,
  badRequest,
  fieldInvalid,
  invalid,
  invalidPatch,
  labelSelectorFromObject,
  labelSelectorFromSet,
  methodNotAllowed,
  notFound,
  objectModified,
  unsupportedMediaType,
} from '../api/index.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, isPatchError, patchTypeOf } from '../patch/index.js';
import type { ResourceDescriptor } from '../schema/index.js';
import { type Body, parseJsonBody } from './body.js';
import type { RequestContext, Target } from './context.js';
import { type Reply, readBody } from './http.js';
import { writeOptions } from './query.js';
import { readCurrent } from './read.js';
import { writeUpdate } from './write.js';

type ScalePaths = NonNullable<ResourceDescriptor['scale']>;

const SCALE = { group: 'autoscaling', kind: 'Scale' };
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json'];
const BUILT_IN_PATCH_TYPES = [...PATCH_TYPES, 'application/strategic-merge-patch+json'];

/**
 * The scale subresource of a kind that declares where its replicas live: a CRD's
 * `subresources.scale`, and the built-in workloads' (deployments, replicasets, statefulsets,
 * replicationcontrollers) declared the same way, as upstream's scale subresources: an
 * `autoscaling/v1` Scale read from the object (spec replicas, status replicas, the label selector
 * as a string); PUT (its body already checked as a Scale) or PATCH of the Scale writes only the
 * spec replicas back, through the same update path as any write (admission, validation, generation).
 */
export async function scaleRequest(ctx: RequestContext, t: Target, paths: ScalePaths, body: Body | undefined): Promise<Reply> {
  const r = t.resource;
  const name = t.name!;
  const { method } = ctx.req;
  if (method !== 'GET' && method !== 'PUT' && method !== 'PATCH') throw methodNotAllowed(method, 'scale takes GET, PUT and PATCH');
  const current = await readCurrent(ctx, r, t.namespace, name);
  if (!current) throw notFound(r, name);
  const scale = scaleOf(current.object, paths, r.descriptor.custom);
  if (method === 'GET') return { status: 200, body: scale };
  const wanted = body ? body.object : await patched(ctx, t, scale);
  checkScale(t, wanted);
  const requestedVersion = wanted.metadata?.resourceVersion;
  if (requestedVersion !== undefined && requestedVersion !== '' && requestedVersion !== scale.metadata.resourceVersion) {
    throw objectModified(r, name);
  }
  const next = structuredClone(current.object);
  setPath(next, paths.specReplicasPath, (wanted.spec as { replicas?: number } | undefined)?.replicas ?? 0);
  const reply = await writeUpdate(ctx, {
    t,
    old: current.object,
    next,
    modRevision: current.kv.modRevision,
    duplicates: [],
    opts: writeOptions(ctx.req.query, ctx.req.method),
  });
  return { ...reply, body: scaleOf(reply.body as JsonApiObject, paths, r.descriptor.custom) };
}

function scaleOf(object: JsonApiObject, paths: ScalePaths, custom: boolean) {
  const meta = object.metadata ?? {};
  const selector = paths.labelSelectorPath ? selectorString(getPath(object, paths.labelSelectorPath), custom) : undefined;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: numberOr0(getPath(object, paths.specReplicasPath)) },
    status: { replicas: numberOr0(getPath(object, paths.statusReplicasPath)), ...(selector !== undefined ? { selector } : {}) },
  };
}

/**
 * The selector as a label selector string: a custom resource's is one already; a built-in
 * workload holds a LabelSelector object, or (a replication controller) a plain map of labels.
 */
function selectorString(selector: unknown, custom: boolean): string | undefined {
  if (typeof selector === 'string') return selector;
  if (custom || selector === null || typeof selector !== 'object') return custom ? undefined : '';
  const isSet = Object.values(selector).every((v) => typeof v === 'string');
  try {
    return (isSet ? labelSelectorFromSet(selector as Record<string, string>) : labelSelectorFromObject(selector)).toString();
  } catch {
    return '';
  }
}

/** The Scale a patch makes of the current one: JSON and merge patches, and strategic merge for a built-in kind (upstream refuses it for custom resources). */
async function patched(ctx: RequestContext, t: Target, scale: object): Promise<JsonApiObject> {
  const type = patchTypeOf(ctx.req.headers['content-type']);
  const builtIn = !t.resource.descriptor.custom;
  if (type !== 'json-patch' && type !== 'merge-patch' && !(builtIn && type === 'strategic-merge-patch'))
    throw unsupportedMediaType(builtIn ? BUILT_IN_PATCH_TYPES : PATCH_TYPES);
  const text = (await readBody(ctx.req.raw, ctx.settings.maxBodyBytes)).toString('utf8');
  const patch = parseJsonBody(text, false, 'the patch').value;
  try {
    const result =
      type === 'json-patch'
        ? applyJsonPatch(scale, patch)
        : type === 'merge-patch'
          ? applyMergePatch(scale, patch)
          : applyStrategicMergePatch(scale, patch, scaleSchema(ctx));
    if (typeof result !== 'object' || result === null || Array.isArray(result)) throw invalidPatch('the patched document is not an object');
    return result as JsonApiObject;
  } catch (e) {
    if (!isPatchError(e)) throw e;
    if (e.reason === 'malformed') throw badRequest(e.message);
    throw invalidPatch(e.message, { name: t.name!, ...SCALE, field: e.path, detail: e.detail });
  }
}

/** autoscaling/v1 Scale's schema, which a strategic merge patch of it follows. */
function scaleSchema(ctx: RequestContext) {
  const registration = ctx.registry.registration('autoscaling/v1', 'Scale');
  if (!registration) throw unsupportedMediaType(PATCH_TYPES);
  return registration.schema;
}

/** Upstream's ValidateScale, and the name check of every update. */
function checkScale(t: Target, s: JsonApiObject): void {
  const name = s.metadata?.name;
  if (name !== undefined && name !== t.name) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${t.name})`);
  }
  const replicas = (s.spec as { replicas?: unknown } | undefined)?.replicas;
  if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas))) {
    throw invalid(SCALE, t.name!, [fieldInvalid('spec.replicas', replicas, 'must be an integer')]);
  }
  if (typeof replicas === 'number' && replicas < 0) {
    throw invalid(SCALE, t.name!, [fieldInvalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
}

/** `.spec.replicas` → the value there (undefined when a step is missing). */
function getPath(object: unknown, path: string): unknown {
  let at: unknown = object;
  for (const key of path.replace(/^\./, '').split('.')) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

function setPath(object: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.replace(/^\./, '').split('.');
  let at = object;
  for (const key of keys.slice(0, -1)) {
    if (typeof at[key] !== 'object' || at[key] === null) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys.at(-1)!] = value;
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}
