import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type DescMessage, create, createFileRegistry, fromBinary, toBinary } from '@bufbuild/protobuf';
import { type DescriptorProto, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { formatDuration, parseDurationNanoseconds } from '../../runtime/api/index.js';
import { ProtobufCodecs, formatTimestamp, parseTimestamp } from '../../runtime/codec/index.js';
import { GZIP_LEVEL } from '../../runtime/compression/index.js';
import { type ObjectSchema, type SchemaNode, deref } from '../../runtime/schema/index.js';
import { type BenchCase, runCases } from './harness.js';

const GENERATED = new URL('../../generated/', import.meta.url).pathname;
const PODS = 500;
/** Encodes or decodes per timed run, so that one run takes about a hundred milliseconds. */
const REPEAT = 10;
/** Timed runs per side: the JIT needs a few before it settles. */
const RUNS = 15;

type Json = Record<string, unknown>;

/**
 * Protobuf on a PodList of 500 realistic Pods: our codec (descriptor-driven, on protobufjs'
 * Writer/Reader) against JSON.stringify/JSON.parse; bytes on the wire for JSON, gzip JSON and
 * Protobuf; and the codec strategies that docs/decisions.md ("Protobuf codecs") chose between:
 * protobufjs reflection (a Root from the emitted .proto files) and @bufbuild/protobuf (a registry
 * from the same files), each with the JSON <-> message conversion it needs for the wire forms
 * (Time, IntOrString, Quantity, embedded structs), compiled once per type as ours is.
 */
export async function benchProtobuf(): Promise<void> {
  const codecs = new ProtobufCodecs(allProtobufPackages);
  const list = podList(PODS);
  const json = JSON.stringify(list);
  const bytes = codecs.encode(list);
  const check = codecs.decode(bytes);
  if (JSON.stringify(sortKeys(check)) !== JSON.stringify(sortKeys(list))) throw new Error('the PodList does not read back as written');
  const events = list.items.map((pod) => ({ ...(pod as Json), apiVersion: 'v1', kind: 'Pod' }));
  const repeat = (fn: () => unknown) => () => {
    for (let i = 0; i < REPEAT; i++) fn();
  };
  const withRuns = (cases: BenchCase[]): BenchCase[] => cases.map((c) => ({ runs: RUNS, ...c }));

  await runCases(
    `Protobuf (ours) vs JSON: PodList of ${PODS} Pods, ${REPEAT}x per run`,
    withRuns([
      {
        name: 'encode (envelope)',
        ours: repeat(() => codecs.encode(list)),
        peer: { name: 'JSON.stringify', run: repeat(() => JSON.stringify(list)) },
      },
      {
        name: 'decode (envelope)',
        ours: repeat(() => codecs.decode(bytes)),
        peer: { name: 'JSON.parse', run: repeat(() => JSON.parse(json)) },
      },
      {
        name: `watch: ${PODS} events, encode`,
        ours: repeat(() => events.map((e) => codecs.encodeWatchEvent('MODIFIED', e))),
        peer: { name: 'JSON.stringify event', run: repeat(() => events.map((e) => JSON.stringify({ type: 'MODIFIED', object: e }))) },
      },
    ]),
  );

  const wire: [string, number][] = [
    ['JSON', Buffer.byteLength(json)],
    [`gzip JSON (level ${GZIP_LEVEL}, as served)`, gzipSync(json, { level: GZIP_LEVEL }).length],
    ['gzip JSON (level 6)', gzipSync(json).length],
    ['Protobuf', bytes.length],
    [`gzip Protobuf (level ${GZIP_LEVEL})`, gzipSync(bytes, { level: GZIP_LEVEL }).length],
  ];
  process.stdout.write(`\n## Bytes on the wire: PodList of ${PODS} Pods\n`);
  for (const [name, size] of wire)
    process.stdout.write(`${name.padEnd(34)} ${String(size).padStart(9)} bytes  ${(size / wire[0]![1]).toFixed(3)}x JSON\n`);

  const reflection = new ReflectionPeer();
  const buf = new BufPeer(reflection.root);
  const schema = allProtobufPackages.flatMap((p) => p.kinds).find((k) => k.kind === 'PodList')!.schema;
  const raw = codecs.encodeMessage('v1', 'PodList', list);
  for (const [name, peer] of [
    ['protobufjs reflection', reflection],
    ['@bufbuild/protobuf', buf],
  ] as const) {
    const back = peer.decode(schema, peer.encode(schema, list));
    const a = JSON.stringify(sortKeys({ apiVersion: 'v1', kind: 'PodList', ...back }));
    const b = JSON.stringify(sortKeys(list));
    if (a !== b) {
      let i = 0;
      while (a[i] === b[i]) i++;
      throw new Error(`${name} does not read back the PodList: ${a.slice(i - 80, i + 80)} vs ${b.slice(i - 80, i + 80)}`);
    }
    if (!Buffer.from(peer.encode(schema, list)).equals(Buffer.from(raw))) throw new Error(`${name} writes other bytes than ours`);
  }
  const prepared = reflection.prepare(schema, list);
  const cases: BenchCase[] = [
    {
      name: 'encode (message)',
      ours: repeat(() => codecs.encodeMessage('v1', 'PodList', list)),
      peer: { name: 'protobufjs reflection', run: repeat(() => reflection.encode(schema, list)) },
    },
    {
      name: 'decode (message)',
      ours: repeat(() => codecs.decodeMessage('v1', 'PodList', raw)),
      peer: { name: 'protobufjs reflection', run: repeat(() => reflection.decode(schema, raw)) },
    },
    {
      name: 'encode, conversion left out',
      ours: repeat(() => codecs.encodeMessage('v1', 'PodList', list)),
      peer: { name: 'protobufjs encode only', run: repeat(() => reflection.encodePrepared(prepared)) },
    },
    {
      name: 'decode, conversion left out',
      ours: repeat(() => codecs.decodeMessage('v1', 'PodList', raw)),
      peer: { name: 'protobufjs decode only', run: repeat(() => reflection.decodeOnly(raw)) },
    },
    {
      name: 'encode (message)',
      ours: repeat(() => codecs.encodeMessage('v1', 'PodList', list)),
      peer: { name: '@bufbuild/protobuf', run: repeat(() => buf.encode(schema, list)) },
    },
    {
      name: 'decode (message)',
      ours: repeat(() => codecs.decodeMessage('v1', 'PodList', raw)),
      peer: { name: '@bufbuild/protobuf', run: repeat(() => buf.decode(schema, raw)) },
    },
  ];
  await runCases(`Codec strategies: PodList of ${PODS} Pods (bytes identical to ours), ${REPEAT}x per run`, withRuns(cases));
}

/** A PodList of `count` Pods shaped like a real cluster's (metadata, two containers, probes, volumes, status). */
export function podList(count: number): Json & { items: unknown[] } {
  // Deterministic, varied values (uids, times, addresses) so that gzip sees realistic entropy.
  const hex = (i: number, salt: number, length: number): string => {
    let x = (i + 1) * 2654435761 + salt * 40503;
    let out = '';
    while (out.length < length) {
      x = (x * 1103515245 + 12345) % 2147483648;
      out += (x >>> 8).toString(16).padStart(6, '0');
    }
    return out.slice(0, length);
  };
  const time = (i: number, offset: number): string =>
    `${new Date(Date.UTC(2024, 2, 1) + i * 61_000 + offset * 1000).toISOString().slice(0, 19)}Z`;
  const items = Array.from({ length: count }, (_, i) => ({
    metadata: {
      name: `web-7d9f8c6b5-${hex(i, 1, 5)}`,
      generateName: 'web-7d9f8c6b5-',
      namespace: 'production',
      uid: `${hex(i, 2, 8)}-${hex(i, 3, 4)}-4${hex(i, 4, 3)}-9${hex(i, 5, 3)}-${hex(i, 6, 12)}`,
      resourceVersion: String(100000 + i * 7),
      creationTimestamp: time(i, 0),
      labels: { app: 'web', 'pod-template-hash': '7d9f8c6b5', tier: 'frontend' },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-7d9f8c6b5',
          uid: '3b2a1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      volumes: [
        { name: 'config', configMap: { name: 'web-config', defaultMode: 420 } },
        { name: 'cache', emptyDir: { sizeLimit: '1Gi' } },
      ],
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/web:1.42.0',
          args: ['--port=8080', '--log-level=info'],
          ports: [
            { name: 'http', containerPort: 8080, protocol: 'TCP' },
            { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
          ],
          env: [
            { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
            { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
            { name: 'MODE', value: 'production' },
          ],
          resources: { limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '250m', memory: '256Mi' } },
          volumeMounts: [
            { name: 'config', mountPath: '/etc/web', readOnly: true },
            { name: 'cache', mountPath: '/var/cache/web' },
          ],
          livenessProbe: {
            httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
            initialDelaySeconds: 10,
            periodSeconds: 10,
            timeoutSeconds: 1,
            successThreshold: 1,
            failureThreshold: 3,
          },
          readinessProbe: {
            httpGet: { path: '/ready', port: 8080, scheme: 'HTTP' },
            periodSeconds: 5,
            timeoutSeconds: 1,
            successThreshold: 1,
            failureThreshold: 3,
          },
          imagePullPolicy: 'IfNotPresent',
        },
        {
          name: 'sidecar',
          image: 'registry.example.com/proxy:2.1.0',
          ports: [{ name: 'proxy', containerPort: 15001, protocol: 'TCP' }],
          resources: { limits: { cpu: '100m', memory: '128Mi' }, requests: { cpu: '50m', memory: '64Mi' } },
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'web',
      nodeName: `node-${i % 20}`,
    },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Initialized', status: 'True', lastTransitionTime: time(i, 1) },
        { type: 'Ready', status: 'True', lastTransitionTime: time(i, 24) },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: time(i, 24) },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: time(i, 0) },
      ],
      hostIP: `10.0.${i % 20}.1`,
      podIP: `10.244.${i % 250}.${(i % 200) + 2}`,
      startTime: time(i, 0),
      containerStatuses: [
        {
          name: 'web',
          ready: true,
          restartCount: i % 3,
          image: 'registry.example.com/web:1.42.0',
          imageID: 'registry.example.com/web@sha256:4f0c2a9d8e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a',
          started: true,
          state: { running: { startedAt: time(i, 5) } },
        },
        {
          name: 'sidecar',
          ready: true,
          restartCount: 0,
          image: 'registry.example.com/proxy:2.1.0',
          imageID: 'registry.example.com/proxy@sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9',
          started: true,
          state: { running: { startedAt: time(i, 4) } },
        },
      ],
    },
  }));
  return { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '123456' }, items };
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Json)[k])]),
  );
}

