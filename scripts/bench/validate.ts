import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { openApiDocument, schemaName } from '../../generator/emit/index.js';
import { loadSchemas } from '../../generator/index.js';
import type { batchV1, coreV1, svcschedulerConfigV1 } from '../../generated/index.js';
import { allKinds } from '../../generated/kinds.js';
import { Collector, checkMapKeysUnique, isDuration, isQuantity } from '../../runtime/validate/index.js';
import { type KindRegistration, validatorOf } from '../../runtime/schema/index.js';
import { type BenchCase, runCases } from './harness.js';

const ROOT = new URL('../../', import.meta.url).pathname;
/** Validations per timed run: enough that one run takes tens of milliseconds. */
const ITERATIONS = 20_000;
/** Errors found by both sides in timed runs (see the cases). */
let _found = 0;

// ajv-formats is CommonJS with a default export; under NodeNext its callable is one level down.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as typeof addFormatsModule.default;

/**
 * Structural validation throughput: the schema engine's validators (`validatorOf(kind.schema)`,
 * compiled from the descriptors)
 * beside ajv, compiled from the same schemas (the OpenAPI v3 document the server publishes, as
 * JSON Schema), on the same documents. Both sides report every error (ajv `allErrors: true`).
 *
 * What both check: types, required, enum, bounds, lengths, patterns, formats (ajv-formats for
 * date-time/byte/int32/int64; our own duration and quantity checks registered as ajv formats, since
 * JSON Schema has none for these wire forms), set-list uniqueness (`uniqueItems`) and unknown fields
 * (`additionalProperties: false` on every closed object; ours reports them apart, as warnings).
 * JSON Schema has no keyword for the uniqueness of list-map keys (Pod containers by name, ports by
 * containerPort+protocol), so each workload runs twice: against ajv with an
 * `x-kubernetes-list-map-keys` keyword that calls the very check ours uses (the same work), and
 * against plain ajv, which skips that check (less work than ours).
 */
export async function benchValidate(): Promise<void> {
  const peers = new PeerValidators();
  const cases: BenchCase[] = [];
  const lines: string[] = [];
  for (const w of WORKLOADS) {
    const kind = findKind(w.apiVersion, w.kind);
    const withKeys = peers.compile(kind, true);
    const plain = peers.compile(kind, false);
    // Compiled once, as the server does on a kind's first write.
    const validate = validatorOf(kind.schema);
    const ours = new Collector();
    validate(w.doc, '', ours);
    withKeys(w.doc);
    plain(w.doc);
    const count = (v: ValidateFunction) => v.errors?.length ?? 0;
    lines.push(
      `${w.name.padEnd(34)} ours: ${ours.errors.length} errors + ${ours.unknownFields.length} unknown fields; ajv + list-map keys: ${count(withKeys)} errors; ajv: ${count(plain)} errors (ajv counts unknown fields as errors)`,
    );
    if (w.valid !== (ours.errors.length === 0 && ours.unknownFields.length === 0))
      throw new Error(`${w.name}: our validator disagrees with the workload: ${JSON.stringify(ours)}`);
    if (w.valid !== (withKeys.errors == null) || w.valid !== (plain.errors == null))
      throw new Error(`${w.name}: ajv disagrees with the workload: ${JSON.stringify(withKeys.errors)}`);
    // Both sides count the errors they find into `found`, so neither's work can be optimised away.
    const oursRun = cpuTimed(() => {
      for (let i = 0; i < ITERATIONS; i++) {
        const c = new Collector();
        validate(w.doc, '', c);
        _found += c.errors.length;
      }
    });
    const ajvRun = (validate: ValidateFunction) =>
      cpuTimed(() => {
        for (let i = 0; i < ITERATIONS; i++) if (!validate(w.doc)) _found += validate.errors!.length;
      });
    cases.push({ name: w.name, runs: 7, ours: oursRun, peer: { name: 'ajv + list-map keys', run: ajvRun(withKeys) } });
    cases.push({ name: w.name, runs: 7, ours: oursRun, peer: { name: 'ajv (no map keys)', run: ajvRun(plain) } });
  }
  process.stdout.write(`\n## Validation: what each side finds\n${lines.join('\n')}\n`);
  const results = await runCases(`Validation (structural) vs ajv on the same schemas, ${ITERATIONS} validations per run, CPU ms`, cases);
  process.stdout.write('\nvalidations per second of CPU time (median run)\n');
  for (const r of results) {
    const rate = (ms: number) => Math.round((ITERATIONS / ms) * 1000).toLocaleString('en-US');
    process.stdout.write(
      `${r.name.padEnd(34)} ours ${rate(r.oursMs).padStart(9)}/s   ${r.peer.padEnd(20)} ${rate(r.peerMs).padStart(9)}/s\n`,
    );
  }
}

