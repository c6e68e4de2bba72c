/**
 * What a 1.30 kube-apiserver with no nodes fills in created objects (issue 23): Pod defaults,
 * status and the mutating admission plugins' fields; Service cluster IPs; Job selectors and
 * labels; the namespace name label; deprecated fields kept.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, type Json, NAMESPACES, service, serviceBody, services, startServer } from './server.testing.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(() => h.close());

const pods = () => `/api/v1/namespaces/${h.ns}/pods`;
const jobs = () => `/apis/batch/v1/namespaces/${h.ns}/jobs`;

function pod(name: string, spec: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

describe('a created Pod', () => {
  it('has the defaults, status and admission fields of a real server', async () => {
    const p = await h.create(pods(), pod('p'));
    expect(p.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    const volume = p.spec.volumes[0].name as string;
    expect(volume).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(p.spec).toEqual({
      containers: [
        {
          name: 'c',
          image: 'nginx',
          imagePullPolicy: 'Always',
          resources: {},
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          volumeMounts: [{ name: volume, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
        },
      ],
      volumes: [
        {
          name: volume,
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
            ],
          },
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      serviceAccount: 'default',
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    });
  });

  it('pulls a tagged image IfNotPresent, and is Guaranteed or Burstable by its resources', async () => {
    const limits = { cpu: '100m', memory: '64Mi' };
    const guaranteed = await h.create(pods(), pod('g', { containers: [{ name: 'c', image: 'nginx:1.25', resources: { limits } }] }));
    expect(guaranteed.spec.containers[0].imagePullPolicy).toBe('IfNotPresent');
    expect(guaranteed.spec.containers[0].resources).toEqual({ limits, requests: limits });
    expect(guaranteed.status.qosClass).toBe('Guaranteed');
    const burstable = await h.create(
      pods(),
      pod('b', { containers: [{ name: 'c', image: 'nginx:latest', resources: { requests: { cpu: '1' } } }] }),
    );
    expect(burstable.spec.containers[0].imagePullPolicy).toBe('Always');
    expect(burstable.status.qosClass).toBe('Burstable');
  });

  it('keeps the deprecated serviceAccount in step with serviceAccountName, and mounts nothing when automount is off', async () => {
    await h.create(`/api/v1/namespaces/${h.ns}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'builder' },
    });
    const p = await h.create(pods(), pod('sa', { serviceAccount: 'builder', automountServiceAccountToken: false }));
    expect(p.spec).toMatchObject({ serviceAccountName: 'builder', serviceAccount: 'builder' });
    expect(p.spec.volumes).toBeUndefined();
  });

  it('takes its priority from its PriorityClass, and is refused one that does not exist', async () => {
    await h.create('/apis/scheduling.svc.io/v1/priorityclasses', {
      apiVersion: 'scheduling.svc.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'high' },
      value: 1000,
      preemptionPolicy: 'Never',
    });
    const p = await h.create(pods(), pod('hi', { priorityClassName: 'high' }));
    expect(p.spec).toMatchObject({ priority: 1000, preemptionPolicy: 'Never' });
    const missing = await h.post(pods(), pod('lo', { priorityClassName: 'nope' }));
    expect(missing.status).toBe(403);
    expect(missing.body.message).toBe('pods "lo" is forbidden: no PriorityClass with name nope was found');
  });
});

describe('a created Service', () => {
  it('gets a free cluster IP of 10.96.0.0/12, IPv4 single stack, and an empty load-balancer status', async () => {
    const s = await h.create(services(h.ns), serviceBody('a'));
    expect(s.spec.clusterIP).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    expect(s.spec.clusterIPs).toEqual([s.spec.clusterIP]);
    expect(s.spec).toMatchObject({
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
      sessionAffinity: 'None',
      type: 'ClusterIP',
    });
    expect(s.spec.ports[0].targetPort).toBe(s.spec.ports[0].port);
    expect(s.status).toEqual({ loadBalancer: {} });
  });

  it('keeps an address it asks for unless taken or outside the range; a deleted service frees its address', async () => {
    const a = await h.create(services(h.ns), serviceBody('a', { spec: { clusterIP: '10.96.5.5' } }));
    expect(a.spec.clusterIPs).toEqual(['10.96.5.5']);
    const taken = await h.post(services(h.ns), serviceBody('b', { spec: { clusterIP: '10.96.5.5' } }));
    expect(taken.status).toBe(422);
    expect(taken.body.details.causes[0]).toMatchObject({
      field: 'spec.clusterIPs[0]',
      message: expect.stringContaining('provided IP is already allocated'),
    });
    const outside = await h.post(services(h.ns), serviceBody('c', { spec: { clusterIP: '192.168.0.1' } }));
    expect(outside.status).toBe(422);
    expect(outside.body.details.causes[0].message).toContain('The range of valid IPs is 10.96.0.0/12');
    expect((await h.delete(service(h.ns, 'a'))).status).toBe(200);
    expect((await h.create(services(h.ns), serviceBody('b', { spec: { clusterIP: '10.96.5.5' } }))).spec.clusterIP).toBe('10.96.5.5');
  });

  it('is headless with None, has no address as ExternalName, and keeps its address through an update that omits it', async () => {
    const headless = await h.create(services(h.ns), serviceBody('h', { spec: { clusterIP: 'None' } }));
    expect(headless.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'] });
    const external = await h.create(services(h.ns), {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'e' },
      spec: { type: 'ExternalName', externalName: 'example.com' },
    });
    expect(external.spec.clusterIP).toBeUndefined();
    expect(external.spec.ipFamilies).toBeUndefined();
    const a = await h.create(services(h.ns), serviceBody('a'));
    const { clusterIP: _ip, clusterIPs: _ips, ...spec } = a.spec;
    const put = await h.put(service(h.ns, 'a'), { ...a, spec });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.spec.clusterIPs).toEqual(a.spec.clusterIPs);
  });

  it('as NodePort or LoadBalancer gets a free node port of 30000-32767 per port; one it asks for is kept unless taken or outside', async () => {
    const twoPorts = (name: string, type: string, extra: Json = {}) =>
      serviceBody(name, {
        spec: {
          type,
          ports: [
            { name: 'http', port: 80, ...extra },
            { name: 'https', port: 443 },
          ],
        },
      });
    const np = await h.create(services(h.ns), twoPorts('np', 'NodePort', { nodePort: 31000 }));
    expect(np.spec.ports[0].nodePort).toBe(31000);
    expect(np.spec.ports[1].nodePort).toBeGreaterThanOrEqual(30000);
    expect(np.spec.ports[1].nodePort).toBeLessThanOrEqual(32767);
    const lb = await h.create(services(h.ns), twoPorts('lb', 'LoadBalancer'));
    expect(lb.spec.ports.map((p: Json) => typeof p.nodePort)).toEqual(['number', 'number']);
    const none = await h.create(
      services(h.ns),
      serviceBody('lb-none', { spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false } }),
    );
    expect(none.spec.ports[0].nodePort).toBeUndefined();
    const taken = await h.post(services(h.ns), twoPorts('taken', 'NodePort', { nodePort: 31000 }));
    expect(taken.status).toBe(422);
    expect(taken.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.ports[0].nodePort', message: 'Invalid value: 31000: provided port is already allocated' },
    ]);
    const outside = await h.post(services(h.ns), twoPorts('outside', 'NodePort', { nodePort: 8080 }));
    expect(outside.body.details.causes[0].message).toBe(
      'Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    // An update that leaves the node ports out keeps them, port by port.
    const { ports } = np.spec;
    const put = await h.put(service(h.ns, 'np'), { ...np, spec: { ...np.spec, ports: ports.map(({ nodePort: _, ...p }: Json) => p) } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.spec.ports.map((p: Json) => p.nodePort)).toEqual(ports.map((p: Json) => p.nodePort));
    // A deleted service frees its node ports.
    expect((await h.delete(service(h.ns, 'np'))).status).toBe(200);
    expect((await h.create(services(h.ns), twoPorts('again', 'NodePort', { nodePort: 31000 }))).spec.ports[0].nodePort).toBe(31000);
  });

  it('keeps the deprecated loadBalancerIP', async () => {
    const s = await h.create(services(h.ns), serviceBody('lb', { spec: { type: 'LoadBalancer', loadBalancerIP: '1.2.3.4' } }));
    expect(s.spec).toMatchObject({ loadBalancerIP: '1.2.3.4', externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true });
  });
});

describe('a created Job', () => {
  it('selects its pods by its uid, labels its template (legacy and batch.kubernetes.io forms), and has the 1.30 defaults', async () => {
    const j = await h.create(jobs(), {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } },
    });
    const uid = j.metadata.uid;
    const labels = {
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'j',
      'controller-uid': uid,
      'job-name': 'j',
    };
    expect(j.spec.selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    expect(j.spec.template.metadata.labels).toEqual(labels);
    expect(j.metadata.labels).toEqual(labels);
    expect(j.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
    });
  });
});

describe('namespaces', () => {
  it('carry their name as the kubernetes.io/metadata.name label, whatever a write says', async () => {
    const ns = await h.createNamespace('labelled');
    expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'labelled' });
    const put = await h.put(`${NAMESPACES}/labelled`, {
      ...ns,
      metadata: { ...ns.metadata, labels: { 'kubernetes.io/metadata.name': 'other', a: 'b' } },
    });
    expect(put.body.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'labelled', a: 'b' });
  });
});

describe('deprecated core/v1 fields of 1.30', () => {
  it('are kept: Node spec.externalID', async () => {
    const node = await h.create('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n' },
      spec: { externalID: 'i-123' },
    });
    expect(node.spec.externalID).toBe('i-123');
  });
});

describe('a status that is a non-pointer struct upstream', () => {
  const labels = { app: 'web' };
  const template = { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const job = { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } };
  // Go writes a struct even empty, and the zero of a field that is not omitempty.
  it.each([
    ['/apis/apps/v1', 'deployments', { kind: 'Deployment', spec: { selector: { matchLabels: labels }, template } }, {}],
    ['/apis/apps/v1', 'replicasets', { kind: 'ReplicaSet', spec: { selector: { matchLabels: labels }, template } }, { replicas: 0 }],
    [
      '/apis/apps/v1',
      'statefulsets',
      { kind: 'StatefulSet', spec: { selector: { matchLabels: labels }, template } },
      { replicas: 0, availableReplicas: 0 },
    ],
    [
      '/apis/apps/v1',
      'daemonsets',
      { kind: 'DaemonSet', spec: { selector: { matchLabels: labels }, template } },
      { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    ],
    ['/apis/batch/v1', 'jobs', { kind: 'Job', spec: job }, {}],
    ['/apis/batch/v1', 'cronjobs', { kind: 'CronJob', spec: { schedule: '* * * * *', jobTemplate: { spec: job } } }, {}],
    ['/api/v1', 'replicationcontrollers', { kind: 'ReplicationController', spec: { selector: labels, template } }, { replicas: 0 }],
    [
      '/apis/policy/v1',
      'poddisruptionbudgets',
      { kind: 'PodDisruptionBudget', spec: { minAvailable: 1 } },
      { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    ],
    ['/api/v1', 'resourcequotas', { kind: 'ResourceQuota', spec: {} }, {}],
  ])('is written when empty, as Go encodes it (%s %s)', async (prefix, plural, body, status) => {
    const path = `${prefix}/namespaces/${h.ns}/${plural}`;
    const apiVersion = prefix === '/api/v1' ? 'v1' : prefix.slice('/apis/'.length);
    const created = await h.create(path, { apiVersion, metadata: { name: 'x' }, ...body });
    expect(created.status).toEqual(status);
    expect((await h.read(`${path}/x`)).status).toEqual(status);
  });
});
