import { isIPv4 } from 'node:net';
import { SPEC_GROUP_SUFFIX, groupWithSuffix } from '../runtime/api/index.js';
import { DEFAULT_SERVICE_CIDR, kubernetesServiceIP, parseServiceCidr } from './kinds/index.js';
import type { LoopbackClient } from './loopback-client.js';

/** The namespaces kube-apiserver's system-namespaces controller creates at start, besides `default`. */
export const SYSTEM_NAMESPACES = ['kube-system', 'kube-public', 'kube-node-lease'] as const;

/**
 * The `default/kubernetes` Service (the first address of the service range, port 443 named https)
 * and its Endpoints and EndpointSlice pointing at the server, as upstream's controlplane
 * reconciler keeps them (pkg/controlplane/reconcilers): created when absent, the endpoints
 * rewritten at every start, since the server's address and port may have changed.
 */
export async function reconcileKubernetesService(
  client: LoopbackClient,
  server: { url: string; serviceCidr?: string; groupSuffix?: string },
): Promise<void> {
  const { hostname, port: portText, protocol } = new URL(server.url);
  const port = Number(portText || (protocol === 'https:' ? 443 : 80));
  // An IPv6 or name listener has no IPv4 endpoint; the loopback address stands for it.
  const ip = isIPv4(hostname) ? hostname : '127.0.0.1';
  const clusterIP = kubernetesServiceIP(parseServiceCidr(server.serviceCidr ?? DEFAULT_SERVICE_CIDR));
  const meta = { name: 'kubernetes', namespace: 'default' };
  await ensure(client, '/api/v1/namespaces/default/services', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { ...meta, labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP,
      sessionAffinity: 'None',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }],
    },
  });
  await upsert(client, '/api/v1/namespaces/default/endpoints', {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { ...meta, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    subsets: [{ addresses: [{ ip }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
  });
  const discovery = `${groupWithSuffix('discovery.svc.io', server.groupSuffix ?? SPEC_GROUP_SUFFIX)}/v1`;
  await upsert(client, `/apis/${discovery}/namespaces/default/endpointslices`, {
    apiVersion: discovery,
    kind: 'EndpointSlice',
    metadata: { ...meta, labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [ip], conditions: { ready: true } }],
    ports: [{ name: 'https', port, protocol: 'TCP' }],
  });
}

export interface Manifest {
  kind: string;
  metadata: { name: string; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * Creates the object unless it exists (asked first: a second create of the Service would find its
 * own address taken). A replica starting beside this one may create it between the question and
 * the create: then the create is refused (409, or 422 for the address) and the object is there.
 */
async function ensure(client: LoopbackClient, collection: string, object: Manifest): Promise<void> {
  const path = `${collection}/${object.metadata.name}`;
  if ((await client('GET', path)).status === 200) return;
  const { status, text } = await client('POST', collection, object);
  if (status === 201 || (await client('GET', path)).status === 200) return;
  throw new Error(`the reference server could not create ${object.kind} ${object.metadata.name}: ${status} ${text}`);
}

/** Creates the object, or merge-patches the stored one to it (its lists replace the stored ones). */
async function upsert(client: LoopbackClient, collection: string, object: Manifest): Promise<void> {
  const { status, text } = await client('POST', collection, object);
  if (status === 201) return;
  if (status !== 409) throw new Error(`the reference server could not create ${object.kind} ${object.metadata.name}: ${status} ${text}`);
  // A merge patch of the whole object: its lists replace the stored ones. Replicas starting
  // together patch the same objects: the server retries a few conflicts, we retry the rest.
  for (let attempt = 1; ; attempt++) {
    const put = await client('PATCH', `${collection}/${object.metadata.name}`, object, 'application/merge-patch+json');
    if (put.status === 200) return;
    if (put.status !== 409 || attempt >= CONFLICT_ATTEMPTS)
      throw new Error(`the reference server could not update ${object.kind} ${object.metadata.name}: ${put.status} ${put.text}`);
  }
}

/** How many times a start-up write is tried against other replicas' writes of the same object. */
export const CONFLICT_ATTEMPTS = 10;
