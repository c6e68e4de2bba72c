import { SPEC_GROUP_SUFFIX, groupWithSuffix } from '../runtime/api/index.js';
import type { LoopbackClient } from './access-control.js';
import { CONFLICT_ATTEMPTS, upsert } from './system-services.js';

/**
 * The group and version priorities of upstream's local APIServices, keyed `<version>.<group>` with
 * the real system's group names (kube-apiserver 1.30's DefaultGenericAPIServicePriorities and
 * DefaultKubernetesAPIServicePriorities). A served group/version missing here gets no APIService,
 * as upstream's makeAPIService skips it.
 */
const PRIORITIES: Readonly<Record<string, readonly [group: number, version: number]>> = {
  'v1.': [18000, 1],
  'v1.apps': [17800, 15],
  'v1.events.k8s.io': [17750, 15],
  'v1beta1.events.k8s.io': [17750, 5],
  'v1.authentication.k8s.io': [17700, 15],
  'v1beta1.authentication.k8s.io': [17700, 9],
  'v1alpha1.authentication.k8s.io': [17700, 1],
  'v1.authorization.k8s.io': [17600, 15],
  'v1.autoscaling': [17500, 15],
  'v2.autoscaling': [17500, 30],
  'v2beta1.autoscaling': [17500, 9],
  'v2beta2.autoscaling': [17500, 1],
  'v1.batch': [17400, 15],
  'v1beta1.batch': [17400, 9],
  'v1.certificates.k8s.io': [17300, 15],
  'v1alpha1.certificates.k8s.io': [17300, 1],
  'v1.networking.k8s.io': [17200, 15],
  'v1alpha1.networking.k8s.io': [17200, 1],
  'v1.policy': [17100, 15],
  'v1beta1.policy': [17100, 9],
  'v1.rbac.authorization.k8s.io': [17000, 15],
  'v1.storage.k8s.io': [16800, 15],
  'v1beta1.storage.k8s.io': [16800, 9],
  'v1alpha1.storage.k8s.io': [16800, 1],
  'v1.apiextensions.k8s.io': [16700, 15],
  'v1.admissionregistration.k8s.io': [16700, 15],
  'v1beta1.admissionregistration.k8s.io': [16700, 12],
  'v1alpha1.admissionregistration.k8s.io': [16700, 9],
  'v1.scheduling.k8s.io': [16600, 15],
  'v1.coordination.k8s.io': [16500, 15],
  'v1.node.k8s.io': [16300, 15],
  'v1beta1.node.k8s.io': [16300, 9],
  'v1alpha1.node.k8s.io': [16300, 1],
  'v1.discovery.k8s.io': [16200, 15],
  'v1beta1.discovery.k8s.io': [16200, 12],
  'v1.flowcontrol.apiserver.k8s.io': [16100, 21],
  'v1beta3.flowcontrol.apiserver.k8s.io': [16100, 18],
  'v1beta2.flowcontrol.apiserver.k8s.io': [16100, 15],
  'v1beta1.flowcontrol.apiserver.k8s.io': [16100, 12],
  'v1alpha1.flowcontrol.apiserver.k8s.io': [16100, 9],
  'v1alpha1.internal.apiserver.k8s.io': [16000, 9],
  'v1alpha2.resource.k8s.io': [15900, 9],
  'v1alpha1.storagemigration.k8s.io': [15800, 9],
};

/** Upstream's label on the APIServices its autoregister controller keeps; `onstart`: synced when the server starts. */
const AUTOMANAGED = { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' };

/** The condition upstream's availability controller gives an APIService with no service. */
const LOCAL_AVAILABLE = { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' };

/** `<version>.<group>` of a served group/version, the group under its real name (`.k8s.io`) whatever suffix the server serves. */
function priorityKey(group: string, version: string, suffix: string): string {
  const real = group.endsWith(`.${suffix}`) ? `${group.slice(0, -suffix.length)}k8s.io` : group;
  return `${version}.${real}`;
}

/** The group/versions the server lists in its discovery documents (`/api`, `/apis`), core as group "". */
async function servedGroupVersions(client: LoopbackClient): Promise<{ group: string; version: string }[]> {
  const core = JSON.parse((await client('GET', '/api')).text) as { versions: string[] };
  const groups = JSON.parse((await client('GET', '/apis')).text) as { groups: { name: string; versions: { version: string }[] }[] };
  return [
    ...core.versions.map((version) => ({ group: '', version })),
    ...groups.groups.flatMap((g) => g.versions.map(({ version }) => ({ group: g.name, version }))),
  ];
}

/**
 * One local APIService (`spec.service` null, Available because Local) per built-in group/version
 * the server lists, as kube-apiserver's autoregister controller keeps them at start: created when
 * absent, the spec rewritten when present.
 */
export async function registerLocalApiServices(client: LoopbackClient, groupSuffix = SPEC_GROUP_SUFFIX): Promise<void> {
  const apiVersion = `${groupWithSuffix('apiregistration.svc.io', groupSuffix)}/v1`;
  const collection = `/apis/${apiVersion}/apiservices`;
  for (const { group, version } of await servedGroupVersions(client)) {
    const priority = PRIORITIES[priorityKey(group, version, groupSuffix)];
    if (!priority) continue;
    const name = `${version}.${group}`;
    await upsert(client, collection, {
      apiVersion,
      kind: 'APIService',
      metadata: { name, labels: AUTOMANAGED },
      spec: { service: null, group, version, groupPriorityMinimum: priority[0], versionPriority: priority[1] },
    });
    await markAvailable(client, `${collection}/${name}`);
  }
}

/**
 * Sets the Available=True (Local) condition unless the APIService has it already (its transition
 * time is kept). Replicas starting together race for the same objects: a conflict is read again
 * (the other may have marked it), as upstream's controllers requeue.
 */
async function markAvailable(client: LoopbackClient, path: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const stored = JSON.parse((await client('GET', path)).text) as { status?: { conditions?: { type: string; reason?: string }[] } };
    if (stored.status?.conditions?.some((c) => c.type === 'Available' && c.reason === 'Local')) return;
    const condition = { ...LOCAL_AVAILABLE, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
    const { status, text } = await client(
      'PATCH',
      `${path}/status`,
      { status: { conditions: [condition] } },
      'application/merge-patch+json',
    );
    if (status === 200) return;
    if (status !== 409 || attempt >= CONFLICT_ATTEMPTS)
      throw new Error(`the reference server could not mark APIService ${path} available: ${status} ${text}`);
  }
}
