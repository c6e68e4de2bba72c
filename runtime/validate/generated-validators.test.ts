import { describe, expect, it } from 'vitest';
import type { batchV1, coreV1, flowcontrolApiserverV1, svcschedulerConfigV1 } from '../../generated/index.js';
import { allKinds } from '../../generated/kinds.js';
import { type KindRegistration, defaulterOf, validatorOf } from '../schema/index.js';
import type { FieldError } from '../api/index.js';
import { Collector } from './index.js';

/**
 * The generated structural validators of the built-in kinds, driven through `allKinds` as the
 * server drives them: each case states the exact errors (type, field path, value, message) or the
 * exact unknown fields a document must produce.
 */

function kind(apiVersion: string, name: string): KindRegistration {
  const k = allKinds.find((r) => r.apiVersion === apiVersion && r.kind === name);
  if (!k) throw new Error(`no kind ${apiVersion} ${name} in allKinds`);
  return k;
}

function validate(apiVersion: string, name: string, doc: unknown): Collector {
  const c = new Collector();
  validatorOf(kind(apiVersion, name).schema)(doc, '', c);
  return c;
}

/** A deep copy of `doc` changed by `edit`: each case starts from a valid document. */
function edited<T>(doc: T, edit: (d: any) => void): unknown {
  const copy = structuredClone(doc);
  edit(copy);
  return copy;
}

const pod = (doc: unknown) => validate('v1', 'Pod', doc);

function err(type: FieldError['type'], field: string, value: unknown, message: string): FieldError {
  return { type, field, badValue: type === 'FieldValueRequired' ? '' : value, detail: message };
}

const validPod: coreV1.Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-0',
    namespace: 'default',
    labels: { app: 'web', tier: 'frontend' },
    annotations: { 'example.com/owner': 'team-a' },
    creationTimestamp: '2024-02-29T12:00:00Z',
    finalizers: ['example.com/a', 'example.com/b'],
  },
  spec: {
    containers: [
      {
        name: 'web',
        image: 'registry.example/web:1.0',
        command: ['/bin/web', '--serve'],
        ports: [
          { name: 'http', containerPort: 80, protocol: 'TCP' },
          { name: 'dns', containerPort: 53, protocol: 'UDP' },
          { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
        ],
        env: [{ name: 'MODE', value: 'prod' }],
        resources: { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: 0.25, memory: '512Mi' } },
        livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 5 },
        imagePullPolicy: 'IfNotPresent',
      },
      { name: 'sidecar', image: 'registry.example/sidecar:2.1' },
    ],
    volumes: [{ name: 'data', hostPath: { path: '/var/data', type: 'DirectoryOrCreate' } }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    nodeSelector: { 'kubernetes.io/os': 'linux' },
  },
};

