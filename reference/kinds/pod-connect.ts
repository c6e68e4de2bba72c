import { type JsonApiObject, badRequest, internalError, notFound } from '../../runtime/api/index.js';
import { readCurrent, type RequestContext, type SubresourceHandler, type Target } from '../../runtime/server/index.js';

/**
 * The pod subresources a kubelet answers (`log`, `exec`, `attach`, `portforward`), as upstream's
 * LogLocation and streamLocation decide them before connecting: the container must be valid, a
 * pod bound to no node has no log yet (204, no body) and nothing to exec into (400), and a bound
 * pod's node must exist. The reference server runs no kubelet, so a pod on an existing node is
 * answered with the error upstream's would give for a node it cannot reach.
 */

interface Container {
  name?: string;
}
interface PodSpec {
  nodeName?: string;
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
}

async function podOf(ctx: RequestContext, t: Target): Promise<JsonApiObject & { spec?: PodSpec }> {
  const current = await readCurrent(ctx, t.resource, t.namespace, t.name!);
  if (!current) throw notFound(t.resource, t.name!);
  return current.object as JsonApiObject & { spec?: PodSpec };
}

function names(containers: Container[] | undefined): string[] {
  return (containers ?? []).map((c) => c.name ?? '');
}

/** Every container a request may name: init, regular and ephemeral ones. */
function allContainers(spec: PodSpec): string[] {
  return [...names(spec.initContainers), ...names(spec.containers), ...names(spec.ephemeralContainers)];
}

/**
 * The container a log, exec or attach request names, as upstream checks it: a named one must exist;
 * none named is fine for a pod of one container, else an error listing the `choices`.
 */
function checkContainer(pod: string, spec: PodSpec, container: string | null, choices: () => string): void {
  if (container) {
    if (!allContainers(spec).includes(container)) throw badRequest(`container ${container} is not valid for pod ${pod}`);
    return;
  }
  const count = spec.containers?.length ?? 0;
  if (count === 1) return;
  if (count === 0) throw badRequest(`a container name must be specified for pod ${pod}`);
  throw badRequest(`a container name must be specified for pod ${pod}, choose one of: ${choices()}`);
}

/** Upstream's validateContainer of a log request: every container kind may be named; the choices listed as Go prints a slice. */
function checkLogContainer(pod: string, spec: PodSpec, container: string | null): void {
  checkContainer(pod, spec, container, () => `[${allContainers(spec).join(' ')}]`);
}

/** Upstream's streamLocation check of an exec or attach request: the choices name regular and init containers apart. */
function checkStreamContainer(pod: string, spec: PodSpec, container: string | null): void {
  checkContainer(pod, spec, container, () => {
    const init = names(spec.initContainers);
    const regular = `[${names(spec.containers).join(' ')}]`;
    return init.length > 0 ? `${regular} or one of the init containers: [${init.join(' ')}]` : regular;
  });
}

/** The kubelet of a bound pod's node: the node must exist (upstream's GetConnectionInfo); none answers here. */
async function kubeletOf(ctx: RequestContext, nodeName: string): Promise<never> {
  const nodes = ctx.registry.get('', 'v1', 'nodes');
  const node = nodes && (await readCurrent(ctx, nodes, undefined, nodeName));
  if (!node) throw notFound({ group: '', resource: 'nodes' }, nodeName);
  const addresses = ((node.object.status as { addresses?: { type?: string; address?: string }[] } | undefined)?.addresses ?? []).map(
    (a) => `{${a.type ?? ''} ${a.address ?? ''}}`,
  );
  if (addresses.length === 0) throw internalError(new Error('no preferred addresses found; known addresses: []'));
  throw internalError(new Error(`the reference server runs no kubelet: node ${nodeName} cannot be reached`));
}

/** `pods/<name>/log`: GET. */
export const podLog: SubresourceHandler = {
  methods: ['GET'],
  async handle(ctx, t) {
    const pod = await podOf(ctx, t);
    const spec = pod.spec ?? {};
    checkLogContainer(t.name!, spec, queryValue(ctx, 'container'));
    // No node yet: upstream's streamer has no location and answers 204 with no body.
    if (!spec.nodeName) return { status: 204, body: '', contentType: 'text/plain' };
    return kubeletOf(ctx, spec.nodeName);
  },
};

/** `pods/<name>/exec` and `pods/<name>/attach`: GET or POST (an upgrade to a stream). */
export const podStream: SubresourceHandler = {
  methods: ['GET', 'POST'],
  bodyless: true,
  async handle(ctx, t) {
    const pod = await podOf(ctx, t);
    const spec = pod.spec ?? {};
    checkStreamContainer(t.name!, spec, queryValue(ctx, 'container'));
    if (!spec.nodeName) throw badRequest(`pod ${t.name} does not have a host assigned`);
    return kubeletOf(ctx, spec.nodeName);
  },
};

/** `pods/<name>/portforward`: GET or POST; no container is named. */
export const podPortForward: SubresourceHandler = {
  methods: ['GET', 'POST'],
  bodyless: true,
  async handle(ctx, t) {
    const spec = (await podOf(ctx, t)).spec ?? {};
    if (!spec.nodeName) throw badRequest(`pod ${t.name} does not have a host assigned`);
    return kubeletOf(ctx, spec.nodeName);
  },
};

function queryValue(ctx: RequestContext, name: string): string | null {
  const value = ctx.req.query.get(name);
  return value === null || value === '' ? null : value;
}