// ---- The peers: JSON <-> message-shaped objects, compiled per type, then the library's codec ----

/** How a peer library represents the values whose JSON form differs from the message. */
interface Shapes {
  int64(n: number): unknown;
  bytes(base64: string): Uint8Array;
  readInt64(v: unknown): number;
  readBytes(v: Uint8Array): string;
  /** Whether a decoded message has the field (proto2 presence). */
  has(message: Json, field: string): boolean;
}

type Convert = (value: unknown) => unknown;

/** Converters between JSON and one library's message objects, driven by the schema descriptors. */
class Converter {
  private readonly toCache = new Map<ObjectSchema, Convert>();
  private readonly fromCache = new Map<ObjectSchema, Convert>();
  private readonly embedded = new Map<ObjectSchema, Map<number, ObjectSchema>>();

  constructor(private readonly shapes: Shapes) {
    for (const p of allProtobufPackages)
      for (const e of p.embedded)
        this.embedded.set(e.owner, (this.embedded.get(e.owner) ?? new Map<number, ObjectSchema>()).set(e.number, e.type));
  }

  toMessage(schema: ObjectSchema): Convert {
    let fn = this.toCache.get(schema);
    if (fn) return fn;
    const fields: [string, string, Convert, ObjectSchema | undefined][] = [];
    fn = (value) => {
      const v = value as Json;
      const out: Json = {};
      for (const [json, proto, convert, inner] of fields) {
        if (inner) out[proto] = convert(v);
        else if (v[json] !== undefined && v[json] !== null) out[proto] = convert(v[json]);
      }
      return out;
    };
    this.toCache.set(schema, fn);
    const groups = new Set<number>();
    for (const f of schema.fields) {
      if (f.embeddedProto !== undefined) {
        if (groups.has(f.embeddedProto)) continue;
        groups.add(f.embeddedProto);
        const type = this.embedded.get(schema)!.get(f.embeddedProto)!;
        const names = new Set(schema.fields.filter((g) => g.embeddedProto === f.embeddedProto).map((g) => g.name));
        const inner: ObjectSchema = { ...type, fields: type.fields.filter((g) => names.has(g.name)) };
        fields.push(['', lowerFirst(type.typeName!.split('.').pop()!), this.toMessage(inner), inner]);
      } else if (f.proto !== undefined) fields.push([f.name, f.name, this.toValue(f.schema), undefined]);
    }
    return fn;
  }