describe('generated validators: valid documents pass', () => {
  const namespace: coreV1.Namespace = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'team-a', labels: { team: 'a' } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
  const service: coreV1.Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      type: 'ClusterIP',
      selector: { app: 'web' },
      ports: [
        { name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' },
        { name: 'dns', port: 53, targetPort: 53, protocol: 'UDP' },
      ],
      ipFamilies: ['IPv4', 'IPv6'],
      sessionAffinity: 'None',
    },
  };
  const configMap: coreV1.ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'web-config', namespace: 'default' },
    data: { 'app.properties': 'mode=prod\n', empty: '' },
    binaryData: { logo: 'iVBORw0KGgo=' },
    immutable: true,
  };
  const cronJob: batchV1.CronJob = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'report', namespace: 'default' },
    spec: {
      schedule: '0 2 * * *',
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 3,
      jobTemplate: {
        spec: { backoffLimit: 2, template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'report', image: 'report:1' }] } } },
      },
    },
  };
  const flowSchema: flowcontrolApiserverV1.FlowSchema = {
    apiVersion: 'flowcontrol.apiserver.svc.io/v1',
    kind: 'FlowSchema',
    metadata: { name: 'service-accounts' },
    spec: {
      priorityLevelConfiguration: { name: 'workload-low' },
      matchingPrecedence: 9000,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'Group', group: { name: 'system:serviceaccounts' } }],
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        },
      ],
    },
  };
  const scheduler: svcschedulerConfigV1.SvcSchedulerConfiguration = {
    apiVersion: 'svcscheduler.config.svc.io/v1',
    kind: 'SvcSchedulerConfiguration',
    parallelism: 16,
    leaderElection: { leaderElect: true, leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '2s' },
    podInitialBackoffSeconds: 1,
    podMaxBackoffSeconds: 10,
    profiles: [
      {
        schedulerName: 'default-scheduler',
        plugins: { score: { enabled: [{ name: 'ImageLocality', weight: 2 }] } },
        pluginConfig: [{ name: 'VolumeBinding', args: { bindTimeoutSeconds: 600 } }],
      },
    ],
  };

  it.each<[string, string, string, unknown]>([
    ['Pod', 'v1', 'Pod', validPod],
    ['Namespace', 'v1', 'Namespace', namespace],
    ['Service', 'v1', 'Service', service],
    ['ConfigMap', 'v1', 'ConfigMap', configMap],
    ['CronJob', 'batch/v1', 'CronJob', cronJob],
    ['FlowSchema', 'flowcontrol.apiserver.svc.io/v1', 'FlowSchema', flowSchema],
    ['SvcSchedulerConfiguration', 'svcscheduler.config.svc.io/v1', 'SvcSchedulerConfiguration', scheduler],
  ])('%s', (_name, apiVersion, kindName, doc) => {
    const c = validate(apiVersion, kindName, doc);
    expect(c.errors).toEqual([]);
    expect(c.unknownFields).toEqual([]);
    expect(c.ok).toBe(true);
  });

  it('a valid Pod stays valid after its defaults are applied', () => {
    const doc = structuredClone(validPod);
    defaulterOf(kind('v1', 'Pod').schema)(doc);
    expect(pod(doc).errors).toEqual([]);
  });
});

describe('generated validators: wrong JSON types name the type found', () => {
  it.each<[string, (d: any) => void, FieldError]>([
    [
      'string for an integer, in a list in a list',
      (d) => (d.spec.containers[0].ports[1].containerPort = '53'),
      err('FieldValueTypeInvalid', 'spec.containers[0].ports[1].containerPort', '53', 'must be of type integer, not string'),
    ],
    [
      'fraction for an integer',
      (d) => (d.spec.terminationGracePeriodSeconds = 1.5),
      err('FieldValueTypeInvalid', 'spec.terminationGracePeriodSeconds', 1.5, 'must be of type integer, not number'),
    ],
    [
      'object for a list',
      (d) => (d.spec.containers[0].command = { run: 'x' }),
      err('FieldValueTypeInvalid', 'spec.containers[0].command', 'object', 'must be of type array, not object'),
    ],
    [
      'list for a map',
      (d) => (d.metadata.labels = ['app']),
      err('FieldValueTypeInvalid', 'metadata.labels', 'array', 'must be of type object, not array'),
    ],
    [
      'string for an object',
      (d) => (d.spec.containers[1] = 'sidecar'),
      err('FieldValueTypeInvalid', 'spec.containers[1]', 'sidecar', 'must be of type object, not string'),
    ],
    [
      'integer for a string',
      (d) => (d.spec.containers[0].image = 7),
      err('FieldValueTypeInvalid', 'spec.containers[0].image', 7, 'must be of type string, not integer'),
    ],
    [
      'string for a boolean',
      (d) => (d.spec.hostNetwork = 'yes'),
      err('FieldValueTypeInvalid', 'spec.hostNetwork', 'yes', 'must be of type boolean, not string'),
    ],
    [
      'null item of a string list',
      (d) => (d.spec.containers[0].command[1] = null),
      err('FieldValueTypeInvalid', 'spec.containers[0].command[1]', null, 'must be of type string, not null'),
    ],
    [
      'boolean for int-or-string',
      (d) => (d.spec.containers[0].livenessProbe.httpGet.port = true),
      err('FieldValueTypeInvalid', 'spec.containers[0].livenessProbe.httpGet.port', true, 'must be of type integer or string, not boolean'),
    ],
  ])('%s', (_name, edit, expected) => {
    const c = pod(edited(validPod, edit));
    expect(c.errors).toEqual([expected]);
    expect(c.unknownFields).toEqual([]);
  });

  it('a document that is not an object is reported at the root path', () => {
    expect(pod('Pod').errors).toEqual([err('FieldValueTypeInvalid', '', 'Pod', 'must be of type object, not string')]);
    expect(pod(null).errors).toEqual([err('FieldValueTypeInvalid', '', null, 'must be of type object, not null')]);
  });

  it('a non-empty root path prefixes every reported path', () => {
    const c = new Collector();
    validatorOf(kind('v1', 'Pod').schema)(
      edited(validPod, (d) => (d.spec.containers[0].ports[0].containerPort = 'x')),
      'items[3]',
      c,
    );
    expect(c.errors.map((e) => e.field)).toEqual(['items[3].spec.containers[0].ports[0].containerPort']);
  });
});

