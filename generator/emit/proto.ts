import { join } from 'node:path';
import type { Field, GroupVersion, NamedType, ObjectNode, TypeId, TypeNode } from '../model/index.js';
import { groupDir } from '../model/index.js';
import { DataFile, pascalCase } from '../print/index.js';
import { type EmitContext, GENERATOR_NAME } from './emit-context.js';

/**
 * The Protobuf schema artifact: `<group>/<version>/generated.proto` per group/version with
 * Protobuf messages, and `wire.proto` with the wire forms of values that JSON writes as strings.
 * Like the real system's files: proto2, one message per named object type, the schema's field
 * numbers, `optional`/`repeated`/`map<string, V>`, embedded structs as one nested message field.
 * Import paths are relative to the generated root (svckit's own `generated/` for the meta types).
 */
export function emitProto(ctx: EmitContext): DataFile[] {
  const gvs = ctx.model.groupVersions.filter(hasProtobuf);
  if (gvs.length === 0) return [];
  return [...gvs.map((gv) => emitGroupVersionProto(ctx, gv)), emitWireProto(ctx)];
}

/** `svc.io.api.core.v1`, `svc.io.api.flowcontrol.apiserver.v1`: the Protobuf package of a group/version. */
export function protoPackage(gv: Pick<GroupVersion, 'group' | 'version'>): string {
  const group = gv.group === '' ? 'core' : gv.group.replace(/\.svc\.io$/, '');
  return ['svc.io.api', ...`${group}.${gv.version}`.split('.').map(protoIdentifier)].join('.');
}

/** `core/v1/generated.proto`: where a group/version's .proto file lives below the generated root. */
export function protoFilePath(gv: Pick<GroupVersion, 'group' | 'version'>): string {
  return `${groupDir(gv.group)}/${gv.version}/generated.proto`;
}

/** The package of the wire forms (Time, Duration, Quantity, IntOrString, RawExtension). */
export const WIRE_PACKAGE = 'svc.io.wire';
export const WIRE_FILE = 'wire.proto';

/**
 * True for the group/versions generated here whose types have Protobuf messages: every one with
 * object types but those of custom resources, which the real system serves as JSON only.
 */
export function hasProtobuf(gv: GroupVersion): boolean {
  return !gv.external && gv.types.some((t) => t.node.kind === 'object') && !gv.types.some((t) => t.kind?.resource?.custom);
}

/** The kinds of a group/version with Protobuf messages. */
export function protobufKinds(gv: GroupVersion): NamedType[] {
  return hasProtobuf(gv) ? gv.types.filter((t) => t.kind) : [];
}

/** Object types that travel as RawExtension (JSON bytes) rather than as a message. */
export function travelsAsRaw(node: ObjectNode): boolean {
  return node.embeddedResource === true || node.preserveUnknown === true;
}

function emitGroupVersionProto(ctx: EmitContext, gv: GroupVersion): DataFile {
  const file = new DataFile(join(ctx.outDir, protoFilePath(gv)), { generator: GENERATOR_NAME, version: ctx.version, sources: gv.sources });
  const writer = new ProtoWriter(ctx, gv, file);
  for (const t of gv.types) {
    if (t.node.kind === 'object' && !travelsAsRaw(t.node)) {
      writer.message(t.id.name, t.node, t.description, `${t.source.file} ${t.source.path}`);
      file.line();
    }
  }
  file
    .top('syntax = "proto2";')
    .top()
    .top(`package ${protoPackage(gv)};`);
  const imports = [...writer.imports].sort();
  if (imports.length > 0) file.top();
  for (const i of imports) file.top(`import "${i}";`);
  return file;
}

/** Names already used in one message scope (nested messages and the map entries protoc adds). */
class Scope {
  private readonly used = new Set<string>();

  take(name: string): string {
    let n = name;
    for (let i = 2; this.used.has(n); i++) n = `${name}${i}`;
    this.used.add(n);
    return n;
  }
}

class ProtoWriter {
  readonly imports = new Set<string>();