  fromMessage(schema: ObjectSchema): Convert {
    let fn = this.fromCache.get(schema);
    if (fn) return fn;
    const fields: [string, string, Convert, ObjectSchema | undefined][] = [];
    fn = (value) => {
      const m = value as Json;
      return this.readInto(m, fields, {});
    };
    this.fromCache.set(schema, fn);
    const groups = new Set<number>();
    for (const f of schema.fields) {
      if (f.embeddedProto !== undefined) {
        if (groups.has(f.embeddedProto)) continue;
        groups.add(f.embeddedProto);
        const type = this.embedded.get(schema)!.get(f.embeddedProto)!;
        const names = new Set(schema.fields.filter((g) => g.embeddedProto === f.embeddedProto).map((g) => g.name));
        const inner: ObjectSchema = { ...type, fields: type.fields.filter((g) => names.has(g.name)) };
        fields.push(['', lowerFirst(type.typeName!.split('.').pop()!), this.fromMessage(inner), inner]);
      } else if (f.proto !== undefined) fields.push([f.name, f.name, this.fromValue(f.schema), undefined]);
    }
    return fn;
  }

  private readInto(m: Json, fields: [string, string, Convert, ObjectSchema | undefined][], out: Json): Json {
    for (const [json, proto, convert, inner] of fields) {
      if (!this.shapes.has(m, proto)) continue;
      const v = m[proto];
      if (inner) Object.assign(out, convert(v));
      else if (Array.isArray(v)) {
        if (v.length > 0) out[json] = convert(v);
      } else {
        const converted = convert(v);
        if (converted !== undefined) out[json] = converted;
      }
    }
    return out;
  }