describe('generated validators: each keyword constraint', () => {
  it.each<[string, (d: any) => void, FieldError | undefined]>([
    [
      'required field missing',
      (d) => delete d.spec.containers[1].name,
      err('FieldValueRequired', 'spec.containers[1].name', undefined, ''),
    ],
    [
      'required field null counts as missing',
      (d) => (d.spec.containers[0].ports[0].containerPort = null),
      err('FieldValueRequired', 'spec.containers[0].ports[0].containerPort', undefined, ''),
    ],
    ['required list missing', (d) => delete d.spec.containers, err('FieldValueRequired', 'spec.containers', undefined, '')],
    [
      'enum (up to four values)',
      (d) => (d.spec.restartPolicy = 'Sometimes'),
      err('FieldValueNotSupported', 'spec.restartPolicy', 'Sometimes', 'supported values: "Always", "OnFailure", "Never"'),
    ],
    [
      'enum of a list-map item',
      (d) => (d.spec.containers[0].ports[2].protocol = 'tcp'),
      err('FieldValueNotSupported', 'spec.containers[0].ports[2].protocol', 'tcp', 'supported values: "TCP", "UDP", "SCTP"'),
    ],
    [
      'enum (a larger set)',
      (d) => (d.spec.volumes[0].hostPath.type = 'Pipe'),
      err(
        'FieldValueNotSupported',
        'spec.volumes[0].hostPath.type',
        'Pipe',
        'supported values: "", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice"',
      ),
    ],
    ['enum of apiVersion', (d) => (d.apiVersion = 'v2'), err('FieldValueNotSupported', 'apiVersion', 'v2', 'supported values: "v1"')],
    [
      'minimum',
      (d) => (d.spec.containers[0].ports[0].containerPort = 0),
      err('FieldValueInvalid', 'spec.containers[0].ports[0].containerPort', 0, 'must be greater than or equal to 1'),
    ],
    [
      'maximum',
      (d) => (d.spec.containers[0].ports[0].containerPort = 65536),
      err('FieldValueInvalid', 'spec.containers[0].ports[0].containerPort', 65536, 'must be less than or equal to 65535'),
    ],
    [
      'minimum 0 of an int64',
      (d) => (d.spec.terminationGracePeriodSeconds = -1),
      err('FieldValueInvalid', 'spec.terminationGracePeriodSeconds', -1, 'must be greater than or equal to 0'),
    ],
    [
      'maxLength',
      (d) => (d.spec.containers[1].name = 'a'.repeat(64)),
      err('FieldValueTooLong', 'spec.containers[1].name', 'a'.repeat(64), 'may not be more than 63 bytes'),
    ],
    [
      'minLength',
      (d) => (d.spec.affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: '' }] } }),
      err(
        'FieldValueInvalid',
        'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey',
        '',
        'must be at least 1 characters long',
      ),
    ],
    [
      'pattern',
      (d) => (d.spec.containers[0].name = 'Web_Server'),
      err('FieldValueInvalid', 'spec.containers[0].name', 'Web_Server', 'must match ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'),
    ],
    [
      'int32 overflow',
      (d) => (d.spec.containers[0].livenessProbe.initialDelaySeconds = 2 ** 31),
      err('FieldValueInvalid', 'spec.containers[0].livenessProbe.initialDelaySeconds', 2 ** 31, 'out of range for int32'),
    ],
    [
      'int32 underflow',
      (d) => (d.spec.priority = -(2 ** 31) - 1),
      err('FieldValueInvalid', 'spec.priority', -(2 ** 31) - 1, 'out of range for int32'),
    ],
    ['int32 lower limit is in range', (d) => (d.spec.priority = -(2 ** 31)), undefined],
    ['int32 upper limit is in range', (d) => (d.spec.priority = 2 ** 31 - 1), undefined],
    [
      'int64 beyond what JSON carries exactly',
      (d) => (d.spec.activeDeadlineSeconds = 2 ** 53),
      err('FieldValueInvalid', 'spec.activeDeadlineSeconds', 2 ** 53, 'out of range for int64'),
    ],
    [
      'date-time that is not one',
      (d) => (d.metadata.creationTimestamp = 'yesterday'),
      err('FieldValueInvalid', 'metadata.creationTimestamp', 'yesterday', 'must be an RFC 3339 timestamp'),
    ],
    [
      'date-time on a day that does not exist',
      (d) => (d.metadata.creationTimestamp = '2023-02-29T12:00:00Z'),
      err('FieldValueInvalid', 'metadata.creationTimestamp', '2023-02-29T12:00:00Z', 'must be an RFC 3339 timestamp'),
    ],
    [
      'date-time at hour 24',
      (d) => (d.metadata.creationTimestamp = '2024-01-01T24:00:00Z'),
      err('FieldValueInvalid', 'metadata.creationTimestamp', '2024-01-01T24:00:00Z', 'must be an RFC 3339 timestamp'),
    ],
    [
      'quantity in a map, reported per key',
      (d) => (d.spec.containers[0].resources.limits.cpu = 'lots'),
      err('FieldValueInvalid', 'spec.containers[0].resources.limits[cpu]', 'lots', 'must be a quantity such as 1Gi, 500m or 1e3'),
    ],
    ['minItems', (d) => (d.spec.containers = []), err('FieldValueInvalid', 'spec.containers', 0, 'must have at least 1 items')],
    [
      'a map checked per key',
      (d) => (d.metadata.labels.tier = 3),
      err('FieldValueTypeInvalid', 'metadata.labels[tier]', 3, 'must be of type string, not integer'),
    ],
    [
      'a map key with dots and slashes',
      (d) => (d.metadata.annotations['example.com/owner'] = false),
      err('FieldValueTypeInvalid', 'metadata.annotations[example.com/owner]', false, 'must be of type string, not boolean'),
    ],
  ])('%s', (_name, edit, expected) => {
    const c = pod(edited(validPod, edit));
    expect(c.errors).toEqual(expected ? [expected] : []);
    expect(c.unknownFields).toEqual([]);
  });

  const service: coreV1.Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } };

  it('maxItems', () => {
    const c = validate(
      'v1',
      'Service',
      edited(service, (d) => (d.spec.ipFamilies = ['IPv4', 'IPv6', 'IPv4'])),
    );
    expect(c.errors).toEqual([err('FieldValueTooMany', 'spec.ipFamilies', 3, 'must have at most 2 items')]);
  });

  it('enum of list items, reported per index', () => {
    const c = validate(
      'v1',
      'Service',
      edited(service, (d) => (d.spec.ipFamilies = ['IPv4', 'IPv5'])),
    );
    expect(c.errors).toEqual([err('FieldValueNotSupported', 'spec.ipFamilies[1]', 'IPv5', 'supported values: "IPv4", "IPv6"')]);
  });

  it('byte format, per map key', () => {
    const secret: coreV1.Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { user: 'YWRtaW4=', password: 'not base64!' },
    };
    // A decoding error as Go's: the offset, never the value.
    expect(validate('v1', 'Secret', secret).errors).toEqual([
      { type: 'FieldValueTypeInvalid', field: 'data[password]', omitValue: true, detail: 'illegal base64 data at input byte 3' },
    ]);
  });

  it('duration format', () => {
    const doc = {
      apiVersion: 'svcscheduler.config.svc.io/v1',
      kind: 'SvcSchedulerConfiguration',
      leaderElection: { leaseDuration: '15 seconds', renewDeadline: '1m30s', retryPeriod: '500ms' },
    };
    expect(validate('svcscheduler.config.svc.io/v1', 'SvcSchedulerConfiguration', doc).errors).toEqual([
      err('FieldValueInvalid', 'leaderElection.leaseDuration', '15 seconds', 'must be a duration such as 30s, 1m30s or 500ms'),
    ]);
  });

  it('quantity and duration formats read as upstream parses them: e3 is zero, a duration past 2562047h is refused', () => {
    const scheduler = {
      apiVersion: 'svcscheduler.config.svc.io/v1',
      kind: 'SvcSchedulerConfiguration',
      leaderElection: { leaseDuration: '2562048h', renewDeadline: '2562047h', retryPeriod: '500ms' },
    };
    expect(validate('svcscheduler.config.svc.io/v1', 'SvcSchedulerConfiguration', scheduler).errors).toEqual([
      err('FieldValueInvalid', 'leaderElection.leaseDuration', '2562048h', 'must be a duration such as 30s, 1m30s or 500ms'),
    ]);
    const quantities = edited(
      validPod,
      (d) => (d.spec.containers[0].resources = { limits: { cpu: 'e3', memory: 'Ki' }, requests: { cpu: '.' } }),
    );
    expect(pod(quantities).errors).toEqual([]);
  });

  it('several problems are all reported, in document order', () => {
    const c = pod(
      edited(validPod, (d) => {
        d.metadata.creationTimestamp = 'now';
        d.spec.containers[0].name = 'Web';
        d.spec.containers[0].ports[0].containerPort = 'eighty';
        delete d.spec.containers[1].name;
        d.spec.restartPolicy = 'Sometimes';
      }),
    );
    expect(c.errors.map((e) => [e.type, e.field])).toEqual([
      ['FieldValueInvalid', 'metadata.creationTimestamp'],
      ['FieldValueInvalid', 'spec.containers[0].name'],
      ['FieldValueTypeInvalid', 'spec.containers[0].ports[0].containerPort'],
      ['FieldValueRequired', 'spec.containers[1].name'],
      ['FieldValueNotSupported', 'spec.restartPolicy'],
    ]);
  });
});

