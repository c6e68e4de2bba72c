import type { Constraints, Field, GroupVersion, NamedType, TypeNode, ValidationRule } from '../model/index.js';
import { groupDir, ownGroupVersions } from '../model/index.js';
import { type GeneratedFile, tsKey, tsString, tsValue } from '../print/index.js';
import { type EmitContext, gvAliasPrefix } from './emit-context.js';
import { schemaName } from './openapi-document.js';

/**
 * The schema artifact: `<group>/<version>/schema.ts`, one descriptor constant per named type
 * (`PodSchema`), plain data that the runtime reads for pruning, defaulting, CEL typing and merge
 * markers. References are thunks, so order and recursion do not matter.
 */
export function emitSchemas(ctx: EmitContext): GeneratedFile[] {
  return ownGroupVersions(ctx.model).map((gv) => emitGroupVersionSchema(ctx, gv));
}

function emitGroupVersionSchema(ctx: EmitContext, gv: GroupVersion): GeneratedFile {
  const file = ctx.newFile(`${groupDir(gv.group)}/${gv.version}/schema.ts`, gv.sources);
  file.declare(...gv.types.map((t) => ctx.names(gv).schema(t.id.name)));
  const writer = new DescriptorWriter(ctx, gv, file);
  for (const t of gv.types) {
    writer.namedType(t);
    file.line();
  }
  return file;
}

class DescriptorWriter {
  /** The group/version is defined by CRDs: its named types are checked as custom resources. */
  private readonly customResources: boolean;

  constructor(
    private readonly ctx: EmitContext,
    private readonly gv: GroupVersion,
    private readonly file: GeneratedFile,
  ) {
    this.customResources = gv.types.some((t) => t.kind?.resource?.custom === true);
  }

  namedType(t: NamedType): void {
    const schemaModule = this.ctx.runtimeModule('schema');
    const typeName = t.node.kind === 'object' ? 'ObjectSchema' : 'SchemaNode';
    const type = this.file.importType(typeName, schemaModule);
    this.file.doc(`Schema descriptor of {@link ${t.id.name}} (${t.source.file} ${t.source.path}).`);
    this.file.line(`export const ${this.ctx.names(this.gv).schema(t.id.name)}: ${type} = ${this.node(t.node, 0, schemaName(t.id))};`);
  }

  /** A descriptor literal; nested literals are indented by `depth`. */
  private node(node: TypeNode, depth: number, typeName?: string): string {
    const props: [string, string][] = [];
    switch (node.kind) {
      case 'object':
        props.push(['type', tsString('object')]);
        if (typeName) props.push(['typeName', tsString(typeName)]);
        if (typeName && this.customResources) props.push(['customResource', 'true']);
        props.push(['fields', this.fields(node.fields, depth + 1)]);
        if (node.preserveUnknown) props.push(['preserveUnknown', 'true']);
        if (node.embeddedResource) props.push(['embeddedResource', 'true']);
        if (node.structType) props.push(['structType', tsString(node.structType)]);
        break;
      case 'map':
        props.push(['type', tsString('map')], ['values', this.node(node.values, depth + 1)]);
        if (node.mapType) props.push(['mapType', tsString(node.mapType)]);
        break;
      case 'list':
        props.push(['type', tsString('list')], ['items', this.node(node.items, depth + 1)]);
        if (node.listType) props.push(['listType', tsString(node.listType)]);
        if (node.listMapKeys) props.push(['listMapKeys', json(node.listMapKeys)]);
        break;
      case 'scalar':
        props.push(['type', tsString(node.type)]);
        if (node.format) props.push(['format', tsString(node.format)]);
        break;
      case 'time':
        props.push(['type', tsString(node.format)]);
        break;
      case 'ref':
        props.push(['type', tsString('ref')], ['ref', `() => ${this.refConst(node.target)}`]);
        break;
      default:
        props.push(['type', tsString(node.kind)]);
    }
    if (node.nullable) props.push(['nullable', 'true']);
    if (node.default !== undefined) props.push(['default', json(node.default)]);
    props.push(...constraintProps(node.constraints));
    if (node.validations?.length) props.push(['rules', rules(node.validations)]);
    if (node.valueValidation) props.push(['valueValidation', json(node.valueValidation)]);
    return literal(props, depth);
  }

  private fields(fields: Field[], depth: number): string {
    if (fields.length === 0) return '[]';
    const pad = '  '.repeat(depth + 1);
    const items = fields.map((f) => {
      const props: [string, string][] = [
        ['name', tsString(f.name)],
        ['schema', this.node(f.type, depth + 2)],
      ];
      if (f.required) props.push(['required', 'true']);
      if (f.protoTag !== undefined && !f.embeddedVia) props.push(['proto', String(f.protoTag)]);
      if (f.embeddedVia) props.push(['embeddedProto', String(f.embeddedVia.protoTag)]);
      if (f.deprecated) props.push(['deprecated', tsString(f.deprecated)]);
      if (f.secret) props.push(['secret', 'true']);
      if (f.defaultZeroIsUnset) props.push(['defaultZeroIsUnset', 'true']);
      if (f.zeroIsUnset) props.push(['zeroIsUnset', 'true']);
      if (f.patchStrategy) props.push(['patchStrategy', tsString(f.patchStrategy)]);
      if (f.patchMergeKey) props.push(['patchMergeKey', tsString(f.patchMergeKey)]);
      return `${pad}${literal(props, depth + 1)},`;
    });
    return `[\n${items.join('\n')}\n${'  '.repeat(depth)}]`;
  }

  private refConst(target: { group: string; version: string; name: string }): string {
    const name = this.ctx.names(target).schema(target.name);
    if (target.group === this.gv.group && target.version === this.gv.version) return name;
    return this.file.importValue(name, this.ctx.gvModule(target, 'schema'), gvAliasPrefix(target));
  }
}

/** `{ a: 1, b: 2 }` on one line when short, else one property per line. */
function literal(props: [string, string][], depth: number): string {
  // Measured before printed: a large nested literal is never copied into a one-line candidate.
  const length = props.reduce((n, [k, v]) => n + k.length + v.length + 4, 2);
  if (length <= 100) {
    const inline = `{ ${props.map(([k, v]) => `${tsKey(k)}: ${v}`).join(', ')} }`;
    if (inline.length <= 100 && !inline.includes('\n')) return inline;
  }
  const pad = '  '.repeat(depth + 1);
  return `{\n${props.map(([k, v]) => `${pad}${tsKey(k)}: ${v},`).join('\n')}\n${'  '.repeat(depth)}}`;
}

function constraintProps(c: Constraints | undefined): [string, string][] {
  if (!c) return [];
  return Object.entries(c).map(([k, v]) => [k, json(v)]);
}

function rules(list: ValidationRule[]): string {
  return `[${list.map(({ spec: _spec, ...r }) => json(r)).join(', ')}]`;
}

function json(value: unknown): string {
  return tsValue(value);
}
