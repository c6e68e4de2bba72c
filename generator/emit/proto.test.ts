import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { codegen } from '../index.js';
import { tempTree } from '../temp-tree.testing.js';
import { protoPackage } from './index.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SVCKIT_GENERATED = join(ROOT, 'generated');

const WIDGETS = `group: widgets.svc.io
version: v1
definitions:
  Widget:
    description: A widget.
    type: object
    x-svc-kind: Widget
    properties:
      metadata: { $ref: 'meta.svc.io/v1#ObjectMeta', x-svc-proto: 1 }
      spec:
        type: object
        x-svc-proto: 2
        properties:
          size: { type: integer, format: int32, x-svc-proto: 1 }
          grid: { type: array, items: { type: array, items: { type: string } }, x-svc-proto: 2 }
          tls-server-name: { type: string, x-svc-proto: 3 }
          nested: { type: object, additionalProperties: { type: object, additionalProperties: { type: integer } }, x-svc-proto: 4 }
          parts: { type: array, items: { type: object, properties: { name: { type: string, x-svc-proto: 1 } } }, x-svc-proto: 5 }
          config: { type: object, x-kubernetes-preserve-unknown-fields: true, x-svc-proto: 6 }
          ratio: { type: number, format: float, x-svc-proto: 7 }
          started: { type: string, format: date-time, x-svc-proto: 8 }
`;

function protoFiles(dir: string): Record<string, string> {
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.proto')).sort();
  return Object.fromEntries(files.map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

/** protobufjs parses the files of `dir`, finding the meta types and wire.proto in svckit's generated/. */
function load(dir: string): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    const own = join(dir, target);
    try {
      readFileSync(own);
      return own;
    } catch {
      return join(SVCKIT_GENERATED, target);
    }
  };
  root.loadSync(Object.keys(protoFiles(dir)), { keepCase: true });
  root.resolveAll();
  return root;
}

describe('the .proto emitter', () => {
  it('names packages after the group as the real system does', () => {
    expect(protoPackage({ group: '', version: 'v1' })).toBe('svc.io.api.core.v1');
    expect(protoPackage({ group: 'batch', version: 'v1' })).toBe('svc.io.api.batch.v1');
    expect(protoPackage({ group: 'flowcontrol.apiserver.svc.io', version: 'v1beta3' })).toBe('svc.io.api.flowcontrol.apiserver.v1beta3');
    expect(protoPackage({ group: 'cert-manager.io', version: 'v1' })).toBe('svc.io.api.cert_manager.io.v1');
  });

  it('writes messages, nested messages, wrappers, json_name and wire forms; protobufjs parses them', () => {
    const dir = tempTree({ 'schemas/widgets.yaml': WIDGETS });
    const out = join(dir, 'out');
    codegen({ schemas: ['schemas'], out, cwd: dir });
    const proto = readFileSync(join(out, 'widgets.svc.io/v1/generated.proto'), 'utf8');
    expect(proto).toContain('package svc.io.api.widgets.v1;\n\nimport "meta.svc.io/v1/generated.proto";\nimport "wire.proto";\n');
    expect(proto).toContain('  message Spec {\n    message GridItem {\n      repeated string items = 1;\n    }\n');
    expect(proto).toContain('    message NestedValue {\n      map<string, int64> items = 1;\n    }\n');
    expect(proto).toContain('    repeated GridItem grid = 2;\n');
    expect(proto).toContain('    optional string tls_server_name = 3 [json_name = "tls-server-name"];\n');
    expect(proto).toContain('    map<string, NestedValue> nested = 4;\n');
    expect(proto).toContain('    repeated Parts parts = 5;\n');
    expect(proto).toContain('    optional svc.io.wire.RawExtension config = 6;\n');
    expect(proto).toContain('    optional float ratio = 7;\n    optional svc.io.wire.Time started = 8;\n');
    expect(proto).toContain('  optional svc.io.api.meta.v1.ObjectMeta metadata = 1;\n  optional Spec spec = 2;\n');
    const root = load(out);
    expect(root.lookupType('svc.io.api.widgets.v1.Widget.Spec').fieldsArray.map((f) => `${f.name}:${f.type}=${f.id}`)).toEqual([
      'size:int32=1',
      'grid:GridItem=2',
      'tls_server_name:string=3',
      'nested:NestedValue=4',
      'parts:Parts=5',
      'config:svc.io.wire.RawExtension=6',
      'ratio:float=7',
      'started:svc.io.wire.Time=8',
    ]);
    expect(readFileSync(join(out, 'widgets.svc.io/v1/protobuf.ts'), 'utf8')).toContain(
      "kinds: [\n    { apiVersion: 'widgets.svc.io/v1', kind: 'Widget', schema: WidgetSchema },\n  ],\n  embedded: [],\n",
    );
  });

  it('every built-in .proto file parses, and the tree is deterministic and checked by --check', () => {
    const a = mkdtempSync(join(tmpdir(), 'svckit-proto-'));
    const b = mkdtempSync(join(tmpdir(), 'svckit-proto-'));
    codegen({ schemas: ['schemas'], out: a, cwd: ROOT });
    codegen({ schemas: ['schemas'], out: b, cwd: ROOT });
    const files = protoFiles(a);
    expect(Object.keys(files)).toContain('wire.proto');
    expect(Object.keys(files)).toContain('core/v1/generated.proto');
    expect(Object.keys(files)).not.toContain('stable.example.svc.io/v1/generated.proto');
    expect(protoFiles(b)).toEqual(files);
    const root = load(a);
    expect(root.lookupType('svc.io.api.core.v1.Volume').fieldsArray.map((f) => `${f.name}=${f.id}`)).toEqual(['name=1', 'volumeSource=2']);

    const core = join(a, 'core/v1/generated.proto');
    writeFileSync(core, `${files['core/v1/generated.proto']}// edited\n`);
    writeFileSync(join(a, 'old.proto'), '// Code generated by svckit codegen v0.0.1. DO NOT EDIT.\n');
    const check = codegen({ schemas: ['schemas'], out: a, cwd: ROOT, check: true });
    const bad = Object.fromEntries(
      check.files.filter((f) => f.status !== 'unchanged').map((f) => [relative(a, resolve(ROOT, f.path)), f.status]),
    );
    expect(bad).toEqual({ 'core/v1/generated.proto': 'stale', 'old.proto': 'extra' });
    const fixed = codegen({ schemas: ['schemas'], out: a, cwd: ROOT });
    expect(fixed.files.filter((f) => f.status === 'removed').map((f) => resolve(ROOT, f.path))).toEqual([join(a, 'old.proto')]);
    rmSync(a, { recursive: true });
    rmSync(b, { recursive: true });
  });

  it('writes no .proto for custom resources only', () => {
    const out = mkdtempSync(join(tmpdir(), 'svckit-proto-'));
    codegen({ schemas: [join(ROOT, 'generator/testdata/crds')], out, cwd: ROOT });
    expect(Object.keys(protoFiles(out))).toEqual([]);
    expect(readFileSync(join(out, 'protobuf.ts'), 'utf8')).toContain(
      'export const allProtobufPackages: readonly ProtobufPackage[] = [\n];',
    );
  });
});
