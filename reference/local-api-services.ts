import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { type JsonApiObject, timestamp } from '../runtime/api/index.js';
import { update as recordUpdate } from '../runtime/apply/index.js';
import { MASTERS_GROUP } from '../runtime/auth/index.js';
import {
  type ServedResource,
  type ServerContext,
  admitControllerWrite,
  decodeObject,
  encodeObject,
  objectKey,
} from '../runtime/server/index.js';
import { isStoreConflictError, isStoreKeyExistsError } from '../runtime/store/index.js';
import { CONFLICT_ATTEMPTS } from './system-services.js';

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

/** Who writes them: the server itself, as upstream's loopback client. */
const SERVER_USER = { username: 'system:apiserver', groups: [MASTERS_GROUP], extra: {} };

/** The field manager of the writes, as upstream's autoregister controller records itself. */
const MANAGER = 'kube-apiserver';

/**
 * One local APIService (`spec.service` null, Available because Local) per built-in group/version
 * the server serves, as kube-apiserver's autoregister controller keeps them at start: created when
 * absent, the spec rewritten when present. Written in-process (admitted, then stored), not through
 * HTTP: a request per group/version made every start (and every test server) several times slower.
 */
export async function registerLocalApiServices(context: ServerContext, groupSuffix: string): Promise<void> {
  const { registry } = context;
  const apiServices = registry.get(registry.servedGroup('apiregistration.svc.io'), 'v1', 'apiservices');
  if (!apiServices) return;
  const served = new Set(registry.resources().map((r) => `${r.version}.${r.group}`));
  for (const name of served) {
    const [version, group] = [name.slice(0, name.indexOf('.')), name.slice(name.indexOf('.') + 1)];
    const priority = PRIORITIES[priorityKey(group, version, groupSuffix)];
    if (!priority) continue;
    // The core group's "" is left out, as upstream's omitempty does (and as the store keeps it).
    const spec = { service: null, ...(group ? { group } : {}), version, groupPriorityMinimum: priority[0], versionPriority: priority[1] };
    await keepApiService(context, apiServices, name, spec);
  }
}

/**
 * Creates the APIService, or rewrites its spec and marks it available (a transition time already
 * there is kept); nothing is written when it is as wanted. Replicas starting together race for the
 * same objects: a conflict is read again, as upstream's controllers requeue.
 */
async function keepApiService(context: ServerContext, r: ServedResource, name: string, spec: Record<string, unknown>): Promise<void> {
  const key = objectKey(r, undefined, name);
  for (let attempt = 1; ; attempt++) {
    const kv = await context.store.get(key);
    const live = kv ? await decodeObject(kv, r) : undefined;
    const next = wanted(context, r, name, spec, live);
    if (live && isDeepStrictEqual(next, live)) return;
    try {
      const admitted = await admitControllerWrite(context, SERVER_USER, { resource: r, object: next, ...(live ? { old: live } : {}) });
      const ownership = {
        schema: r.registration.schema,
        custom: r.descriptor.custom,
        apiVersion: r.apiVersion,
        now: context.settings.now(),
      };
      // The spec is written through the resource and the condition through `status`, as upstream's two calls.
      const { status, ...withoutStatus } = admitted;
      const specOwned = recordUpdate(
        live as never,
        { ...withoutStatus, ...(live?.status ? { status: live.status } : {}) } as never,
        MANAGER,
        ownership,
      );
      const owned = recordUpdate(specOwned, { ...admitted, metadata: specOwned.metadata } as never, MANAGER, {
        ...ownership,
        subresource: 'status',
      });
      const value = await encodeObject(owned as unknown as JsonApiObject, r);
      if (kv) await context.store.update(key, value, { expectedModRevision: kv.modRevision });
      else await context.store.create(key, value);
      return;
    } catch (e) {
      const raced = isStoreKeyExistsError(e) || isStoreConflictError(e);
      if (!raced || attempt >= CONFLICT_ATTEMPTS)
        throw new Error(`the reference server could not register APIService ${name}: ${(e as Error).message}`);
    }
  }
}

/** The APIService as the server keeps it: the live one (if any) with the spec, label and Local condition set. */
function wanted(
  context: ServerContext,
  r: ServedResource,
  name: string,
  spec: Record<string, unknown>,
  live: JsonApiObject | undefined,
): JsonApiObject {
  const now = context.settings.now();
  const metadata = live?.metadata ?? { name, uid: randomUUID(), creationTimestamp: timestamp(now) };
  const nextSpec = { ...(live?.spec as object | undefined), ...spec };
  // A changed spec is a new generation, as the verb handlers count them.
  const generation = r.descriptor.generation
    ? { generation: (metadata.generation ?? 0) + (live && isDeepStrictEqual(live.spec, nextSpec) ? 0 : 1) }
    : {};
  const status = (live?.status ?? {}) as { conditions?: { type: string; reason?: string }[] };
  const local = status.conditions?.some((c) => c.type === 'Available' && c.reason === 'Local');
  return {
    ...live,
    apiVersion: r.apiVersion,
    kind: r.kind,
    metadata: { ...metadata, ...generation, labels: { ...metadata.labels, ...AUTOMANAGED } },
    spec: nextSpec,
    status: local ? status : { ...status, conditions: [{ ...LOCAL_AVAILABLE, lastTransitionTime: timestamp(now) }] },
  };
}