describe('generated validators: list uniqueness', () => {
  it('Pod containers are a map list keyed by name', () => {
    const c = pod(edited(validPod, (d) => (d.spec.containers[1].name = 'web')));
    expect(c.errors).toEqual([err('FieldValueDuplicate', 'spec.containers[1]', { name: 'web' }, '')]);
  });

  it('container ports are keyed by containerPort and protocol together', () => {
    // 53/UDP and 53/TCP differ in one key: no error in the valid Pod. The same pair twice is one.
    const c = pod(edited(validPod, (d) => (d.spec.containers[0].ports[2].protocol = 'UDP')));
    expect(c.errors).toEqual([err('FieldValueDuplicate', 'spec.containers[0].ports[2]', { containerPort: 53, protocol: 'UDP' }, '')]);
  });

  it('each repeat is reported, at the later index', () => {
    const c = pod(
      edited(validPod, (d) => {
        d.spec.containers[0].ports = [
          { containerPort: 1 },
          { containerPort: 2 },
          { containerPort: 1 },
          { containerPort: 2 },
          { containerPort: 1 },
        ];
      }),
    );
    expect(c.errors.map((e) => [e.field, e.badValue])).toEqual([
      ['spec.containers[0].ports[2]', { containerPort: 1, protocol: undefined }],
      ['spec.containers[0].ports[3]', { containerPort: 2, protocol: undefined }],
      ['spec.containers[0].ports[4]', { containerPort: 1, protocol: undefined }],
    ]);
  });

  it('a key of another JSON type is another key', () => {
    const c = pod(edited(validPod, (d) => (d.spec.containers[0].ports = [{ containerPort: 80 }, { containerPort: '80' }])));
    expect(c.errors).toEqual([
      err('FieldValueTypeInvalid', 'spec.containers[0].ports[1].containerPort', '80', 'must be of type integer, not string'),
    ]);
  });

  it('long lists are checked the same way (the hashed path)', () => {
    const ports = Array.from({ length: 40 }, (_, i) => ({ containerPort: 1000 + i, protocol: i % 2 ? 'UDP' : 'TCP' }));
    ports.push({ containerPort: 1007, protocol: 'UDP' }, { containerPort: 1007, protocol: 'TCP' });
    const c = pod(edited(validPod, (d) => (d.spec.containers[0].ports = ports)));
    expect(c.errors).toEqual([err('FieldValueDuplicate', 'spec.containers[0].ports[40]', { containerPort: 1007, protocol: 'UDP' }, '')]);
  });

  it('metadata.finalizers is a set', () => {
    const c = pod(edited(validPod, (d) => (d.metadata.finalizers = ['a', 'b', 'a', 'c', 'b'])));
    expect(c.errors).toEqual([
      err('FieldValueDuplicate', 'metadata.finalizers[2]', 'a', ''),
      err('FieldValueDuplicate', 'metadata.finalizers[4]', 'b', ''),
    ]);
  });

  it('a long set is checked the same way (the hashed path)', () => {
    const finalizers = Array.from({ length: 30 }, (_, i) => `example.com/f${i}`);
    finalizers.push('example.com/f3');
    const c = pod(edited(validPod, (d) => (d.metadata.finalizers = finalizers)));
    expect(c.errors).toEqual([err('FieldValueDuplicate', 'metadata.finalizers[30]', 'example.com/f3', '')]);
  });
});

