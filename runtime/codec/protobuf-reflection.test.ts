import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { ProtobufCodecs } from './index.js';

// An independent check of the codec against the emitted .proto files: a plain protobufjs
// reflection decoder (no generated codec, no schema descriptor) reads what the codec writes.
const GENERATED = new URL('../../generated/', import.meta.url).pathname;
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => join(GENERATED, target);
root.loadSync(
  (readdirSync(GENERATED, { recursive: true }) as string[]).filter((f) => f.endsWith('.proto')),
  { keepCase: true },
);
root.resolveAll();

const codecs = new ProtobufCodecs(allProtobufPackages);
const Unknown = root.lookupType('svc.io.api.meta.v1.Unknown');
const WatchEvent = root.lookupType('svc.io.api.meta.v1.WatchEvent');
const toObject = (type: protobuf.Type, bytes: Uint8Array): Record<string, unknown> =>
  type.toObject(type.decode(bytes), { longs: Number, bytes: String });

/** protobufjs reads the envelope and the object; writing it again gives the codec's bytes. */
function readWithProtobufjs(message: string, object: Record<string, unknown>): Record<string, unknown> {
  const bytes = codecs.encode(object);
  expect([...bytes.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
  const unknown = Unknown.decode(bytes.subarray(4)) as unknown as { typeMeta: { apiVersion: string; kind: string }; raw: Uint8Array };
  expect(unknown.typeMeta).toMatchObject({ apiVersion: object.apiVersion, kind: object.kind });
  const type = root.lookupType(message);
  const decoded = type.decode(unknown.raw);
  // Every byte is a field protobufjs knows, with the declared type: re-encoding is byte-identical.
  expect(Buffer.from(type.encode(decoded).finish()).equals(Buffer.from(unknown.raw))).toBe(true);
  return type.toObject(decoded, { longs: Number, bytes: String });
}

describe('the emitted .proto files read the codec output (protobufjs reflection)', () => {
  it('parse and resolve: one file per group/version with messages, and wire.proto', () => {
    expect(root.lookupType('svc.io.wire.Time').fieldsArray.map((f) => `${f.name}=${f.id}`)).toEqual(['seconds=1', 'nanos=2']);
    expect(root.lookupType('svc.io.wire.IntOrString').fieldsArray.map((f) => `${f.name}=${f.id}`)).toEqual([
      'type=1',
      'intVal=2',
      'strVal=3',
    ]);
    expect(root.lookupType('svc.io.api.core.v1.Pod').fieldsArray.map((f) => f.name)).toEqual(['metadata', 'spec', 'status']);
  });

  it('Pod: metadata, times, maps, quantities, int-or-string, embedded structs', () => {
    const pod = readWithProtobufjs('svc.io.api.core.v1.Pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, creationTimestamp: '2024-05-06T07:08:09Z', generation: 3 },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'nginx',
            resources: { limits: { cpu: '500m' } },
            livenessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
          },
        ],
        volumes: [{ name: 'config', configMap: { name: 'cm', defaultMode: 420 } }],
      },
    });
    expect(pod).toEqual({
      metadata: {
        name: 'web',
        namespace: 'default',
        labels: { app: 'web' },
        creationTimestamp: { seconds: Date.parse('2024-05-06T07:08:09Z') / 1000, nanos: 0 },
        generation: 3,
      },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'nginx',
            resources: { limits: { cpu: { string: '500m' } } },
            livenessProbe: { probeHandler: { httpGet: { path: '/', port: { type: 1, intVal: 0, strVal: 'http' } } }, periodSeconds: 5 },
          },
        ],
        volumes: [{ name: 'config', volumeSource: { configMap: { localObjectReference: { name: 'cm' }, defaultMode: 420 } } }],
      },
    });
  });

  it('Service, Secret (bytes), Event, Namespace status', () => {
    const service = readWithProtobufjs('svc.io.api.core.v1.Service', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { ports: [{ port: 80, targetPort: 8080 }], type: 'ClusterIP' },
    });
    expect(service.spec).toEqual({ ports: [{ port: 80, targetPort: { type: 0, intVal: 8080, strVal: '' } }], type: 'ClusterIP' });
    const secret = readWithProtobufjs('svc.io.api.core.v1.Secret', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { token: 'aGVsbG8=' },
    });
    expect(secret.data).toEqual({ token: 'aGVsbG8=' });
    const event = readWithProtobufjs('svc.io.api.core.v1.Event', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod', name: 'p' },
      reason: 'Started',
      count: 2,
    });
    expect(event).toMatchObject({ involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', count: 2 });
    const ns = readWithProtobufjs('svc.io.api.core.v1.Namespace', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n', finalizers: ['a', 'b'] },
      status: { phase: 'Active' },
    });
    expect(ns).toEqual({ metadata: { name: 'n', finalizers: ['a', 'b'] }, status: { phase: 'Active' } });
  });

  it('CronJob (nested Pod template), HorizontalPodAutoscaler (quantities), SubjectAccessReview (map of lists)', () => {
    const cron = readWithProtobufjs('svc.io.api.batch.v1.CronJob', {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c' },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } } } },
      },
    });
    expect(cron.spec).toMatchObject({
      schedule: '*/5 * * * *',
      jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
    });
    const hpa = readWithProtobufjs('svc.io.api.autoscaling.v2.HorizontalPodAutoscaler', {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h' },
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'd' },
        maxReplicas: 5,
        metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } }],
      },
    });
    expect(hpa.spec).toMatchObject({ maxReplicas: 5, metrics: [{ resource: { target: { averageValue: { string: '1Gi' } } } }] });
    const review = readWithProtobufjs('svc.io.api.authorization.v1.SubjectAccessReview', {
      apiVersion: 'authorization.svc.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'u', extra: { scopes: ['a', 'b'] } },
    });
    expect(review.spec).toEqual({ user: 'u', extra: { scopes: { items: ['a', 'b'] } } });
  });

  it('Status, Table (raw extensions as JSON) and a watch frame', () => {
    const status = readWithProtobufjs('svc.io.api.meta.v1.Status', {
      apiVersion: 'v1',
      kind: 'Status',
      status: 'Failure',
      code: 404,
      reason: 'NotFound',
      details: { name: 'x', kind: 'pods' },
    });
    expect(status).toMatchObject({ status: 'Failure', code: 404, reason: 'NotFound', details: { name: 'x', kind: 'pods' } });
    const table = readWithProtobufjs('svc.io.api.meta.v1.Table', {
      apiVersion: 'meta.svc.io/v1',
      kind: 'Table',
      columnDefinitions: [{ name: 'Name', type: 'string' }],
      rows: [{ cells: ['a', 3] }],
    });
    const cells = (table.rows as { cells: { raw: string }[] }[])[0]!.cells.map(
      (c) => JSON.parse(Buffer.from(c.raw, 'base64').toString('utf8')) as unknown,
    );
    expect(cells).toEqual(['a', 3]);

    const frame = codecs.encodeWatchEvent('MODIFIED', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } });
    const length = new DataView(frame.buffer, frame.byteOffset).getUint32(0, false);
    const event = WatchEvent.decode(frame.subarray(4, 4 + length)) as unknown as { type: string; object: { raw: Uint8Array } };
    expect(event.type).toBe('MODIFIED');
    const unknown = toObject(Unknown, event.object.raw.subarray(4));
    expect(unknown.typeMeta).toEqual({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(toObject(root.lookupType('svc.io.api.core.v1.ConfigMap'), Buffer.from(unknown.raw as string, 'base64'))).toEqual({
      metadata: { name: 'cm' },
      data: { a: 'b' },
    });
  });
});
