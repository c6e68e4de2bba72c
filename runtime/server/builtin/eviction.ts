import { badRequest, internalError, successStatus } from '../../api/index.js';
import { admitSubresourceCreate } from '../admission.js';
import type { SubresourceHandler } from '../context.js';
import { deleteObject, deleteOptions } from '../delete.js';
import { writeOptions } from '../query.js';

/** `<resource>/<name>/eviction`: an Eviction for that object deletes it with the Eviction's delete options (upstream's pod eviction, without disruption budgets). */
export const evict: SubresourceHandler = {
  methods: ['POST'],
  async handle(ctx, t, body) {
    const eviction = body!.object;
    if (eviction.kind !== undefined && eviction.kind !== 'Eviction')
      throw badRequest(`expected an Eviction body, found kind ${JSON.stringify(eviction.kind)}`);
    const name = eviction.metadata?.name;
    if (name !== undefined && name !== t.name)
      throw badRequest(`name in URL does not match name in Eviction object (${t.name} != ${name})`);
    const opts = deleteOptions(eviction.deleteOptions, new URLSearchParams(), writeOptions(ctx.req.query));
    // Admitted as upstream: a CREATE of the eviction subresource with the Eviction as the object;
    // the delete it causes is not admitted again.
    await admitSubresourceCreate(ctx, {
      resource: t.resource,
      kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      subresource: 'eviction',
      namespace: t.namespace,
      name: t.name ?? '',
      object: eviction,
      dryRun: opts.dryRun,
    });
    const reply = await deleteObject(ctx, { ...t, subresource: undefined }, { ...opts, admitted: true });
    if (reply.status !== 200) throw internalError('eviction did not delete the object');
    return { status: 201, body: successStatus({ code: 201 }) };
  },
};
