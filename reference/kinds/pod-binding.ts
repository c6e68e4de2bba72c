import {
  type JsonApiObject,
  badRequest,
  conflict,
  fieldNotSupported,
  fieldRequired,
  invalid,
  notFound,
  successStatus,
  timestamp,
} from '../../runtime/api/index.js';
import {
  admitSubresourceCreate,
  type Body,
  readCurrent,
  type Reply,
  type RequestContext,
  type SubresourceHandler,
  type Target,
  type VirtualCreateHandler,
  writeOptions,
  writeUpdate,
} from '../../runtime/server/index.js';

interface Binding {
  metadata?: { name?: string; annotations?: Record<string, string> };
  target?: { kind?: string; name?: string };
}

/** `pods/<name>/binding`: POST a Binding, as a scheduler binds the pod to a node. */
export const bindPodSubresource: SubresourceHandler = {
  methods: ['POST'],
  // The server admitted the body as the subresource's declared kind (v1 Binding).
  handle: (ctx, t, body) => bind(ctx, t, t.name!, body!, { admitted: true }),
};

/** `bindings` (POST to a namespace's collection): the Binding names the pod. */
export const bindPod: VirtualCreateHandler = (ctx, t, body) => {
  const name = (body.object as Binding).metadata?.name ?? '';
  const pods = ctx.registry.get(t.resource.group, t.resource.version, 'pods');
  if (!pods) throw notFound(t.resource, name);
  return bind(ctx, { ...t, resource: pods, name, subresource: 'binding' }, name, body, { admitted: false });
};

/**
 * Upstream's BindingREST: the Binding is validated and admitted as a create of `pods/binding`, then
 * the pod gets `spec.nodeName`, the Binding's annotations and a PodScheduled=True condition; a
 * pod already bound (or being deleted) is a 409 on `pods/binding`.
 */
async function bind(ctx: RequestContext, t: Target, name: string, body: Body, { admitted }: { admitted: boolean }): Promise<Reply> {
  const binding = body.object as Binding & JsonApiObject;
  if ((binding.metadata?.name ?? name) !== name) throw badRequest('name in URL does not match name in Binding object');
  const node = binding.target?.name ?? '';
  const kind = binding.target?.kind ?? '';
  const errors = [
    ...(kind !== '' && kind !== 'Node' ? [fieldNotSupported('target.kind', kind, ['Node', '<empty>'])] : []),
    ...(node === '' ? [fieldRequired('target.name')] : []),
  ];
  if (errors.length > 0) throw invalid({ group: '', kind: 'Binding' }, name, errors);
  const opts = writeOptions(ctx.req.query, ctx.req.method);
  if (!admitted) {
    await admitSubresourceCreate(ctx, {
      resource: t.resource,
      kind: { group: '', version: 'v1', kind: 'Binding' },
      subresource: 'binding',
      namespace: t.namespace,
      name,
      object: binding,
      dryRun: opts.dryRun,
    });
  }
  const current = await readCurrent(ctx, t.resource, t.namespace, name);
  if (!current) throw notFound({ group: '', resource: 'pods' }, name);
  const old = current.object as JsonApiObject & { spec?: { nodeName?: string }; status?: { conditions?: Condition[] } };
  const refused = { group: '', resource: 'pods/binding' };
  if (old.metadata?.deletionTimestamp) throw conflict(refused, name, `pod ${name} is being deleted, cannot be assigned to a host`);
  if (old.spec?.nodeName) throw conflict(refused, name, `pod ${name} is already assigned to node ${JSON.stringify(old.spec.nodeName)}`);
  const next = structuredClone(old);
  next.spec = { ...next.spec, nodeName: node };
  const annotations = binding.metadata?.annotations;
  if (annotations && Object.keys(annotations).length > 0)
    next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, ...annotations } };
  next.status = { ...next.status, conditions: scheduled(next.status?.conditions ?? [], timestamp(ctx.settings.now())) };
  await writeUpdate(ctx, { t, old, next, modRevision: current.kv.modRevision, duplicates: body.duplicates, opts });
  return { status: 201, body: successStatus({ code: 201 }) };
}

interface Condition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
}

/** Upstream's UpdatePodCondition with PodScheduled=True: the transition time moves only when the status changes. */
function scheduled(conditions: Condition[], now: string): Condition[] {
  const at = conditions.findIndex((c) => c.type === 'PodScheduled');
  if (at < 0) return [...conditions, { type: 'PodScheduled', status: 'True', lastTransitionTime: now }];
  const old = conditions[at]!;
  const updated = { type: 'PodScheduled', status: 'True', lastTransitionTime: old.status === 'True' ? old.lastTransitionTime : now };
  return conditions.map((c, i) => (i === at ? updated : c));
}
