import type { GroupVersion, NamedType, TypeId } from '../model/index.js';
import { groupDir, ownGroupVersions } from '../model/index.js';
import { type GeneratedFile, tsKey, tsValue } from '../print/index.js';
import { type EmitContext, gvAliasPrefix } from './emit-context.js';
import { type DescriptorData, DescriptorBuilder } from './descriptor.js';

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
  private readonly descriptors: DescriptorBuilder<TypeId>;

  constructor(
    private readonly ctx: EmitContext,
    private readonly gv: GroupVersion,
    private readonly file: GeneratedFile,
  ) {
    this.descriptors = new DescriptorBuilder(gv, (target) => target);
  }

  namedType(t: NamedType): void {
    const schemaModule = this.ctx.runtimeModule('schema');
    const typeName = t.node.kind === 'object' ? 'ObjectSchema' : 'SchemaNode';
    const type = this.file.importType(typeName, schemaModule);
    this.file.doc(`Schema descriptor of {@link ${t.id.name}} (${t.source.file} ${t.source.path}).`);
    this.file.line(`export const ${this.ctx.names(this.gv).schema(t.id.name)}: ${type} = ${this.node(this.descriptors.namedType(t), 0)};`);
  }

  /** A descriptor literal; nested literals are indented by `depth`. */
  private node(node: DescriptorData<TypeId>, depth: number): string {
    const props: [string, string][] = Object.entries(node).map(([key, value]) => {
      switch (key) {
        case 'fields':
          return [key, this.fields(value as DescriptorData<TypeId>[], depth + 1)];
        case 'values':
        case 'items':
          return [key, this.node(value as DescriptorData<TypeId>, depth + 1)];
        case 'ref':
          return [key, `() => ${this.refConst(value as TypeId)}`];
        default:
          return [key, tsValue(value)];
      }
    });
    return literal(props, depth);
  }

  private fields(fields: DescriptorData<TypeId>[], depth: number): string {
    if (fields.length === 0) return '[]';
    const pad = '  '.repeat(depth + 1);
    const items = fields.map((f) => {
      const props: [string, string][] = Object.entries(f).map(([key, value]) => [
        key,
        key === 'schema' ? this.node(value as DescriptorData<TypeId>, depth + 2) : tsValue(value),
      ]);
      return `${pad}${literal(props, depth + 1)},`;
    });
    return `[\n${items.join('\n')}\n${'  '.repeat(depth)}]`;
  }

  private refConst(target: TypeId): string {
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
