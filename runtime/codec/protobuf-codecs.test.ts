import { describe, expect, it } from 'vitest';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { ProtobufCodecs, WatchFrameReader, decodeEnvelope, isProtobufCodecError, isProtobufEnvelopeError } from './index.js';
import type { ObjectSchema } from '../schema/index.js';
import { canonicalJson } from '../json/index.js';

const codecs = new ProtobufCodecs(allProtobufPackages);
const trip = (object: Record<string, unknown>): Record<string, unknown> => codecs.decode(codecs.encode(object));
const pod = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'p' }): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata,
  spec,
});

function codecError(fn: () => unknown): { path: string; detail: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isProtobufCodecError(error)) return error;
    throw error;
  }
  throw new Error('expected a ProtobufCodecError');
}

describe('ProtobufCodecs: empty and absent', () => {
  it('keeps empty strings, zeros, false and empty objects, which are present on the wire', () => {
    const doc = pod({
      containers: [{ name: '', image: '', ports: [{ containerPort: 0 }], resources: {} }],
      hostNetwork: false,
      volumes: [{ name: 'v', emptyDir: {} }],
    });
    expect(canonicalJson(trip(doc))).toBe(canonicalJson(doc));
  });

  it('drops empty lists and maps, and null fields: Protobuf cannot tell them from absent (documented)', () => {
    const back = trip(pod({ containers: [], nodeSelector: {}, hostname: null }, { name: 'p', labels: {}, finalizers: [] }));
    expect(back).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} });
  });

  it('keeps an empty list that is a map value (it travels in a wrapper message)', () => {
    const review = {
      apiVersion: 'authorization.svc.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'u', extra: { scopes: [], groups: ['a', 'b'] } },
    };
    expect(canonicalJson(trip(review))).toBe(canonicalJson(review));
  });

  it('drops apiVersion and kind below the top (no Protobuf number) and fields the schema does not know', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: '7' },
      items: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, unknown: 1 }],
    };
    expect(trip(list)).toEqual({
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: '7' },
      items: [{ metadata: { name: 'a' } }],
    });
  });
});

describe('ProtobufCodecs: wire forms', () => {
  it('int-or-string keeps which of the two it was, even for digit strings', () => {
    const probe = { httpGet: { port: '8080' }, tcpSocket: { port: 8080 } };
    const back = trip(pod({ containers: [{ name: 'c', livenessProbe: probe }] }));
    expect((back.spec as { containers: { livenessProbe: unknown }[] }).containers[0]!.livenessProbe).toEqual(probe);
  });

  it('quantities keep their text; a JSON number reads back as its text (documented)', () => {
    const back = trip(pod({ containers: [{ name: 'c', resources: { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: 2 } } }] }));
    expect((back.spec as { containers: { resources: unknown }[] }).containers[0]!.resources).toEqual({
      limits: { cpu: '500m', memory: '1Gi' },
      requests: { cpu: '2' },
    });
  });

  it('timestamps read back as canonical UTC RFC 3339 (offsets, lower case and extra digits normalize; documented)', () => {
    const stamps: [string, string][] = [
      ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z'],
      ['2024-01-02T03:04:05.5Z', '2024-01-02T03:04:05.500Z'],
      ['2024-01-02T03:04:05.000001Z', '2024-01-02T03:04:05.000001Z'],
      ['2024-01-02T03:04:05.123456789123Z', '2024-01-02T03:04:05.123456789Z'],
      ['2024-01-02t05:04:05+02:00', '2024-01-02T03:04:05Z'],
      ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00Z'],
      ['1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999Z'],
    ];
    for (const [input, output] of stamps) {
      const back = trip(pod({}, { name: 'p', creationTimestamp: input }));
      expect((back.metadata as { creationTimestamp: string }).creationTimestamp, input).toBe(output);
    }
  });

  it('durations read back in Go form (documented: 90s reads back as 1m30s)', () => {
    const config = (d: string): Record<string, unknown> => ({
      apiVersion: 'svcproxy.config.svc.io/v1alpha1',
      kind: 'SvcProxyConfiguration',
      configSyncPeriod: d,
    });
    expect(trip(config('90s')).configSyncPeriod).toBe('1m30s');
    expect(trip(config('2562047h47m16.854775807s')).configSyncPeriod).toBe('2562047h47m16.854775807s');
    expect(trip(config('-1.5h')).configSyncPeriod).toBe('-1h30m0s');
  });

  it('bytes read back as padded standard base64', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'aGk=', b: 'aGk', c: '' } };
    expect(trip(secret).data).toEqual({ a: 'aGk=', b: 'aGk=', c: '' });
  });

  it('raw extensions keep any JSON, null included inside lists', () => {
    const table = {
      apiVersion: 'meta.svc.io/v1',
      kind: 'Table',
      columnDefinitions: [{ name: 'Name', type: 'string' }],
      rows: [{ cells: ['a', 1, null, { x: [true] }], object: { kind: 'PartialObjectMetadata' } }],
    };
    expect(canonicalJson(trip(table))).toBe(canonicalJson(table));
  });

  it('nests embedded structs as one message (Volume.volumeSource, ConfigMapKeySelector.localObjectReference)', () => {
    const doc = pod({
      volumes: [{ name: 'v', configMap: { name: 'cm', items: [{ key: 'k', path: 'p' }] } }],
      containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }] }],
    });
    expect(canonicalJson(trip(doc))).toBe(canonicalJson(doc));
  });

  it('keeps the key __proto__ of a map as data', () => {
    const doc = JSON.parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"__proto__":"x"}}') as Record<
      string,
      unknown
    >;
    const back = trip(doc);
    expect(Object.keys(back.data as object)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(back.data)).toBe(Object.prototype);
  });

  it('writes fields in field-number order and apiVersion, kind first when reading', () => {
    const back = trip({ kind: 'ConfigMap', data: { a: 'b' }, immutable: true, metadata: { name: 'c' }, apiVersion: 'v1' });
    expect(Object.keys(back)).toEqual(['apiVersion', 'kind', 'metadata', 'data', 'immutable']);
  });
});