/**
 * The run's CPU time in ms (the harness takes a number as the time): this machine is shared, and
 * wall time counts whatever else runs; the process's CPU time counts only this work (with GC).
 */
function cpuTimed(run: () => void): () => number {
  return () => {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
}

function findKind(apiVersion: string, kind: string): KindRegistration {
  const k = allKinds.find((r) => r.apiVersion === apiVersion && r.kind === kind);
  if (!k) throw new Error(`no kind ${apiVersion} ${kind}`);
  return k;
}

/** ajv over the built-in schemas: the published OpenAPI v3 components, as JSON Schema. */
class PeerValidators {
  private readonly components: Record<string, unknown>;
  private readonly model = loadSchemas({ inputs: [join(ROOT, 'schemas')] });

  constructor() {
    const doc = openApiDocument(this.model, 'svckit built-in');
    this.components = Object.fromEntries(Object.entries(doc.components.schemas).map(([name, s]) => [name, toJsonSchema(s)]));
  }

  /** A validator of the kind; with `listMapKeys`, it also rejects repeated list-map keys. */
  compile(kind: KindRegistration, listMapKeys: boolean): ValidateFunction {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv, { formats: ['date-time', 'date', 'byte', 'int32', 'int64', 'float', 'double'] });
    // No JSON Schema format matches these wire forms: register the very checks ours uses.
    ajv.addFormat('duration', { type: 'string', validate: isDuration });
    ajv.addFormat('quantity', { type: 'string', validate: (s: string) => isQuantity(s) });
    if (listMapKeys) {
      const sink = new Collector();
      ajv.addKeyword({
        keyword: 'x-kubernetes-list-map-keys',
        type: 'array',
        schemaType: 'array',
        validate: (keys: string[], items: unknown[]) => {
          checkMapKeysUnique('', items, keys, sink);
          const unique = sink.errors.length === 0;
          sink.errors.length = 0;
          return unique;
        },
      });
    }
    const name = schemaName({ group: kind.group, version: kind.version, name: kind.kind });
    return ajv.compile({ $ref: `#/components/schemas/${name}`, components: { schemas: this.components } });
  }
}

/**
 * OpenAPI 3.0 schema to JSON Schema (draft-07, ajv's default): `nullable` becomes a type union,
 * boolean exclusive bounds become numeric ones, set lists get `uniqueItems`, closed objects get
 * `additionalProperties: false` (so ajv reports unknown fields as ours does), and a raw extension
 * (any JSON) loses its `type: object`.
 */
function toJsonSchema(input: Record<string, unknown>): Record<string, unknown> {
  const s: Record<string, unknown> = { ...input };
  const props = s.properties as Record<string, Record<string, unknown>> | undefined;
  if (props) s.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, toJsonSchema(v)]));
  if (isRecord(s.items)) s.items = toJsonSchema(s.items);
  if (isRecord(s.additionalProperties)) s.additionalProperties = toJsonSchema(s.additionalProperties);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[key])) s[key] = (s[key] as Record<string, unknown>[]).map(toJsonSchema);
  }
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (preserve && !props && s.type === 'object' && !s.additionalProperties) delete s.type;
  // A struct (with properties, or an empty one; not a map, which has additionalProperties) is closed.
  if (s.type === 'object' && s.additionalProperties === undefined && !preserve && s['x-kubernetes-embedded-resource'] !== true)
    s.additionalProperties = false;
  if (s['x-kubernetes-list-type'] === 'set') s.uniqueItems = true;
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (s[flag] === true) {
      s[flag] = s[bound];
      delete s[bound];
    } else if (s[flag] === false) delete s[flag];
  }
  if (s.nullable === true) {
    delete s.nullable;
    if (typeof s.type === 'string') {
      s.type = [s.type, 'null'];
      if (Array.isArray(s.enum)) s.enum = [...s.enum, null];
    } else return { anyOf: [s, { type: 'null' }] };
  }
  return s;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

interface Workload {
  name: string;
  apiVersion: string;
  kind: string;
  doc: unknown;
  valid: boolean;
}

function container(name: string, port: number): coreV1.Container {
  return {
    name,
    image: `registry.example/${name}:1.4.2`,
    command: ['/bin/server'],
    args: ['--port', String(port), '--verbose'],
    ports: [
      { name: 'http', containerPort: port, protocol: 'TCP' },
      { name: 'metrics', containerPort: port + 1000 },
    ],
    env: [
      { name: 'MODE', value: 'production' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ],
    resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m', memory: '128Mi' } },
    volumeMounts: [{ name: 'config', mountPath: '/etc/config', readOnly: true }],
    livenessProbe: { httpGet: { path: '/healthz', port, scheme: 'HTTP' }, initialDelaySeconds: 3, periodSeconds: 10 },
    readinessProbe: { tcpSocket: { port: 'http' }, timeoutSeconds: 2 },
    imagePullPolicy: 'IfNotPresent',
  };
}

const validPod: coreV1.Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-7d4b9c',
    namespace: 'default',
    labels: { app: 'web', tier: 'frontend', release: 'stable' },
    annotations: { 'example.com/owner': 'team-a' },
    creationTimestamp: '2024-05-01T12:00:00Z',
    finalizers: ['example.com/cleanup'],
  },
  spec: {
    containers: [container('web', 8080), container('sidecar', 9090), container('proxy', 7070)],
    volumes: [{ name: 'config', configMap: { name: 'web-config', defaultMode: 420 } }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    serviceAccountName: 'web',
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
  },
};

