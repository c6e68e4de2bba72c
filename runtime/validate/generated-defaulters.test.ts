import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { type KindRegistration, type SchemaNode, defaulterOf, deref } from '../schema/index.js';

/**
 * The generated defaulters of the built-in kinds, driven through `allKinds[].setDefaults`: the
 * defaults the spec states, the zero-is-unset rule where the schema has it (and not elsewhere),
 * defaults inside lists and inside defaulted objects, and defaulted literals never shared.
 */

function kind(apiVersion: string, name: string): KindRegistration {
  const k = allKinds.find((r) => r.apiVersion === apiVersion && r.kind === name);
  if (!k) throw new Error(`no kind ${apiVersion} ${name} in allKinds`);
  return k;
}

/** `doc` after its kind's defaulter ran on it (in place). */
function defaulted<T>(apiVersion: string, name: string, doc: T): T {
  defaulterOf(kind(apiVersion, name).schema)(doc);
  return doc;
}

const SCHEDULER = 'svcscheduler.config.svc.io/v1';

describe('generated defaulters: the defaults the spec states', () => {
  it('scheduler: parallelism 16, backoff 1s initial and 10s maximum', () => {
    const doc = defaulted(SCHEDULER, 'SvcSchedulerConfiguration', { kind: 'SvcSchedulerConfiguration' });
    expect(doc).toEqual({
      kind: 'SvcSchedulerConfiguration',
      parallelism: 16,
      podInitialBackoffSeconds: 1,
      podMaxBackoffSeconds: 10,
      delayCacheUntilActive: false,
    });
  });

  it('scheduler: values that are set are kept', () => {
    const doc = defaulted(SCHEDULER, 'SvcSchedulerConfiguration', {
      parallelism: 4,
      podInitialBackoffSeconds: 2,
      podMaxBackoffSeconds: 30,
      delayCacheUntilActive: true,
    });
    expect(doc).toEqual({ parallelism: 4, podInitialBackoffSeconds: 2, podMaxBackoffSeconds: 30, delayCacheUntilActive: true });
  });

  it('scheduler: leader election defaults inside the embedded configuration', () => {
    // A zero duration ('0s', as Go writes it) means unset here; so does an absent one.
    const doc = defaulted(SCHEDULER, 'SvcSchedulerConfiguration', { leaderElection: { leaderElect: true, leaseDuration: '0s' } });
    expect(doc.leaderElection).toEqual({
      leaderElect: true,
      leaseDuration: '15s',
      renewDeadline: '10s',
      retryPeriod: '2s',
      resourceLock: 'leases',
    });
  });

  it('VolumeBindingArgs: bindTimeoutSeconds 600, and an explicit 0 (no waiting) stays', () => {
    expect(defaulted(SCHEDULER, 'VolumeBindingArgs', {})).toEqual({ bindTimeoutSeconds: 600 });
    expect(defaulted(SCHEDULER, 'VolumeBindingArgs', { bindTimeoutSeconds: 0 })).toEqual({ bindTimeoutSeconds: 0 });
  });

  it('DefaultPreemptionArgs: 10 percent and 100 absolute; explicit zeros stay', () => {
    expect(defaulted(SCHEDULER, 'DefaultPreemptionArgs', {})).toEqual({ minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
    expect(defaulted(SCHEDULER, 'DefaultPreemptionArgs', { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0 })).toEqual({
      minCandidateNodesPercentage: 0,
      minCandidateNodesAbsolute: 0,
    });
  });

  it('NodeResourcesFitArgs: the LeastAllocated strategy over cpu and memory, weights defaulted inside it', () => {
    expect(defaulted(SCHEDULER, 'NodeResourcesFitArgs', {})).toEqual({
      scoringStrategy: {
        type: 'LeastAllocated',
        resources: [
          { name: 'cpu', weight: 1 },
          { name: 'memory', weight: 1 },
        ],
      },
    });
    // A weight of 0 means unset here (the schema says so), inside a list inside an object.
    const doc = defaulted(SCHEDULER, 'NodeResourcesFitArgs', {
      scoringStrategy: { type: 'MostAllocated', resources: [{ name: 'cpu', weight: 0 }, { name: 'gpu', weight: 5 }, { name: 'disk' }] },
    });
    expect(doc.scoringStrategy).toEqual({
      type: 'MostAllocated',
      resources: [
        { name: 'cpu', weight: 1 },
        { name: 'gpu', weight: 5 },
        { name: 'disk', weight: 1 },
      ],
    });
  });

  it('PodTopologySpreadArgs: defaultingType System', () => {
    expect(defaulted(SCHEDULER, 'PodTopologySpreadArgs', {})).toEqual({ defaultingType: 'System' });
    expect(defaulted(SCHEDULER, 'PodTopologySpreadArgs', { defaultingType: 'List' })).toEqual({ defaultingType: 'List' });
  });

  it('event rate limit: cacheSize 4096 in every limit (0 means unset for this field)', () => {
    const doc = defaulted('eventratelimit.admission.svc.io/v1alpha1', 'Configuration', {
      limits: [
        { type: 'Namespace', qps: 5, burst: 10 },
        { type: 'User', qps: 5, burst: 10, cacheSize: 0 },
        { type: 'SourceAndObject', qps: 5, burst: 10, cacheSize: 100 },
      ],
    });
    expect(doc.limits.map((l) => l.cacheSize)).toEqual([4096, 4096, 100]);
  });

  // cachesize 1000 is a v1-only default, which the schema format cannot state: svckit validate
  // applies it (runtime/documents/conditional-defaults.ts), the generated defaulter does not.
  it('KMS: timeout 3s, no unconditional cachesize; a negative cachesize (disabled) stays', () => {
    const doc = defaulted('apiserver.config.svc.io/v1', 'EncryptionConfiguration', {
      resources: [
        {
          resources: ['secrets'],
          providers: [
            { kms: { name: 'vault', endpoint: 'unix:///kms.sock' } },
            { kms: { name: 'off', endpoint: 'unix:///off.sock', cachesize: -1, timeout: '10s' } },
            { identity: {} },
          ],
        },
      ],
    });
    expect(doc.resources[0]!.providers).toEqual([
      { kms: { name: 'vault', endpoint: 'unix:///kms.sock', apiVersion: 'v1', timeout: '3s' } },
      { kms: { name: 'off', endpoint: 'unix:///off.sock', cachesize: -1, timeout: '10s', apiVersion: 'v1' } },
      { identity: {} },
    ]);
  });

  it.each(['InitConfiguration', 'JoinConfiguration'])('svcadm %s: imagePullPolicy IfNotPresent, also for an empty value', (name) => {
    expect(defaulted('svcadm.svc.io/v1beta3', name, { nodeRegistration: {} })).toEqual({
      nodeRegistration: { imagePullPolicy: 'IfNotPresent' },
    });
    expect(defaulted('svcadm.svc.io/v1beta3', name, { nodeRegistration: { imagePullPolicy: '' } })).toEqual({
      nodeRegistration: { imagePullPolicy: 'IfNotPresent' },
    });
    expect(defaulted('svcadm.svc.io/v1beta3', name, { nodeRegistration: { imagePullPolicy: 'Always' } })).toEqual({
      nodeRegistration: { imagePullPolicy: 'Always' },
    });
    // An absent object is not created to hold a default.
    expect(defaulted('svcadm.svc.io/v1beta3', name, {})).toEqual({});
  });

  it.each(['CreateOptions', 'PatchOptions', 'UpdateOptions'])('%s: fieldValidation Warn', (name) => {
    expect(defaulted('meta.svc.io/v1', name, {})).toEqual({ fieldValidation: 'Warn' });
    expect(defaulted('meta.svc.io/v1', name, { fieldValidation: 'Strict' })).toEqual({ fieldValidation: 'Strict' });
  });

  it.each(['DeleteOptions', 'GetOptions', 'ListOptions'])('%s has no fieldValidation to default', (name) => {
    expect(defaulted('meta.svc.io/v1', name, {})).toEqual({});
  });
});

describe('generated defaulters: flow control', () => {
  const FC = 'flowcontrol.apiserver.svc.io';
  const limited = (shares?: number) => ({
    spec: {
      type: 'Limited',
      limited: { ...(shares === undefined ? {} : { nominalConcurrencyShares: shares }), limitResponse: { type: 'Queue', queuing: {} } },
    },
  });

  it('v1: nominalConcurrencyShares 30 when unspecified, an explicit 0 stays 0', () => {
    expect(defaulted(`${FC}/v1`, 'PriorityLevelConfiguration', limited()).spec.limited.nominalConcurrencyShares).toBe(30);
    expect(defaulted(`${FC}/v1`, 'PriorityLevelConfiguration', limited(0)).spec.limited.nominalConcurrencyShares).toBe(0);
    expect(defaulted(`${FC}/v1`, 'PriorityLevelConfiguration', limited(7)).spec.limited.nominalConcurrencyShares).toBe(7);
  });

  it('v1beta3: an explicit 0 becomes 30 too', () => {
    expect(defaulted(`${FC}/v1beta3`, 'PriorityLevelConfiguration', limited()).spec.limited.nominalConcurrencyShares).toBe(30);
    expect(defaulted(`${FC}/v1beta3`, 'PriorityLevelConfiguration', limited(0)).spec.limited.nominalConcurrencyShares).toBe(30);
    expect(defaulted(`${FC}/v1beta3`, 'PriorityLevelConfiguration', limited(7)).spec.limited.nominalConcurrencyShares).toBe(7);
  });

  it('queuing defaults below the limit response, lendablePercent 0', () => {
    const doc = defaulted(`${FC}/v1`, 'PriorityLevelConfiguration', limited());
    expect(doc.spec.limited).toEqual({
      nominalConcurrencyShares: 30,
      lendablePercent: 0,
      limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
    });
  });

  it('exempt levels default nominalConcurrencyShares to 0', () => {
    const doc = defaulted(`${FC}/v1`, 'PriorityLevelConfiguration', { spec: { type: 'Exempt', exempt: {} } });
    expect(doc.spec.exempt).toEqual({ nominalConcurrencyShares: 0, lendablePercent: 0 });
  });

  it('FlowSchema matchingPrecedence 1000, for an absent or zero value, in every item of a list', () => {
    const doc = defaulted(`${FC}/v1`, 'FlowSchemaList', {
      items: [{ spec: {} }, { spec: { matchingPrecedence: 0 } }, { spec: { matchingPrecedence: 500 } }],
    });
    expect(doc.items.map((i) => (i.spec as { matchingPrecedence?: number }).matchingPrecedence)).toEqual([1000, 1000, 500]);
  });
});

describe('generated defaulters: Pod, nested lists and objects', () => {
  const pod = () => ({
    spec: {
      containers: [
        {
          name: 'web',
          ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }, { containerPort: 8080, protocol: '' }],
          env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          livenessProbe: { httpGet: { port: 80 }, timeoutSeconds: 0, periodSeconds: 5 },
        },
      ],
      initContainers: [{ name: 'init', ports: [{ containerPort: 9000 }] }],
      volumes: [
        { name: 'a', configMap: { name: 'cm' } },
        { name: 'b', secret: { secretName: 's', defaultMode: 256 } },
      ],
      restartPolicy: '',
    },
  });

  it('fills the PodSpec, containers, ports, probes, env sources and volumes', () => {
    const doc = defaulted('v1', 'Pod', pod());
    expect(doc).toEqual({
      spec: {
        containers: [
          {
            name: 'web',
            ports: [
              { containerPort: 80, protocol: 'TCP' },
              { containerPort: 53, protocol: 'UDP' },
              { containerPort: 8080, protocol: 'TCP' },
            ],
            env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } }],
            livenessProbe: {
              httpGet: { port: 80, scheme: 'HTTP' },
              timeoutSeconds: 1,
              periodSeconds: 5,
              successThreshold: 1,
              failureThreshold: 3,
            },
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        initContainers: [
          {
            name: 'init',
            ports: [{ containerPort: 9000, protocol: 'TCP' }],
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        volumes: [
          { name: 'a', configMap: { name: 'cm', defaultMode: 420 } },
          { name: 'b', secret: { secretName: 's', defaultMode: 256 } },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        schedulerName: 'default-scheduler',
        securityContext: {},
      },
      status: {},
    });
  });

  it('defaults every item of a PodList', () => {
    const list = defaulted('v1', 'PodList', { items: [pod(), { spec: { containers: [] } }] as unknown[] });
    expect(list.items.map((p: any) => p.spec.restartPolicy)).toEqual(['Always', 'Always']);
  });

  it('runs to the Pod template inside a CronJob', () => {
    const doc = defaulted('batch/v1', 'CronJob', {
      spec: {
        schedule: '@daily',
        jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 1 }] }] } } } },
      },
    });
    expect(doc.spec).toMatchObject({
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
    // parallelism and backoffLimit are SetDefaults_Job's, conditional on other fields: code defaults, not the schema's.
    expect(doc.spec.jobTemplate.spec).toMatchObject({ completionMode: 'NonIndexed', suspend: false });
    expect(doc.spec.jobTemplate.spec.template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' });
    expect(doc.spec.jobTemplate.spec.template.spec.containers[0]!.ports[0]).toEqual({ containerPort: 1, protocol: 'TCP' });
  });

  it('leaves what is not an object alone (the validator reports it)', () => {
    const doc = { spec: { containers: 'web', volumes: [null, 3] } };
    expect(defaulted('v1', 'Pod', doc)).toEqual({
      spec: {
        containers: 'web',
        volumes: [null, 3],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        schedulerName: 'default-scheduler',
        securityContext: {},
      },
      status: {},
    });
    expect(() => defaulterOf(kind('v1', 'Pod').schema)('Pod')).not.toThrow();
  });
});

