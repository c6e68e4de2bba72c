import type { Constraints, Field, GroupVersion, TypeNode } from '../model/index.js';
import { groupDir, ownGroupVersions, typeKey } from '../model/index.js';
import { type Declaration, isInterface, nodeNames } from './declarations.js';
import { type GeneratedFile, tsKey, tsLiteral, tsString } from '../print/index.js';
import { type EmitContext, gvAliasPrefix } from './emit-context.js';
import type { ModuleNames } from './names.js';

/**
 * The types artifact: `<group>/<version>/types.ts` with one interface per object type (anonymous
 * nested objects get a name from their path), string unions for enums, and for every kind a GVK
 * constant and a type guard.
 */
export function emitTypes(ctx: EmitContext): GeneratedFile[] {
  return ownGroupVersions(ctx.model).map((gv) => emitGroupVersionTypes(ctx, gv));
}

function emitGroupVersionTypes(ctx: EmitContext, gv: GroupVersion): GeneratedFile {
  const file = ctx.newFile(`${groupDir(gv.group)}/${gv.version}/types.ts`, gv.sources);
  const table = ctx.names(gv);
  const declarations = table.declarations;
  const names = nodeNames(declarations);
  file.declare(...declarations.filter((d) => !d.repeat).map((d) => d.name));
  for (const t of gv.types) if (t.kind) file.declare(table.gvk(t.id.name), table.guard(t.id.name));
  const printer = new TypePrinter(ctx, gv, file, names, table);

  if (gv.description) file.doc(gv.description, lifecycleNote(gv)).line();
  for (const d of declarations) {
    if (d.repeat) continue;
    printer.declaration(d);
    file.line();
  }
  for (const t of gv.types) {
    if (!t.kind) continue;
    const { group, version } = t.id;
    const gvk = file.importType('GroupVersionKind', ctx.runtimeModule('api'));
    const isKind = file.importValue('isKind', ctx.runtimeModule('api'));
    file.doc(`Group, version and kind of {@link ${t.id.name}}.`);
    file.line(
      `export const ${table.gvk(t.id.name)} = { group: ${tsString(group)}, version: ${tsString(version)}, kind: ${tsString(t.kind.kind)} } as const satisfies ${gvk};`,
    );
    file.line();
    file.doc(`True when \`value\` is a {@link ${t.id.name}} document (by apiVersion and kind; the content is not validated).`);
    file.block(`export function ${table.guard(t.id.name)}(value: unknown): value is ${t.id.name} {`, () => {
      file.line(`return ${isKind}(value, ${tsString(t.kind!.apiVersion)}, ${tsString(t.kind!.kind)});`);
    });
    file.line();
  }
  return file;
}

function lifecycleNote(gv: GroupVersion): string | undefined {
  const l = gv.lifecycle;
  if (!l) return undefined;
  const parts = [
    l.introduced && `introduced in ${l.introduced}`,
    l.deprecated && `deprecated in ${l.deprecated}`,
    l.removed && `no longer served from ${l.removed}`,
    l.replacement && `use ${l.replacement} instead`,
  ].filter(Boolean);
  return parts.length ? `Lifecycle: ${parts.join('; ')}.` : undefined;
}

class TypePrinter {
  constructor(
    private readonly ctx: EmitContext,
    private readonly gv: GroupVersion,
    private readonly file: GeneratedFile,
    private readonly names: Map<TypeNode, string>,
    private readonly table: ModuleNames,
  ) {}

  declaration(d: Declaration): void {
    const { file } = this;
    if (d.declaredAs !== d.name) {
      file.doc(d.description, `Schema: ${d.origin}`, `The same shape as {@link ${d.declaredAs}}.`);
      file.line(`export type ${d.name} = ${d.declaredAs};`);
      return;
    }
    file.doc(d.description, `Schema: ${d.origin}`);
    if (d.node.kind === 'object' && isInterface(d.node)) {
      const node = d.node;
      file.block(`export interface ${d.name} {`, () => {
        node.fields.forEach((f, i) => {
          if (i > 0 && (f.description || node.fields[i - 1]?.description)) file.line();
          this.field(f);
        });
        if (node.preserveUnknown) {
          file.line();
          file.doc('Fields beyond the schema are kept (x-svc-preserve-unknown-fields).');
          file.line('[field: string]: unknown;');
        }
      });
      return;
    }
    file.line(`export type ${d.name} = ${this.type(d.node, false)};`);
  }

