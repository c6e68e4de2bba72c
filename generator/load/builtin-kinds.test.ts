import { describe, expect, it } from 'vitest';
import { ModelIndex } from '../model/index.js';
import { loadSchemas } from './index.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Every kind the two spec documents name, as `<apiVersion> <Kind>`. */
const EXPECTED = [
  // core protocol: meta types, served kinds, virtual types
  'v1 Status',
  'meta.svc.io/v1 Table',
  'meta.svc.io/v1 DeleteOptions',
  'meta.svc.io/v1 PartialObjectMetadata',
  'v1 Namespace',
  'v1 Node',
  'v1 Pod',
  'v1 Service',
  'v1 ConfigMap',
  'v1 Secret',
  'v1 Event',
  'authorization.svc.io/v1 SubjectAccessReview',
  'policy/v1 Eviction',
  // removed-versions table
  ...['v1beta1', 'v1beta2', 'v1beta3', 'v1'].flatMap((v) => [
    `flowcontrol.apiserver.svc.io/${v} FlowSchema`,
    `flowcontrol.apiserver.svc.io/${v} PriorityLevelConfiguration`,
  ]),
  'storage.svc.io/v1beta1 CSIStorageCapacity',
  'storage.svc.io/v1 CSIStorageCapacity',
  'autoscaling/v2beta2 HorizontalPodAutoscaler',
  'autoscaling/v2 HorizontalPodAutoscaler',
  'batch/v1beta1 CronJob',
  'batch/v1 CronJob',
  'discovery.svc.io/v1beta1 EndpointSlice',
  'discovery.svc.io/v1 EndpointSlice',
  // configuration kinds and callback payloads
  'client.authentication.svc.io/v1 ExecCredential',
  'client.authentication.svc.io/v1beta1 ExecCredential',
  'eventratelimit.admission.svc.io/v1alpha1 Configuration',
  'imagepolicy.svc.io/v1alpha1 ImageReview',
  'admission.svc.io/v1 AdmissionReview',
  'audit.svc.io/v1 Event',
  'audit.svc.io/v1 EventList',
  'audit.svc.io/v1 Policy',
  'audit.svc.io/v1 PolicyList',
  'apiserver.config.svc.io/v1 AdmissionConfiguration',
  'apiserver.config.svc.io/v1 EncryptionConfiguration',
  'apiserver.svc.io/v1alpha1 AdmissionConfiguration',
  'apiserver.svc.io/v1alpha1 AuthenticationConfiguration',
  'apiserver.svc.io/v1alpha1 AuthorizationConfiguration',
  'apiserver.svc.io/v1alpha1 EgressSelectorConfiguration',
  'apiserver.svc.io/v1alpha1 TracingConfiguration',
  'svccontrollermanager.config.svc.io/v1alpha1 SvcControllerManagerConfiguration',
  'cloudcontrollermanager.config.svc.io/v1alpha1 CloudControllerManagerConfiguration',
  'controllermanager.config.svc.io/v1alpha1 LeaderMigrationConfiguration',
  'svcproxy.config.svc.io/v1alpha1 SvcProxyConfiguration',
  'svcscheduler.config.svc.io/v1 SvcSchedulerConfiguration',
  ...[
    'DefaultPreemptionArgs',
    'InterPodAffinityArgs',
    'NodeAffinityArgs',
    'NodeResourcesBalancedAllocationArgs',
    'NodeResourcesFitArgs',
    'PodTopologySpreadArgs',
    'VolumeBindingArgs',
  ].map((k) => `svcscheduler.config.svc.io/v1 ${k}`),
  'svcadm.svc.io/v1beta3 InitConfiguration',
  'svcadm.svc.io/v1beta3 ClusterConfiguration',
  'svcadm.svc.io/v1beta3 JoinConfiguration',
];

/** Every `<Name>Controller` member of the controller manager configuration the spec lists. */
const CONTROLLERS = [
  'AttachDetach',
  'CSRSigning',
  'DaemonSet',
  'Deployment',
  'StatefulSet',
  'Deprecated',
  'Endpoint',
  'EndpointSlice',
  'EndpointSliceMirroring',
  'EphemeralVolume',
  'GarbageCollector',
  'HPA',
  'Job',
  'CronJob',
  'LegacySATokenCleaner',
  'Namespace',
  'NodeIPAM',
  'NodeLifecycle',
  'PersistentVolumeBinder',
  'PodGC',
  'ReplicaSet',
  'Replication',
  'ResourceQuota',
  'SA',
  'Service',
  'TTLAfterFinished',
  'ValidatingAdmissionPolicyStatus',
];

describe('built-in schemas', () => {
  const model = loadSchemas({ inputs: ['schemas'], cwd: ROOT });
  const index = new ModelIndex(model);

  it('define every kind the specification names', () => {
    const kinds = new Set(index.kinds().map((t) => `${t.kind!.apiVersion} ${t.kind!.kind}`));
    expect(EXPECTED.filter((k) => !kinds.has(k))).toEqual([]);
  });

  it('give the controller manager configuration a member per controller', () => {
    const t = index.resolve({
      group: 'svccontrollermanager.config.svc.io',
      version: 'v1alpha1',
      name: 'SvcControllerManagerConfiguration',
    });
    const fields = t.node.kind === 'object' ? t.node.fields.map((f) => f.name) : [];
    expect(['Generic', 'SvcCloudShared', ...CONTROLLERS.map((c) => `${c}Controller`)].filter((f) => !fields.includes(f))).toEqual([]);
  });

  it('carry a Protobuf field number on every field of every served kind', () => {
    const missing: string[] = [];
    for (const t of index.kinds()) {
      if (!t.kind?.resource || t.kind.resource.custom || t.node.kind !== 'object') continue;
      for (const f of t.node.fields)
        if (f.protoTag === undefined && f.name !== 'apiVersion' && f.name !== 'kind')
          missing.push(`${t.kind.apiVersion} ${t.kind.kind}.${f.name}`);
    }
    expect(missing).toEqual([]);
  });
});