describe('generated defaulters: defaulted objects are fresh per document', () => {
  it('HPA behavior and metrics literals are not shared between two documents', () => {
    const a = defaulted('autoscaling/v2', 'HorizontalPodAutoscaler', { spec: { maxReplicas: 3, behavior: {} } }) as any;
    const b = defaulted('autoscaling/v2', 'HorizontalPodAutoscaler', { spec: { maxReplicas: 5, behavior: {} } }) as any;
    expect(a.spec.behavior.scaleUp).toEqual({
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    });
    expect(a.spec.behavior.scaleDown).toEqual({
      stabilizationWindowSeconds: 300,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
    });
    expect(a.spec.metrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ]);
    expect(a.spec.minReplicas).toBe(1);

    a.spec.behavior.scaleUp.policies[0].value = 99;
    a.spec.behavior.scaleDown.stabilizationWindowSeconds = 1;
    a.spec.metrics[0].resource.target.averageUtilization = 10;
    a.spec.metrics.push({ type: 'Pods' });
    expect(b.spec.behavior.scaleUp.policies[0].value).toBe(4);
    expect(b.spec.behavior.scaleDown.stabilizationWindowSeconds).toBe(300);
    expect(b.spec.metrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ]);

    // Nor with a third document defaulted after the first was changed.
    const c = defaulted('autoscaling/v2', 'HorizontalPodAutoscaler', { spec: { behavior: {} } }) as any;
    expect(c.spec.behavior.scaleUp.policies[0].value).toBe(4);
  });

  it('scheduler scoring strategy literals are not shared', () => {
    const a = defaulted(SCHEDULER, 'NodeResourcesFitArgs', {}) as any;
    const b = defaulted(SCHEDULER, 'NodeResourcesFitArgs', {}) as any;
    expect(a.scoringStrategy).not.toBe(b.scoringStrategy);
    expect(a.scoringStrategy.resources).not.toBe(b.scoringStrategy.resources);
    a.scoringStrategy.resources[0].weight = 50;
    expect(b.scoringStrategy.resources[0].weight).toBe(1);
  });

  it('defaults never alias the schema descriptors', () => {
    const a = defaulted(SCHEDULER, 'NodeResourcesBalancedAllocationArgs', {}) as any;
    a.resources[0].name = 'changed';
    expect(defaulted(SCHEDULER, 'NodeResourcesBalancedAllocationArgs', {})).toEqual({
      resources: [
        { name: 'cpu', weight: 1 },
        { name: 'memory', weight: 1 },
      ],
    });
  });
});