  private field(f: Field): void {
    const notes = constraintNotes(f.type);
    const tags: string[] = [];
    if (f.type.default !== undefined)
      tags.push(`@defaultValue \`${JSON.stringify(f.type.default)}\`${f.defaultZeroIsUnset ? ' (also when set to zero)' : ''}`);
    if (f.deprecated) tags.push(`@deprecated ${f.deprecated}`);
    if (f.secret) tags.push('Sensitive: never logged.');
    this.file.doc(f.description ?? f.type.description, notes, tags.join('\n') || undefined);
    const optional = f.required ? '' : '?';
    this.file.line(`${tsKey(f.name)}${optional}: ${this.type(f.type, true)};`);
  }

  /** The TypeScript type of a node. `useNames` is false only for the declaration of the node itself. */
  type(node: TypeNode, useNames: boolean): string {
    const named = useNames ? this.names.get(node) : undefined;
    const base = named ?? this.structural(node);
    return node.nullable ? `${base} | null` : base;
  }

  private structural(node: TypeNode): string {
    const literals = node.constraints?.enum?.map(tsLiteral);
    if (literals?.every((l) => l !== undefined)) return literals.join(' | ');
    switch (node.kind) {
      case 'scalar':
        return node.type === 'integer' ? 'number' : node.type;
      case 'bytes':
      case 'time':
      case 'duration':
        return 'string';
      case 'quantity':
        return 'string | number';
      case 'int-or-string':
        return 'number | string';
      case 'raw':
        return 'unknown';
      case 'object':
        return this.record(node.preserveUnknown || node.embeddedResource ? 'unknown' : 'never');
      case 'map':
        return this.record(this.type(node.values, true));
      case 'list': {
        const item = this.type(node.items, true);
        if (!/[|&\s]/.test(item)) return `${item}[]`;
        return this.table.names().has('Array') ? `(${item})[]` : `Array<${item}>`;
      }
      case 'ref':
        return this.refName(node.target);
    }
  }

  /** `Record<string, T>`, spelled out where a type of this module is named `Record`. */
  private record(values: string): string {
    return this.table.names().has('Record') ? `{ [key: string]: ${values} }` : `Record<string, ${values}>`;
  }

  private refName(target: { group: string; version: string; name: string }): string {
    const t = this.ctx.index.resolve(target);
    if (t.id.group === this.gv.group && t.id.version === this.gv.version) return t.id.name;
    if (!t.id.name) throw new Error(`unnamed ref ${typeKey(target)}`);
    return this.file.importType(t.id.name, this.ctx.gvModule(t.id, 'types'), gvAliasPrefix(t.id));
  }
}

/** A short line for the doc comment: bounds, lengths, pattern, format. */
function constraintNotes(node: TypeNode): string | undefined {
  const c: Constraints = node.constraints ?? {};
  const parts: string[] = [];
  if (c.minimum !== undefined) parts.push(`${c.exclusiveMinimum ? 'greater than' : 'at least'} ${c.minimum}`);
  if (c.maximum !== undefined) parts.push(`${c.exclusiveMaximum ? 'less than' : 'at most'} ${c.maximum}`);
  if (c.minLength !== undefined) parts.push(`length at least ${c.minLength}`);
  if (c.maxLength !== undefined) parts.push(`length at most ${c.maxLength}`);
  if (c.minItems !== undefined) parts.push(`at least ${c.minItems} items`);
  if (c.maxItems !== undefined) parts.push(`at most ${c.maxItems} items`);
  if (c.pattern !== undefined) parts.push(`matches \`${c.pattern}\``);
  if (node.kind === 'scalar' && node.format) parts.push(node.format);
  if (node.kind === 'duration') parts.push('a duration such as `30s`');
  if (node.kind === 'time') parts.push(node.format === 'date' ? 'a date (RFC 3339)' : 'a timestamp (RFC 3339)');
  if (node.kind === 'bytes') parts.push('base64-encoded bytes');
  if (node.kind === 'quantity') parts.push('a quantity such as `1Gi` or `500m`');
  if (node.kind === 'list' && node.listType)
    parts.push(`list type ${node.listType}${node.listMapKeys ? ` keyed by ${node.listMapKeys.join(', ')}` : ''}`);
  return parts.length ? `${parts.join('; ')}.`.replace(/^./, (s) => s.toUpperCase()) : undefined;
}