describe('generated validators: unknown fields', () => {
  it('are reported apart, with full paths, and are not errors', () => {
    const c = pod(
      edited(validPod, (d) => {
        d.colour = 'blue';
        d.metadata.owner = 'me';
        d.spec.containers[1].colour = 'red';
        d.spec.containers[0].ports[2].extra = 1;
        d.spec.volumes[0].hostPath.mode = 'rw';
      }),
    );
    expect(c.errors).toEqual([]);
    expect(c.ok).toBe(true);
    // In schema field order: PodSpec declares volumes before containers.
    expect(c.unknownFields).toEqual([
      'colour',
      'metadata.owner',
      'spec.volumes[0].hostPath.mode',
      'spec.containers[0].ports[2].extra',
      'spec.containers[1].colour',
    ]);
  });

  it('map keys are data, never unknown fields', () => {
    const c = pod(edited(validPod, (d) => (d.metadata.labels = { anything: 'goes', 'a.b/c': 'd' })));
    expect(c.unknownFields).toEqual([]);
    expect(c.errors).toEqual([]);
  });

  it('fields of a raw extension are not checked', () => {
    const doc = {
      apiVersion: 'svcscheduler.config.svc.io/v1',
      kind: 'SvcSchedulerConfiguration',
      profiles: [{ schedulerName: 's', pluginConfig: [{ name: 'X', args: { whatever: [1, 'two'] } }] }],
    };
    const c = validate('svcscheduler.config.svc.io/v1', 'SvcSchedulerConfiguration', doc);
    expect(c.errors).toEqual([]);
    expect(c.unknownFields).toEqual([]);
  });
});