/**
 * Every default in every kind's schema descriptor, found by walking the descriptors: a document
 * holding only the ancestors of the field (one item per list, one entry per map) gets the default
 * at that path, as a fresh copy; an explicit zero is replaced only where the schema says zero
 * means unset.
 */
describe('generated defaulters: every default in the schema descriptors', () => {
  interface Site {
    kind: KindRegistration;
    /** Steps from the root: field names, `0` for a list item, `{}` for a map entry. */
    steps: (string | 0 | { entry: string })[];
    value: unknown;
    zeroIsUnset: boolean;
    /** The zero value of the field's type as the real system writes it ('0s' for a duration). */
    zero: unknown;
  }

  function sites(): Site[] {
    const out: Site[] = [];
    const walk = (k: KindRegistration, node: SchemaNode, steps: Site['steps'], seen: string[]): void => {
      const n = deref(node);
      if (n.type === 'object') {
        if (n.typeName && seen.includes(n.typeName)) return;
        const inner = n.typeName ? [...seen, n.typeName] : seen;
        for (const f of n.fields) {
          const d = f.schema.default ?? deref(f.schema).default;
          if (d !== undefined)
            out.push({
              kind: k,
              steps: [...steps, f.name],
              value: d,
              zeroIsUnset: f.defaultZeroIsUnset === true,
              zero: zeroOf(deref(f.schema).type, d),
            });
          walk(k, f.schema, [...steps, f.name], inner);
        }
      } else if (n.type === 'list') walk(k, n.items, [...steps, 0], seen);
      else if (n.type === 'map') walk(k, n.values, [...steps, { entry: 'key' }], seen);
    };
    for (const k of allKinds) walk(k, k.schema, [], []);
    return out;
  }

  /** A document with empty containers down to the parent of the last step (a field name). */
  function skeleton(steps: Site['steps']): { doc: Record<string, unknown>; parent: Record<string, unknown>; last: string } {
    const doc: Record<string, unknown> = {};
    let cur: Record<string, unknown> | unknown[] = doc;
    for (let i = 0; i < steps.length - 1; i++) {
      const step = steps[i]!;
      const child: Record<string, unknown> | unknown[] = steps[i + 1] === 0 ? [] : {};
      if (Array.isArray(cur)) cur.push(child);
      else cur[typeof step === 'object' ? step.entry : String(step)] = child;
      cur = child;
    }
    return { doc, parent: cur as Record<string, unknown>, last: steps[steps.length - 1] as string };
  }

  const all = sites();
  const label = (s: Site) =>
    `${s.kind.apiVersion} ${s.kind.kind} ${s.steps.map((x) => (x === 0 ? '[0]' : typeof x === 'object' ? '[key]' : `.${x}`)).join('')}`;

  it('finds the defaults (a floor, so a walker that finds nothing fails)', () => {
    expect(all.length).toBeGreaterThanOrEqual(500);
  });

  it('applies each at its path, as a fresh copy', () => {
    const failures: string[] = [];
    for (const s of all) {
      const { doc, parent, last } = skeleton(s.steps);
      defaulterOf(s.kind.schema)(doc);
      const got = parent[last];
      if (JSON.stringify(got) !== JSON.stringify(withNestedDefaults(got, s.value)))
        failures.push(`${label(s)}: got ${JSON.stringify(got)}, want ${JSON.stringify(s.value)}`);
      else if (typeof s.value === 'object' && s.value !== null && got === s.value)
        failures.push(`${label(s)}: the descriptor's default object itself was used`);
    }
    expect(failures).toEqual([]);
  });

  it('replaces an explicit zero exactly where the schema says zero means unset', () => {
    const failures: string[] = [];
    let checked = 0;
    for (const s of all) {
      const zero = s.zero;
      if (zero === undefined || zero === s.value) continue;
      const { doc, parent, last } = skeleton(s.steps);
      parent[last] = zero;
      defaulterOf(s.kind.schema)(doc);
      checked++;
      const want = s.zeroIsUnset ? s.value : zero;
      if (parent[last] !== want)
        failures.push(`${label(s)}: explicit ${JSON.stringify(zero)} became ${JSON.stringify(parent[last])}, want ${JSON.stringify(want)}`);
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(450);
  });
});

function zeroOf(type: string, value: unknown): unknown {
  if (type === 'duration') return '0s';
  if (typeof value === 'number') return 0;
  if (typeof value === 'string') return '';
  if (typeof value === 'boolean') return false;
  return undefined;
}

/**
 * A defaulted object may gain defaults of its own parts (a list of resources whose weight is
 * defaulted): compare with those allowed, i.e. the stated default with extra keys from `got`.
 */
function withNestedDefaults(got: unknown, want: unknown): unknown {
  if (Array.isArray(want) && Array.isArray(got)) return want.map((w, i) => withNestedDefaults(got[i], w));
  if (typeof want === 'object' && want !== null && typeof got === 'object' && got !== null && !Array.isArray(got)) {
    const merged: Record<string, unknown> = { ...(got as Record<string, unknown>) };
    for (const [k, v] of Object.entries(want)) merged[k] = withNestedDefaults((got as Record<string, unknown>)[k], v);
    return merged;
  }
  return want;
}
