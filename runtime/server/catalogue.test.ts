import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { ProtobufCodecs } from '../codec/index.js';
import { type Harness, type Json, expectStatus, startServer } from './server.testing.js';

// The catalogue of kinds a controller needs (issue 17), decided as the real system's 1.30:
// each kind accepts a realistic object and fills upstream's defaults; bad objects get upstream's messages.

const labels = { app: 'web' };
const podTemplate = { metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } };

/** `2024-01-01T00:00:00.000000Z` as Protobuf reads it back: `2024-01-01T00:00:00Z`. */
function canonicalTimes(value: Json): Json {
  if (typeof value === 'string') return value.replace(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.0+Z$/, '$1Z');
  if (Array.isArray(value)) return value.map(canonicalTimes);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonicalTimes(v)]));
  return value;
}

describe('the catalogue of built-in kinds', () => {
  let h: Harness;
  let ns: (group: string, plural: string) => string;
  beforeAll(async () => {
    h = await startServer({ server: { protobufPackages: allProtobufPackages } });
    ns = (group, plural) => `${group === '' ? '/api/v1' : `/apis/${group}`}/namespaces/${h.ns}/${plural}`;
  });
  afterAll(() => h.close());

  it("fills a Deployment's upstream defaults (replicas, strategy, revisionHistoryLimit, progressDeadlineSeconds, pod defaults) and tracks generation", async () => {
    const d = await h.create(ns('apps/v1', 'deployments'), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: labels }, template: podTemplate },
    });
    expect(d.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    });
    expect(d.spec.template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' });
    expect(d.metadata.generation).toBe(1);
    expect(d.status).toEqual({}); // a non-pointer struct upstream: always written
    const recreate = await h.create(ns('apps/v1', 'deployments'), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'recreate' },
      spec: { selector: { matchLabels: labels }, template: podTemplate, strategy: { type: 'Recreate' } },
    });
    expect(recreate.spec.strategy).toEqual({ type: 'Recreate' });
  });

  it("refuses a Deployment whose selector does not match its template's labels, with upstream's message", async () => {
    const res = await h.post(ns('apps/v1', 'deployments'), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'bad' },
      spec: { selector: { matchLabels: { app: 'other' } }, template: podTemplate },
    });
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.message).toContain('spec.template.metadata.labels');
    expect(status.message).toContain('`selector` does not match template `labels`');
    const rollingOnRecreate = await h.post(ns('apps/v1', 'deployments'), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'bad2' },
      spec: { selector: { matchLabels: labels }, template: podTemplate, strategy: { type: 'Recreate', rollingUpdate: {} } },
    });
    expect(expectStatus(rollingOnRecreate, 422, 'Invalid').message).toContain(
      'spec.strategy.rollingUpdate: Invalid value: "object": may not be specified when strategy `type` is \'Recreate\'',
    );
    expectStatus(await h.get(`${ns('apps/v1', 'deployments')}/bad`), 404, 'NotFound');
  });

  it('keeps an apps/v1 selector immutable, as upstream', async () => {
    const d = await h.create(ns('apps/v1', 'deployments'), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'fixed' },
      spec: { selector: { matchLabels: labels }, template: podTemplate },
    });
    const moved = await h.put(`${ns('apps/v1', 'deployments')}/fixed`, {
      ...d,
      spec: {
        ...d.spec,
        selector: { matchLabels: { app: 'web', tier: 'x' } },
        template: { ...podTemplate, metadata: { labels: { app: 'web', tier: 'x' } } },
      },
    });
    expect(expectStatus(moved, 422, 'Invalid').message).toContain('spec.selector: Invalid value: "object": field is immutable');
    const scaled = await h.put(`${ns('apps/v1', 'deployments')}/fixed`, { ...d, spec: { ...d.spec, replicas: 3 } });
    expect(scaled.status).toBe(200);
  });

  it('fills the defaults of ReplicaSet, StatefulSet and DaemonSet as upstream', async () => {
    const rs = await h.create(ns('apps/v1', 'replicasets'), {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-rs' },
      spec: { selector: { matchLabels: labels }, template: podTemplate },
    });
    expect(rs.spec.replicas).toBe(1);
    const sts = await h.create(ns('apps/v1', 'statefulsets'), {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: {
        serviceName: 'db',
        selector: { matchLabels: labels },
        template: podTemplate,
        volumeClaimTemplates: [
          { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
        ],
      },
    });
    expect(sts.spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      revisionHistoryLimit: 10,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    });
    expect(sts.spec.volumeClaimTemplates[0].spec.volumeMode).toBe('Filesystem');
    const ds = await h.create(ns('apps/v1', 'daemonsets'), {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: { selector: { matchLabels: labels }, template: podTemplate },
    });
    expect(ds.spec).toMatchObject({
      revisionHistoryLimit: 10,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
    });
    const cr = await h.create(ns('apps/v1', 'controllerrevisions'), {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'db-1' },
      data: { spec: { template: podTemplate } },
      revision: 1,
    });
    expect(cr.data.spec.template.spec.containers[0].image).toBe('nginx:1.25');
  });

  it('serves a Lease for leader election, updated with a conditional write as client-go does', async () => {
    const leases = ns('coordination.svc.io/v1', 'leases');
    const lease = await h.create(leases, {
      apiVersion: 'coordination.svc.io/v1',
      kind: 'Lease',
      metadata: { name: 'controller-leader' },
      spec: {
        holderIdentity: 'pod-a',
        leaseDurationSeconds: 15,
        acquireTime: '2024-01-01T00:00:00.000000Z',
        renewTime: '2024-01-01T00:00:05.000000Z',
        leaseTransitions: 0,
      },
    });
    expect(lease.spec.holderIdentity).toBe('pod-a');
    const renewed = await h.put(`${leases}/controller-leader`, {
      ...lease,
      spec: { ...lease.spec, renewTime: '2024-01-01T00:00:10.000000Z' },
    });
    expect(renewed.status).toBe(200);
    // A second candidate holding the old resourceVersion loses the race.
    const stale = await h.put(`${leases}/controller-leader`, { ...lease, spec: { ...lease.spec, holderIdentity: 'pod-b' } });
    expectStatus(stale, 409, 'Conflict');
  });

  it('serves the core kinds a controller touches, with their defaults', async () => {
    const sa = await h.create(ns('', 'serviceaccounts'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } });
    expect(sa.metadata.name).toBe('builder');
    const ep = await h.create(ns('', 'endpoints'), {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'web' },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }],
    });
    expect(ep.subsets[0].ports[0].protocol).toBe('TCP');
    const pvc = await h.create(ns('', 'persistentvolumeclaims'), {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    expect(pvc.spec.volumeMode).toBe('Filesystem');
    const noSize = await h.post(ns('', 'persistentvolumeclaims'), {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'nosize' },
      spec: { accessModes: ['ReadWriteOnce'] },
    });
    expectStatus(noSize, 422, 'Invalid');
    const pv = await h.create('/api/v1/persistentvolumes', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv1' },
      spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
    });
    expect(pv.spec).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', hostPath: { path: '/data' } });
    await h.create(ns('', 'resourcequotas'), {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { pods: '10', 'requests.cpu': '4' } },
    });
    await h.create(ns('', 'limitranges'), {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'lr' },
      spec: { limits: [{ type: 'Container', default: { cpu: '500m' } }] },
    });
    const rc = await h.create(ns('', 'replicationcontrollers'), {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'old' },
      spec: { selector: labels, template: podTemplate },
    });
    expect(rc.spec.replicas).toBe(1);
    expect(rc.metadata.generation).toBe(1);
  });

  it('serves policy, networking, scheduling, storage and certificates kinds with their defaults and rules', async () => {
    await h.create(ns('policy/v1', 'poddisruptionbudgets'), {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web' },
      spec: { minAvailable: 1, selector: { matchLabels: labels } },
    });
    const both = await h.post(ns('policy/v1', 'poddisruptionbudgets'), {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'both' },
      spec: { minAvailable: 1, maxUnavailable: '50%' },
    });
    expect(expectStatus(both, 422, 'Invalid').message).toContain('minAvailable and maxUnavailable cannot be both set');
    const ing = await h.create(ns('networking.svc.io/v1', 'ingresses'), {
      apiVersion: 'networking.svc.io/v1',
      kind: 'Ingress',
      metadata: { name: 'web' },
      spec: {
        ingressClassName: 'nginx',
        rules: [
          {
            host: 'example.com',
            http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] },
          },
        ],
      },
    });
    expect(ing.spec.rules[0].http.paths[0].backend.service.port.number).toBe(80);
    await h.create('/apis/networking.svc.io/v1/ingressclasses', {
      apiVersion: 'networking.svc.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'nginx' },
      spec: { controller: 'svc.io/ingress-nginx' },
    });
    const np = await h.create(ns('networking.svc.io/v1', 'networkpolicies'), {
      apiVersion: 'networking.svc.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'deny' },
      spec: { ingress: [{ ports: [{ port: 80 }] }] },
    });
    expect(np.spec.podSelector).toEqual({});
    expect(np.spec.ingress[0].ports[0].protocol).toBe('TCP');
    const pc = await h.create('/apis/scheduling.svc.io/v1/priorityclasses', {
      apiVersion: 'scheduling.svc.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'high' },
      value: 1000,
    });
    expect(pc.preemptionPolicy).toBe('PreemptLowerPriority');
    const sc = await h.create('/apis/storage.svc.io/v1/storageclasses', {
      apiVersion: 'storage.svc.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'standard' },
      provisioner: 'svc.io/host-path',
    });
    expect(sc).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    const csi = await h.create('/apis/storage.svc.io/v1/csidrivers', {
      apiVersion: 'storage.svc.io/v1',
      kind: 'CSIDriver',
      metadata: { name: 'hostpath.csi.svc.io' },
      spec: {},
    });
    expect(csi.spec).toMatchObject({ attachRequired: true, podInfoOnMount: false, volumeLifecycleModes: ['Persistent'] });
    const csr = await h.create('/apis/certificates.svc.io/v1/certificatesigningrequests', {
      apiVersion: 'certificates.svc.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'user' },
      spec: {
        request: Buffer.from('-----BEGIN CERTIFICATE REQUEST-----').toString('base64'),
        signerName: 'svc.io/kube-apiserver-client',
        usages: ['client auth'],
      },
    });
    expect(csr.spec.signerName).toBe('svc.io/kube-apiserver-client');
  });

  it('serves events.svc.io/v1 Events as the same objects as core v1 Events, renamed as upstream', async () => {
    const created = await h.create(ns('events.svc.io/v1', 'events'), {
      apiVersion: 'events.svc.io/v1',
      kind: 'Event',
      metadata: { name: 'web.1' },
      eventTime: '2024-01-01T00:00:00.000000Z',
      reportingController: 'svc.io/deployment-controller',
      reportingInstance: 'controller-1',
      action: 'Scaling',
      reason: 'ScalingReplicaSet',
      type: 'Normal',
      note: 'Scaled up replica set web-1 to 3',
      regarding: { kind: 'Deployment', name: 'web', namespace: h.ns, apiVersion: 'apps/v1' },
    });
    expect(created).toMatchObject({ apiVersion: 'events.svc.io/v1', note: 'Scaled up replica set web-1 to 3' });
    const core = await h.read(`${ns('', 'events')}/web.1`);
    expect(core).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      message: 'Scaled up replica set web-1 to 3',
      involvedObject: { kind: 'Deployment', name: 'web' },
      reportingComponent: 'svc.io/deployment-controller',
      reason: 'ScalingReplicaSet',
    });
    expect(core.note).toBeUndefined();
    expect(core.metadata.uid).toBe(created.metadata.uid);
    // And back: an Event written in the core shape reads in the events shape.
    await h.create(ns('', 'events'), {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web.2' },
      involvedObject: { kind: 'Pod', name: 'web-1', namespace: h.ns },
      reason: 'Pulled',
      message: 'Container image pulled',
      source: { component: 'kubelet' },
      count: 2,
      type: 'Normal',
    });
    const events = (await h.get(ns('events.svc.io/v1', 'events'))).body;
    expect(events.items.map((e: Json) => e.metadata.name).sort()).toEqual(['web.1', 'web.2']);
    const pulled = events.items.find((e: Json) => e.metadata.name === 'web.2');
    expect(pulled).toMatchObject({
      apiVersion: 'events.svc.io/v1',
      note: 'Container image pulled',
      regarding: { kind: 'Pod', name: 'web-1' },
      deprecatedSource: { component: 'kubelet' },
      deprecatedCount: 2,
    });
    expect(pulled.message).toBeUndefined();
  });

  it('lists workloads in the `all` category in discovery', async () => {
    const apps = (await h.get('/apis/apps/v1')).body;
    const byName = Object.fromEntries(apps.resources.map((r: Json) => [r.name, r]));
    for (const name of ['deployments', 'replicasets', 'statefulsets', 'daemonsets']) expect(byName[name].categories).toEqual(['all']);
    expect(byName['deployments/scale']).toMatchObject({
      kind: 'Scale',
      group: 'autoscaling',
      version: 'v1',
      verbs: ['get', 'patch', 'update'],
    });
    expect(byName.deployments.shortNames).toEqual(['deploy']);
  });

  it('round-trips a Deployment through Protobuf with upstream field numbers', async () => {
    const GENERATED = new URL('../../generated/', import.meta.url).pathname;
    const proto = readFileSync(join(GENERATED, 'apps/v1/generated.proto'), 'utf8');
    // Upstream's numbers (k8s.io/api v0.30 apps/v1 generated.proto), spot-checked.
    expect(proto).toMatch(/int32 progressDeadlineSeconds = 9;/);
    expect(proto).toMatch(/StatefulSetOrdinals ordinals = 11;/);
    expect(proto).toMatch(/int64 revision = 3;/);
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => join(GENERATED, target);
    root.loadSync('apps/v1/generated.proto', { keepCase: true });
    root.resolveAll();
    const Unknown = root.lookupType('svc.io.api.meta.v1.Unknown');
    const Deployment = root.lookupType('svc.io.api.apps.v1.Deployment');
    const wanted = {
      metadata: { name: 'proto' },
      spec: { replicas: 3, selector: { matchLabels: labels }, template: podTemplate, minReadySeconds: 5 },
    };
    const raw = Deployment.encode(Deployment.fromObject(wanted)).finish();
    const envelope = Unknown.encode(Unknown.fromObject({ typeMeta: { apiVersion: 'apps/v1', kind: 'Deployment' }, raw })).finish();
    const body = Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), envelope]);
    const res = await fetch(`${h.url}${ns('apps/v1', 'deployments')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.svc.protobuf', accept: 'application/vnd.svc.protobuf' },
      body,
    });
    expect(res.status).toBe(201);
    const bytes = Buffer.from(await res.arrayBuffer());
    const reply = Unknown.toObject(Unknown.decode(bytes.subarray(4)), { bytes: Buffer }) as { raw: Buffer };
    const created = Deployment.toObject(Deployment.decode(reply.raw), { longs: Number }) as Json;
    expect(created.spec).toMatchObject({ replicas: 3, minReadySeconds: 5, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
    expect(created.spec.strategy.rollingUpdate.maxSurge).toBeDefined();
    const json = await h.read(`${ns('apps/v1', 'deployments')}/proto`);
    expect(json.spec.template.spec.containers[0].image).toBe('nginx:1.25');
    expect(json.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: '25%', maxSurge: '25%' });
  });

  it('reads every object of the new kinds back from Protobuf as from JSON', async () => {
    const codecs = new ProtobufCodecs(allProtobufPackages);
    const collections = [
      ns('apps/v1', 'deployments'),
      ns('apps/v1', 'replicasets'),
      ns('apps/v1', 'statefulsets'),
      ns('apps/v1', 'daemonsets'),
      ns('apps/v1', 'controllerrevisions'),
      ns('coordination.svc.io/v1', 'leases'),
      ns('', 'serviceaccounts'),
      ns('', 'endpoints'),
      ns('', 'persistentvolumeclaims'),
      '/api/v1/persistentvolumes',
      ns('', 'resourcequotas'),
      ns('', 'limitranges'),
      ns('', 'replicationcontrollers'),
      ns('policy/v1', 'poddisruptionbudgets'),
      ns('networking.svc.io/v1', 'ingresses'),
      '/apis/networking.svc.io/v1/ingressclasses',
      ns('networking.svc.io/v1', 'networkpolicies'),
      '/apis/scheduling.svc.io/v1/priorityclasses',
      '/apis/storage.svc.io/v1/storageclasses',
      '/apis/storage.svc.io/v1/csidrivers',
      '/apis/certificates.svc.io/v1/certificatesigningrequests',
      ns('events.svc.io/v1', 'events'),
    ];
    let objects = 0;
    for (const collection of collections) {
      const list = (await h.get(collection)).body;
      expect(list.items.length, collection).toBeGreaterThan(0);
      for (const item of list.items) {
        const res = await fetch(`${h.url}${collection}/${item.metadata.name}`, { headers: { accept: 'application/vnd.svc.protobuf' } });
        expect(res.headers.get('content-type'), collection).toBe('application/vnd.svc.protobuf');
        const decoded = codecs.decode(new Uint8Array(await res.arrayBuffer()));
        const { managedFields: _m, ...metadata } = item.metadata;
        const { managedFields: _d, ...decodedMetadata } = decoded.metadata as Json;
        // Protobuf keeps a time's instant, in canonical form (a zero fraction dropped; docs/decisions.md).
        const expected = canonicalTimes({ ...item, apiVersion: list.apiVersion, kind: list.kind.replace(/List$/, ''), metadata });
        expect({ ...decoded, metadata: decodedMetadata }, `${collection}/${item.metadata.name}`).toEqual(expected);
        objects++;
      }
    }
    expect(objects).toBeGreaterThan(20);
  });
});