  private toValue(schema: SchemaNode): Convert {
    const n = deref(schema);
    switch (n.type) {
      case 'integer':
        return n.format === 'int32' ? (v) => v : (v) => this.shapes.int64(v as number);
      case 'bytes':
        return (v) => this.shapes.bytes(v as string);
      case 'date-time':
        return (v) => {
          const t = parseTimestamp(v as string);
          return { seconds: this.shapes.int64(t.seconds), nanos: t.nanos };
        };
      case 'duration':
        return (v) => ({ duration: this.shapes.int64(Number(parseDurationNanoseconds(v as string))) });
      case 'quantity':
        return (v) => ({ string: String(v) });
      case 'int-or-string':
        return (v) =>
          typeof v === 'string'
            ? { type: this.shapes.int64(1), intVal: 0, strVal: v }
            : { type: this.shapes.int64(0), intVal: v, strVal: '' };
      case 'raw':
        return (v) => ({ raw: Buffer.from(JSON.stringify(v)) });
      case 'object':
        return n.embeddedResource || n.preserveUnknown ? (v) => ({ raw: Buffer.from(JSON.stringify(v)) }) : (v) => this.toMessage(n)(v);
      case 'list': {
        const item = this.toValue(n.items);
        return (v) => (v as unknown[]).map(item);
      }
      case 'map': {
        const value = this.toValue(n.values);
        return (v) => Object.fromEntries(Object.entries(v as Json).map(([k, x]) => [k, value(x)]));
      }
      default:
        return (v) => v;
    }
  }

  private fromValue(schema: SchemaNode): Convert {
    const n = deref(schema);
    switch (n.type) {
      case 'integer':
        return n.format === 'int32' ? (v) => v : (v) => this.shapes.readInt64(v);
      case 'bytes':
        return (v) => this.shapes.readBytes(v as Uint8Array);
      case 'date-time':
        return (v) => formatTimestamp(this.shapes.readInt64((v as Json).seconds), (v as Json).nanos as number);
      case 'duration':
        return (v) => formatDuration(this.shapes.readInt64((v as Json).duration));
      case 'quantity':
        return (v) => (v as Json).string;
      case 'int-or-string':
        return (v) => (this.shapes.readInt64((v as Json).type) === 1 ? (v as Json).strVal : (v as Json).intVal);
      case 'raw':
        return (v) => JSON.parse(Buffer.from((v as Json).raw as Uint8Array).toString()) as unknown;
      case 'object':
        return n.embeddedResource || n.preserveUnknown
          ? (v) => JSON.parse(Buffer.from((v as Json).raw as Uint8Array).toString()) as unknown
          : (v) => this.fromMessage(n)(v);
      case 'list': {
        const item = this.fromValue(n.items);
        return (v) => (v as unknown[]).map(item);
      }
      case 'map': {
        const value = this.fromValue(n.values);
        // Decoders hand an empty map for an absent one: absent, as JSON has it.
        return (v) => {
          const entries = Object.entries(v as Json);
          return entries.length === 0 ? undefined : Object.fromEntries(entries.map(([k, x]) => [k, value(x)]));
        };
      }
      default:
        return (v) => v;
    }
  }
}

function lowerFirst(text: string): string {
  return text[0]!.toLowerCase() + text.slice(1);
}

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(GENERATED, target);
  root.loadSync(
    (readdirSync(GENERATED, { recursive: true }) as string[]).filter((f) => f.endsWith('.proto')),
    { keepCase: true },
  );
  root.resolveAll();
  return root;
}

