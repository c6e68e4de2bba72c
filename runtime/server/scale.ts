import {
  type JsonApiObject,
  badRequest,
  fieldInvalid,
  invalid,
  invalidPatch,
  methodNotAllowed,
  notFound,
  objectModified,
  unsupportedMediaType,
} from '../api/index.js';
import { applyJsonPatch, applyMergePatch, isPatchError } from '../patch/index.js';
import type { ResourceDescriptor } from '../schema/index.js';
import type { RequestContext, Target } from './context.js';
import { type Reply, readBody } from './http.js';
import { writeOptions } from './query.js';
import { readCurrent } from './read.js';
import { writeUpdate } from './write.js';

type ScalePaths = NonNullable<ResourceDescriptor['scale']>;

const SCALE = { group: 'autoscaling', kind: 'Scale' };
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json'];

/**
 * The scale subresource of a kind that declares where its replicas live (a CRD's
 * `subresources.scale`), as upstream's custom resource scale: an `autoscaling/v1` Scale read from
 * the object (spec replicas, status replicas, the label selector); PUT or PATCH of the Scale
 * writes only the spec replicas back, through the same update path as any write.
 */
export async function scaleRequest(ctx: RequestContext, t: Target, paths: ScalePaths): Promise<Reply> {
  const r = t.resource;
  const name = t.name!;
  const { method } = ctx.req;
  if (method !== 'GET' && method !== 'PUT' && method !== 'PATCH') throw methodNotAllowed(method, 'scale takes GET, PUT and PATCH');
  const current = await readCurrent(ctx, r, t.namespace, name);
  if (!current) throw notFound(r, name);
  const scale = scaleOf(current.object, paths);
  if (method === 'GET') return { status: 200, body: scale };
  const text = (await readBody(ctx.req.raw, ctx.settings.maxBodyBytes)).toString('utf8');
  const wanted = method === 'PUT' ? parse(text) : patched(scale, text, ctx.req.headers['content-type'], name);
  const requestedVersion = (wanted.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  if (requestedVersion !== undefined && requestedVersion !== '' && requestedVersion !== scale.metadata.resourceVersion) {
    throw objectModified(r, name);
  }
  const replicas = (wanted.spec as { replicas?: unknown } | undefined)?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid(SCALE, name, [fieldInvalid('spec.replicas', replicas ?? null, 'must be greater than or equal to 0')]);
  }
  const next = structuredClone(current.object);
  setPath(next, paths.specReplicasPath, replicas);
  const reply = await writeUpdate(ctx, {
    t,
    old: current.object,
    next,
    modRevision: current.kv.modRevision,
    duplicates: [],
    opts: writeOptions(ctx.req.query, ctx.req.method),
  });
  return { ...reply, body: scaleOf(reply.body as JsonApiObject, paths) };
}

function scaleOf(object: JsonApiObject, paths: ScalePaths) {
  const meta = object.metadata ?? {};
  const selector = paths.labelSelectorPath ? getPath(object, paths.labelSelectorPath) : undefined;
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
    status: { replicas: numberOr0(getPath(object, paths.statusReplicasPath)), ...(typeof selector === 'string' ? { selector } : {}) },
  };
}

function parse(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badRequest(`the Scale is not JSON: ${(e as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('the Scale must be a JSON object');
  return value as Record<string, unknown>;
}

function patched(scale: object, text: string, contentType: string | undefined, name: string): Record<string, unknown> {
  const type = contentType?.split(';')[0]?.trim();
  if (!type || !PATCH_TYPES.includes(type)) throw unsupportedMediaType(PATCH_TYPES);
  const patch = parse(type === 'application/merge-patch+json' ? text : `{"ops":${text}}`);
  try {
    const result = type === 'application/merge-patch+json' ? applyMergePatch(scale, patch) : applyJsonPatch(scale, patch.ops);
    if (typeof result !== 'object' || result === null || Array.isArray(result)) throw invalidPatch('the patched document is not an object');
    return result as Record<string, unknown>;
  } catch (e) {
    if (!isPatchError(e)) throw e;
    if (e.reason === 'malformed') throw badRequest(e.message);
    throw invalidPatch(e.message, { name, ...SCALE, field: e.path, detail: e.detail });
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
