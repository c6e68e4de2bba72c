import {
  type JsonApiObject,
  badRequest,
  fieldInvalid,
  invalid,
  labelSelectorFromObject,
  labelSelectorFromSet,
  notFound,
  objectModified,
  unsupportedMediaType,
} from '../../runtime/api/index.js';
import { patchTypeOf } from '../../runtime/patch/index.js';
import {
  applyPatch,
  nextForWrite,
  parseJsonBody,
  readBody,
  readCurrent,
  type Reply,
  type RequestContext,
  type SubresourceHandler,
  type Target,
  writeOptions,
  writeUpdate,
} from '../../runtime/server/index.js';

/**
 * `<resource>/<name>/scale`, as upstream's scale subresource of the replicated workloads
 * (deployments, replicasets, statefulsets, replicationcontrollers): an autoscaling/v1 Scale whose
 * `spec.replicas` is the object's `spec.replicas`, `status.replicas` its `status.replicas` and
 * `status.selector` its selector as a string. GET reads it; PUT and PATCH write `spec.replicas`
 * back through the object's own update path (admission, validation, generation).
 */
export const scale: SubresourceHandler = {
  methods: ['GET', 'PUT', 'PATCH'],
  async handle(ctx, t, body) {
    if (ctx.req.method === 'GET') {
      const current = await readCurrent(ctx, t.resource, t.namespace, t.name!);
      if (!current) throw notFound(t.resource, t.name!);
      return { status: 200, body: scaleOf(current.object) };
    }
    if (ctx.req.method === 'PUT') return writeScale(ctx, t, () => body!.object);
    const text = (await readBody(ctx.req.raw, ctx.settings.maxBodyBytes)).toString('utf8');
    const type = patchTypeOf(ctx.req.headers['content-type']);
    if (type !== 'json-patch' && type !== 'merge-patch' && type !== 'strategic-merge-patch') {
      throw unsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
    }
    const patch = parseJsonBody(text, false, 'the patch');
    return writeScale(ctx, t, (current) => applyPatch(type, current, patch, t));
  },
};

/** The Scale of a replicated workload. */
function scaleOf(object: JsonApiObject): JsonApiObject {
  const meta = object.metadata ?? {};
  const spec = (object.spec ?? {}) as { replicas?: number; selector?: unknown };
  const status = (object.status ?? {}) as { replicas?: number };
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: {
      name: meta.name,
      ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: spec.replicas ?? 0 },
    status: { replicas: status.replicas ?? 0, selector: selectorString(spec.selector) },
  };
}

/**
 * The selector as a label selector string. Apps kinds hold a LabelSelector object; a
 * replication controller holds a plain map of labels (all string values).
 */
function selectorString(selector: unknown): string {
  if (selector === null || typeof selector !== 'object') return '';
  const values = Object.values(selector);
  const isSet = values.every((v) => typeof v === 'string');
  try {
    return (isSet ? labelSelectorFromSet(selector as Record<string, string>) : labelSelectorFromObject(selector)).toString();
  } catch {
    return '';
  }
}

/** Builds the requested Scale from the current one, checks it and writes its replicas into the object. */
async function writeScale(ctx: RequestContext, t: Target, requested: (current: JsonApiObject) => JsonApiObject): Promise<Reply> {
  const opts = writeOptions(ctx.req.query, ctx.req.method);
  const current = await readCurrent(ctx, t.resource, t.namespace, t.name!);
  if (!current) throw notFound(t.resource, t.name!);
  const wanted = requested(scaleOf(current.object));
  checkScale(t, wanted);
  const rv = wanted.metadata?.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== current.object.metadata?.resourceVersion) throw objectModified(t.resource, t.name!);
  const replicas = (wanted.spec as { replicas?: number } | undefined)?.replicas ?? 0;
  const next = nextForWrite(t, current.object, {
    ...current.object,
    spec: { ...(current.object.spec as object | undefined), replicas },
  });
  const reply = await writeUpdate(ctx, { t, old: current.object, next, modRevision: current.kv.modRevision, duplicates: [], opts });
  return { ...reply, body: scaleOf(reply.body as JsonApiObject) };
}

/** Upstream's ValidateScale, and the name check of every update. */
function checkScale(t: Target, s: JsonApiObject): void {
  const name = s.metadata?.name;
  if (name !== undefined && name !== t.name) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${t.name})`);
  }
  const replicas = (s.spec as { replicas?: unknown } | undefined)?.replicas;
  const scaleKind = { group: 'autoscaling', kind: 'Scale' };
  if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas))) {
    throw invalid(scaleKind, t.name!, [fieldInvalid('spec.replicas', replicas, 'must be an integer')]);
  }
  if (typeof replicas === 'number' && replicas < 0) {
    throw invalid(scaleKind, t.name!, [fieldInvalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
}