  constructor(
    private readonly ctx: EmitContext,
    private readonly gv: GroupVersion,
    private readonly file: DataFile,
  ) {}

  message(name: string, node: ObjectNode, description: string | undefined, origin?: string): void {
    const { file } = this;
    file.comment(description);
    if (origin) file.comment(`Schema: ${origin}`);
    file.block(`message ${name} {`, () => {
      const scope = new Scope();
      for (const f of node.fields) if (deref(this.ctx, f.type).kind === 'map') scope.take(`${pascalCase(f.name)}Entry`);
      const nested: (() => void)[] = [];
      const lines: { doc?: string; text: string; number: number }[] = [];
      const embedded = new Set<number>();
      for (const f of node.fields) {
        if (f.embeddedVia) {
          const number = f.embeddedVia.protoTag;
          if (embedded.has(number)) continue;
          embedded.add(number);
          const type = f.embeddedVia.type;
          lines.push({
            doc: `Embedded ${type.name}: its fields are inlined in JSON.`,
            text: `optional ${this.messageRef(type)} ${lowerFirst(type.name)} = ${number};`,
            number,
          });
          continue;
        }
        if (f.protoTag === undefined) {
          if (f.name === 'apiVersion' || f.name === 'kind') continue;
          throw new Error(
            `${this.gv.sources.join(', ')}: field ${name}.${f.name} has no Protobuf number (x-svc-proto); every field of a group/version with Protobuf messages needs one`,
          );
        }
        lines.push({ doc: f.description, text: this.field(f, scope, nested), number: f.protoTag });
      }
      for (const write of nested) {
        write();
        file.line();
      }
      // In field-number order: the order the real system writes fields in.
      lines.sort((a, b) => a.number - b.number);
      lines.forEach((l, i) => {
        if (i > 0 && (l.doc || lines[i - 1]?.doc)) file.line();
        file.comment(l.doc);
        file.line(l.text);
      });
    });
  }

  private field(f: Field, scope: Scope, nested: (() => void)[]): string {
    const { name, option } = fieldName(f.name);
    const node = deref(this.ctx, f.type);
    let type: string;
    if (node.kind === 'list') type = `repeated ${this.element(node.items, f.name, 'Item', scope, nested)}`;
    else if (node.kind === 'map') type = `map<string, ${this.element(node.values, f.name, 'Value', scope, nested)}>`;
    else type = `optional ${this.element(node, f.name, '', scope, nested)}`;
    return `${type} ${name} = ${f.protoTag}${option};`;
  }

  /** The type of one value; anonymous objects and lists or maps inside containers become nested messages. */
  private element(type: TypeNode, field: string, role: 'Item' | 'Value' | '', scope: Scope, nested: (() => void)[]): string {
    const node = deref(this.ctx, type);
    switch (node.kind) {
      case 'scalar':
        if (node.type === 'string') return 'string';
        if (node.type === 'boolean') return 'bool';
        if (node.type === 'integer') return node.format === 'int32' ? 'int32' : 'int64';
        return node.format === 'float' ? 'float' : 'double';
      case 'bytes':
        return 'bytes';
      case 'time':
        return node.format === 'date' ? 'string' : this.wire('Time');
      case 'duration':
        return this.wire('Duration');
      case 'quantity':
        return this.wire('Quantity');
      case 'int-or-string':
        return this.wire('IntOrString');
      case 'raw':
        return this.wire('RawExtension');
      case 'ref':
        return this.messageRef(node.target);
      case 'object': {
        if (travelsAsRaw(node)) return this.wire('RawExtension');
        const name = scope.take(pascalCase(field));
        nested.push(() => this.message(name, node, node.description));
        return name;
      }
      case 'list':
      case 'map': {
        // Protobuf has no list of lists or map of lists: a wrapper message holds it as `items`.
        const name = scope.take(`${pascalCase(field)}${role || 'Value'}`);
        const inner = new Scope();
        const innerNested: (() => void)[] = [];
        const text =
          node.kind === 'list'
            ? `repeated ${this.element(node.items, field, 'Item', inner, innerNested)} items = 1;`
            : `map<string, ${this.element(node.values, field, 'Value', inner, innerNested)}> items = 1;`;
        nested.push(() => {
          this.file.block(`message ${name} {`, () => {
            for (const write of innerNested) {
              write();
              this.file.line();
            }
            this.file.line(text);
          });
        });
        return name;
      }
    }
  }