describe('ProtobufCodecs: errors', () => {
  it('names the field and what it expected when a value does not fit', () => {
    const e = codecError(() => codecs.encode(pod({ containers: [{ name: 'c', ports: [{ containerPort: 'eighty' }] }] })));
    expect(e.path).toBe('.spec.containers[0].ports[0].containerPort');
    expect(e.message).toBe(
      'cannot encode Pod as Protobuf: .spec.containers[0].ports[0].containerPort: expected a 32-bit integer, got the string "eighty"',
    );
    expect(codecError(() => codecs.encode(pod({}, { name: 'p', creationTimestamp: 'yesterday' }))).detail).toContain(
      'is not an RFC 3339 timestamp',
    );
    expect(codecError(() => codecs.encode(pod({}, { name: 'p', labels: { a: 1 } }))).path).toBe('.metadata.labels["a"]');
    expect(codecError(() => codecs.encode(pod({ containers: [null] }))).path).toBe('.spec.containers[0]');
  });

  it('refuses kinds without a Protobuf message (custom resources) and objects without apiVersion or kind', () => {
    expect(codecs.supports('stable.example.svc.io/v1', 'CronTab')).toBe(false);
    expect(codecs.supports('v1', 'Pod')).toBe(true);
    expect(codecError(() => codecs.encode({ apiVersion: 'stable.example.svc.io/v1', kind: 'CronTab' })).message).toContain(
      'CronTab of stable.example.svc.io/v1 has no Protobuf message',
    );
    expect(codecError(() => codecs.encode({ metadata: {} })).message).toContain('needs apiVersion and kind');
  });

  it('rejects bytes that end inside a field or carry a wrong wire type', () => {
    const bytes = codecs.encodeMessage('v1', 'Pod', pod({ containers: [{ name: 'c' }] }));
    expect(isProtobufCodecError(catchError(() => codecs.decodeMessage('v1', 'Pod', bytes.subarray(0, bytes.length - 1))))).toBe(true);
    // metadata (1) as a varint instead of a message
    const e = codecError(() => codecs.decodeMessage('v1', 'Pod', Uint8Array.of(0x08, 0x01)));
    expect(e.message).toBe('cannot decode Pod as Protobuf: .metadata: unexpected wire type 0');
  });

  it('reads packed repeated scalars too (proto3 writers pack them)', () => {
    const schema: ObjectSchema = {
      type: 'object',
      typeName: 'test.Numbers',
      fields: [{ name: 'n', schema: { type: 'list', items: { type: 'integer', format: 'int32' } }, proto: 1 }],
    };
    const numbers = new ProtobufCodecs([
      { package: 'test', file: 'test.proto', kinds: [{ apiVersion: 'test/v1', kind: 'Numbers', schema }], embedded: [] },
    ]);
    const unpacked = numbers.encodeMessage('test/v1', 'Numbers', { n: [1, 300, -1] });
    expect([...unpacked.subarray(0, 4)]).toEqual([0x08, 0x01, 0x08, 0xac]);
    const packed = Uint8Array.of(0x0a, 0x03, 0x01, 0xac, 0x02);
    expect(numbers.decodeMessage('test/v1', 'Numbers', packed)).toEqual({ apiVersion: 'test/v1', kind: 'Numbers', n: [1, 300] });
    expect(numbers.decodeMessage('test/v1', 'Numbers', unpacked).n).toEqual([1, 300, -1]);
  });
});

describe('ProtobufCodecs: envelope and watch frames', () => {
  it('wraps an object in the envelope: magic bytes, then Unknown with typeMeta and raw', () => {
    const bytes = codecs.encode(pod({}));
    expect([...bytes.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    const envelope = decodeEnvelope(bytes);
    expect(envelope).toMatchObject({ apiVersion: 'v1', kind: 'Pod', contentEncoding: '', contentType: '' });
    expect(codecs.decodeMessage('v1', 'Pod', envelope.raw)).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} });
  });

  it('frames watch events with a 4-byte big-endian length; a reader reassembles split chunks', () => {
    const events = [codecs.encodeWatchEvent('ADDED', pod({}, { name: 'a' })), codecs.encodeWatchEvent('DELETED', pod({}, { name: 'b' }))];
    const stream = Buffer.concat(events);
    expect(new DataView(stream.buffer, stream.byteOffset).getUint32(0, false)).toBe(events[0]!.length - 4);
    const reader = new WatchFrameReader();
    const frames = [...stream].flatMap((b) => reader.push(Uint8Array.of(b)));
    expect(reader.buffered).toBe(0);
    expect(frames.map((f) => codecs.decodeWatchEvent(f))).toEqual([
      { type: 'ADDED', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: {} } },
      { type: 'DELETED', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b' }, spec: {} } },
    ]);
  });

  it('encodes an ERROR event with a Status', () => {
    const status = { apiVersion: 'v1', kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message: 'too old' };
    const [frame] = new WatchFrameReader().push(codecs.encodeWatchEvent('ERROR', status));
    expect(codecs.decodeWatchEvent(frame!)).toEqual({ type: 'ERROR', object: expect.objectContaining({ code: 410, reason: 'Expired' }) });
  });

  it('throws a typed error for JSON or anything else sent as Protobuf', () => {
    const e = catchError(() => codecs.decode(new TextEncoder().encode('{"kind":"Pod"}')));
    expect(isProtobufEnvelopeError(e) && e.problem).toBe('missing-prefix');
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