describe('generated validators: null', () => {
  it('is accepted by a nullable field', () => {
    expect(pod(edited(validPod, (d) => (d.metadata.deletionTimestamp = null))).errors).toEqual([]);
  });

  it('a nullable field still checks a value that is not null', () => {
    expect(pod(edited(validPod, (d) => (d.metadata.deletionTimestamp = 'soon'))).errors).toEqual([
      err('FieldValueInvalid', 'metadata.deletionTimestamp', 'soon', 'must be an RFC 3339 timestamp'),
    ]);
    expect(pod(edited(validPod, (d) => (d.metadata.deletionTimestamp = 5))).errors).toEqual([
      err('FieldValueTypeInvalid', 'metadata.deletionTimestamp', 5, 'must be of type string, not integer'),
    ]);
  });

  it('on an optional field that is not nullable counts as absent', () => {
    const c = pod(
      edited(validPod, (d) => {
        d.metadata.creationTimestamp = null;
        d.metadata.labels = null;
        d.spec.containers[0].ports = null;
      }),
    );
    expect(c.errors).toEqual([]);
  });

  it('as a map value or list item is a type error', () => {
    const c = pod(
      edited(validPod, (d) => {
        d.metadata.labels.app = null;
        d.metadata.finalizers = [null];
      }),
    );
    expect(c.errors).toEqual([
      err('FieldValueTypeInvalid', 'metadata.labels[app]', null, 'must be of type string, not null'),
      err('FieldValueTypeInvalid', 'metadata.finalizers[0]', null, 'must be of type string, not null'),
    ]);
  });
});