/** The valid Pod with several structural errors (and one unknown field) spread through it. */
function invalidPod(): unknown {
  const pod = structuredClone(validPod) as unknown as {
    metadata: Record<string, unknown>;
    spec: { containers: Record<string, unknown>[]; [k: string]: unknown };
  };
  pod.metadata.creationTimestamp = 'yesterday';
  pod.metadata.finalizers = ['a', 'a'];
  pod.spec.restartPolicy = 'Sometimes';
  pod.spec.terminationGracePeriodSeconds = '30';
  pod.spec.containers[0]!.name = 'Web_Server';
  (pod.spec.containers[1]!.ports as Record<string, unknown>[])[0]!.containerPort = 70000;
  (pod.spec.containers[0]!.ports as Record<string, unknown>[])[1] = { name: 'http-alt', containerPort: 8080, protocol: 'TCP' };
  pod.spec.containers[2]!.imagePullPolicy = 'Sometimes';
  delete pod.spec.containers[2]!.name;
  pod.spec.containers[2]!.colour = 'blue';
  return pod;
}

const scheduler: svcschedulerConfigV1.SvcSchedulerConfiguration = {
  apiVersion: 'svcscheduler.config.svc.io/v1',
  kind: 'SvcSchedulerConfiguration',
  parallelism: 16,
  leaderElection: {
    leaderElect: true,
    leaseDuration: '15s',
    renewDeadline: '10s',
    retryPeriod: '2s',
    resourceLock: 'leases',
    resourceName: 'svc-scheduler',
    resourceNamespace: 'svc-system',
  },
  clientConnection: { svcconfig: '/etc/svc/scheduler.conf', qps: 50, burst: 100 },
  percentageOfNodesToScore: 50,
  podInitialBackoffSeconds: 1,
  podMaxBackoffSeconds: 10,
  profiles: [
    {
      schedulerName: 'default-scheduler',
      plugins: {
        score: {
          enabled: [
            { name: 'NodeResourcesBalancedAllocation', weight: 1 },
            { name: 'ImageLocality', weight: 2 },
          ],
          disabled: [{ name: 'PodTopologySpread' }],
        },
        filter: { enabled: [{ name: 'NodeAffinity' }] },
      },
      pluginConfig: [
        { name: 'DefaultPreemption', args: { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 } },
        { name: 'VolumeBinding', args: { bindTimeoutSeconds: 600 } },
      ],
    },
    { schedulerName: 'batch-scheduler', percentageOfNodesToScore: 20 },
  ],
  extenders: [
    {
      urlPrefix: 'https://extender.example:8443/scheduler',
      filterVerb: 'filter',
      weight: 1,
      enableHTTPS: true,
      httpTimeout: '30s',
      managedResources: [{ name: 'example.com/gpu', ignoredByScheduler: true }],
    },
  ],
};

const cronJob: batchV1.CronJob = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'nightly-report', namespace: 'reports', labels: { app: 'report' } },
  spec: {
    schedule: '0 2 * * *',
    timeZone: 'Etc/UTC',
    concurrencyPolicy: 'Forbid',
    startingDeadlineSeconds: 300,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
    jobTemplate: {
      metadata: { labels: { app: 'report' } },
      spec: {
        backoffLimit: 4,
        activeDeadlineSeconds: 3600,
        template: {
          metadata: { labels: { app: 'report' } },
          spec: {
            restartPolicy: 'OnFailure',
            containers: [
              {
                name: 'report',
                image: 'registry.example/report:2.0',
                args: ['--since', '24h'],
                resources: { requests: { cpu: '1', memory: '1Gi' } },
              },
            ],
          },
        },
      },
    },
  },
};

const WORKLOADS: Workload[] = [
  { name: 'valid Pod, 3 containers', apiVersion: 'v1', kind: 'Pod', doc: validPod, valid: true },
  { name: 'invalid Pod, 10 problems', apiVersion: 'v1', kind: 'Pod', doc: invalidPod(), valid: false },
  {
    name: 'SvcSchedulerConfiguration',
    apiVersion: 'svcscheduler.config.svc.io/v1',
    kind: 'SvcSchedulerConfiguration',
    doc: scheduler,
    valid: true,
  },
  { name: 'CronJob', apiVersion: 'batch/v1', kind: 'CronJob', doc: cronJob, valid: true },
];