/** protobufjs reflection: Type.encode/decode (code it generates at run time, as static code would be). */
class ReflectionPeer {
  readonly root = loadRoot();
  private readonly type = this.root.lookupType('svc.io.api.core.v1.PodList');
  private readonly convert = new Converter({
    int64: (n) => n,
    bytes: (b) => Buffer.from(b, 'base64'),
    readInt64: (v) => (typeof v === 'number' ? v : (v as { toNumber(): number }).toNumber()),
    readBytes: (v) => Buffer.from(v).toString('base64'),
    has: (m, f) => Object.hasOwn(m, f),
  });

  prepare(schema: ObjectSchema, value: Json): Json {
    return this.convert.toMessage(schema)(value) as Json;
  }

  encode(schema: ObjectSchema, value: Json): Uint8Array {
    return this.type.encode(this.prepare(schema, value)).finish();
  }

  encodePrepared(prepared: Json): Uint8Array {
    return this.type.encode(prepared).finish();
  }

  decodeOnly(bytes: Uint8Array): protobuf.Message {
    return this.type.decode(bytes);
  }

  decode(schema: ObjectSchema, bytes: Uint8Array): Json {
    return this.convert.fromMessage(schema)(this.type.decode(bytes)) as Json;
  }
}

/** @bufbuild/protobuf: a registry built from the same .proto files (through protobufjs' descriptor). */
class BufPeer {
  private readonly desc: DescMessage;
  private readonly convert = new Converter({
    int64: (n) => BigInt(n),
    bytes: (b) => Buffer.from(b, 'base64'),
    readInt64: (v) => Number(v),
    readBytes: (v) => Buffer.from(v).toString('base64'),
    has: (m, f) => Object.hasOwn(m, f),
  });

  constructor(root: protobuf.Root) {
    this.desc = bufRegistry(root).getMessage('svc.io.api.core.v1.PodList')!;
  }

  encode(schema: ObjectSchema, value: Json): Uint8Array {
    return toBinary(this.desc, create(this.desc, this.convert.toMessage(schema)(value) as never));
  }

  decode(schema: ObjectSchema, bytes: Uint8Array): Json {
    return this.convert.fromMessage(schema)(fromBinary(this.desc, bytes)) as Json;
  }
}

/**
 * A @bufbuild/protobuf registry from protobufjs' FileDescriptorSet of the emitted files, with the
 * type names made absolute, the imports listed and the files in dependency order (protobufjs leaves
 * all three to a compiler).
 */
function bufRegistry(root: protobuf.Root): ReturnType<typeof createFileRegistry> {
  const set = (root as unknown as { toDescriptor(syntax: string): protobuf.Message }).toDescriptor('proto2');
  const fds = fromBinary(
    FileDescriptorSetSchema,
    (descriptor as unknown as { FileDescriptorSet: protobuf.Type }).FileDescriptorSet.encode(set).finish(),
  );
  const packages = fds.file.map((f) => f.package).sort((a, b) => b.length - a.length);
  const fileOf = new Map(fds.file.map((f) => [f.package, f.name]));
  for (const file of fds.file) {
    const deps = new Set<string>();
    const fix = (m: DescriptorProto, prefix: string, parent?: protobuf.Type): void => {
      const type = root.lookup(`${prefix}.${m.name}`) as protobuf.Type | null;
      const mapField = type ? undefined : parent?.fieldsArray.find((f) => f.map && m.name.toLowerCase().startsWith(f.name.toLowerCase()));
      for (const f of m.field) {
        if (!f.typeName) continue;
        if (type?.fields[f.name]?.map) {
          f.typeName = `${type.fullName}.${f.typeName}`;
          continue;
        }
        const target = type ? type.fields[f.name]!.resolvedType : f.name === 'value' ? mapField?.resolvedType : null;
        if (!target) continue;
        f.typeName = target.fullName;
        const owner = packages.find((p) => target.fullName.startsWith(`.${p}.`))!;
        if (owner !== file.package) deps.add(fileOf.get(owner)!);
      }
      for (const n of m.nestedType) fix(n, `${prefix}.${m.name}`, type ?? undefined);
    };
    for (const m of file.messageType) fix(m, file.package);
    file.dependency = [...deps];
  }
  const ordered: typeof fds.file = [];
  const visit = (f: (typeof fds.file)[number]): void => {
    if (ordered.includes(f)) return;
    for (const d of f.dependency) visit(fds.file.find((x) => x.name === d)!);
    ordered.push(f);
  };
  fds.file.forEach(visit);
  fds.file = ordered;
  return createFileRegistry(fds);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchProtobuf();