  /** A named object type: its message (qualified outside this package) or RawExtension. */
  private messageRef(id: TypeId): string {
    const t = this.ctx.index.resolve(id);
    if (t.node.kind === 'object' && travelsAsRaw(t.node)) return this.wire('RawExtension');
    if (id.group === this.gv.group && id.version === this.gv.version) return id.name;
    this.imports.add(protoFilePath(id));
    return `${protoPackage(id)}.${id.name}`;
  }

  private wire(name: string): string {
    this.imports.add(WIRE_FILE);
    return `${WIRE_PACKAGE}.${name}`;
  }
}

/** Follows references to named types that are not objects (aliases of scalars, lists or maps). */
function deref(ctx: EmitContext, node: TypeNode): TypeNode {
  let n = node;
  for (let i = 0; n.kind === 'ref'; i++) {
    const target = ctx.index.resolve(n.target).node;
    if (target.kind === 'object' || i > 64) return n;
    n = target;
  }
  return n;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A Protobuf identifier for a JSON name, with `json_name` when it had to change. */
function fieldName(json: string): { name: string; option: string } {
  if (IDENTIFIER.test(json)) return { name: json, option: '' };
  return { name: protoIdentifier(json), option: ` [json_name = "${json}"]` };
}

function protoIdentifier(text: string): string {
  const id = text.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[0-9]/.test(id) ? `_${id}` : id;
}

function lowerFirst(text: string): string {
  return text.length === 0 ? text : text[0]!.toLowerCase() + text.slice(1);
}

function emitWireProto(ctx: EmitContext): DataFile {
  const file = new DataFile(join(ctx.outDir, WIRE_FILE), { generator: GENERATOR_NAME, version: ctx.version, sources: [] });
  file.top('// The wire forms of values that JSON writes as strings or as free-form JSON, as the real');
  file.top('// system encodes them. The runtime codec (runtime/codec) reads and writes exactly these.');
  file.top().top('syntax = "proto2";').top().top(`package ${WIRE_PACKAGE};`);
  const message = (name: string, doc: string, fields: [string, string][]): void => {
    file.comment(doc);
    file.block(`message ${name} {`, () => {
      fields.forEach(([fieldDoc, text], i) => {
        if (i > 0) file.line();
        file.comment(fieldDoc);
        file.line(text);
      });
    });
    file.line();
  };
  message('Time', 'An instant; JSON: RFC 3339 text in UTC (`2024-01-02T15:04:05Z`, a fraction of 3, 6 or 9 digits when there is one).', [
    ['Seconds since 1970-01-01T00:00:00Z.', 'optional int64 seconds = 1;'],
    ['Nanoseconds within the second, 0 to 999999999.', 'optional int32 nanos = 2;'],
  ]);
  message('Duration', 'A span of time; JSON: Go duration text (`1h0m0s`, `1.5s`).', [['Nanoseconds.', 'optional int64 duration = 1;']]);
  message('Quantity', 'A resource quantity; JSON: its text (`500m`, `1Gi`).', [['The text as written.', 'optional string string = 1;']]);
  message('IntOrString', 'An integer or a string (a port number or name, a count or a percentage).', [
    ['0: the integer in intVal; 1: the string in strVal.', 'optional int64 type = 1;'],
    ['', 'optional int32 intVal = 2;'],
    ['', 'optional string strVal = 3;'],
  ]);
  message('RawExtension', 'Any JSON value (embedded objects, free-form configuration, managed fields).', [
    ['The value as UTF-8 JSON text.', 'optional bytes raw = 1;'],
  ]);
  return file;
}
