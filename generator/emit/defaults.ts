import type { Field, GroupVersion, ObjectNode, TypeId, TypeNode } from '../model/index.js';
import { groupDir, type ModelIndex, ownGroupVersions, typeKey } from '../model/index.js';
import { type GeneratedFile, tsValue } from '../print/index.js';
import { type Declaration, isInterface, nodeNames } from './declarations.js';
import { declaresFunction } from './validate.js';
import { type EmitContext, gvAliasPrefix } from './emit-context.js';
import { fieldAccess, fieldTarget } from './field-access.js';

/**
 * The defaulters artifact: `<group>/<version>/defaults.ts`, one function per object type that has
 * defaults somewhere below it. A default fills an absent field (and a zero value where the schema
 * says a zero means unset); defaulted objects are then defaulted inside, top-down as upstream.
 */
export function emitDefaulters(ctx: EmitContext): GeneratedFile[] {
  const needs = new DefaultsIndex(ctx.index);
  return ownGroupVersions(ctx.model).map((gv) => new DefaulterWriter(ctx, gv, needs).write());
}

/** Which nodes have a default at or below them (following references, safe on cycles). */
export class DefaultsIndex {
  private readonly memo = new Map<string, boolean>();

  constructor(private readonly index: ModelIndex) {}

  hasDefaults(node: TypeNode): boolean {
    switch (node.kind) {
      case 'object':
        return node.fields.some((f) => f.type.default !== undefined || this.hasDefaults(f.type));
      case 'list':
        return this.hasDefaults(node.items);
      case 'map':
        return this.hasDefaults(node.values);
      case 'ref': {
        const key = typeKey(node.target);
        const known = this.memo.get(key);
        if (known !== undefined) return known;
        this.memo.set(key, false); // a cycle contributes nothing new
        const result = this.hasDefaults(this.index.resolve(node.target).node);
        this.memo.set(key, result);
        return result;
      }
      default:
        return false;
    }
  }
}

class DefaulterWriter {
  private readonly file: GeneratedFile;
  private names = new Map<TypeNode, string>();
  private vars = 0;

  constructor(
    private readonly ctx: EmitContext,
    private readonly gv: GroupVersion,
    private readonly needs: DefaultsIndex,
  ) {
    this.file = ctx.newFile(`${groupDir(gv.group)}/${gv.version}/defaults.ts`, gv.sources);
  }

  write(): GeneratedFile {
    const declarations = this.ctx
      .names(this.gv)
      .functionDeclarations()
      .filter((d) => this.needs.hasDefaults(d.node));
    this.names = nodeNames(declarations, (d) => d.declaredAs);
    this.file.declare(...declarations.filter(declaresFunction).map((d) => this.defaulterName(d)));
    for (const d of declarations) {
      if (!declaresFunction(d)) continue;
      this.declaration(d);
      this.file.line();
    }
    if (declarations.length === 0) this.file.line('export {};');
    return this.file;
  }

  private declaration(d: Declaration): void {
    const f = this.file;
    const exported = d.named ? 'export ' : '';
    f.doc(
      d.named
        ? `Applies the schema defaults of {@link ${d.name}} in place.`
        : `Applies the defaults of the ${d.name} part of a value in place.`,
    );
    f.block(`${exported}function ${this.defaulterName(d)}(v: unknown): void {`, () => {
      this.vars = 0;
      if (d.node.kind === 'object' && isInterface(d.node)) this.objectBody(d.node);
      else this.descend(d.node, 'v', true);
    });
  }

  private objectBody(node: ObjectNode): void {
    const isObject = this.file.importValue('isObject', this.ctx.runtimeModule('validate'));
    this.file.line(`if (!${isObject}(v)) return;`);
    for (const field of node.fields) this.field(field);
  }

  private field(field: Field): void {
    const f = this.file;
    // Reads see only the document's own properties (`toString` is not an inherited function here).
    const read = fieldAccess(field.name);
    const access = read === fieldTarget(field.name) ? read : `(${read})`;
    const value = field.type.default;
    if (value !== undefined) {
      const zero =
        field.type.kind === 'duration'
          ? `${this.file.importValue('isZeroDuration', this.ctx.runtimeModule('validate'))}(${access})`
          : `${access} === ${tsValue(zeroOf(value))}`;
      const unset = field.defaultZeroIsUnset ? `${access} === undefined || ${zero}` : `${access} === undefined`;
      // A fresh literal on every call: defaulted objects are never shared between documents.
      f.line(`if (${unset}) ${fieldTarget(field.name)} = ${tsValue(value)};`);
    }
    if (this.needs.hasDefaults(field.type)) this.descend(field.type, access, false);
  }

  /** Statements that default inside the value at expression `x`. */
  private descend(node: TypeNode, x: string, top: boolean): void {
    const f = this.file;
    switch (node.kind) {
      case 'ref':
        f.line(`${this.refDefaulter(node.target)}(${x});`);
        return;
      case 'object': {
        const hoisted = this.names.get(node);
        if (hoisted && !top) f.line(`${hoistedDefaulter(hoisted)}(${x});`);
        return;
      }
      case 'list': {
        const y = this.var();
        f.block(`if (Array.isArray(${x})) for (const ${y} of ${x} as unknown[]) {`, () => this.descend(node.items, y, false));
        return;
      }
      case 'map': {
        const isObject = this.file.importValue('isObject', this.ctx.runtimeModule('validate'));
        const y = this.var();
        f.block(`if (${isObject}(${x})) for (const ${y} of Object.values(${x})) {`, () => this.descend(node.values, y, false));
        return;
      }
      default:
        return;
    }
  }

  /** A named type's exported defaulter, or a hoisted object's module-private one. */
  private defaulterName(d: Declaration): string {
    return d.named ? this.ctx.names(this.gv).defaulter(d.name) : hoistedDefaulter(d.name);
  }

  private refDefaulter(target: TypeId): string {
    const name = this.ctx.names(target).defaulter(target.name);
    if (target.group === this.gv.group && target.version === this.gv.version) return name;
    return this.file.importValue(name, this.ctx.gvModule(target, 'defaults'), gvAliasPrefix(target));
  }

  private var(): string {
    return `x${this.vars++}`;
  }
}

/** The zero value of a default's type: what a non-pointer field upstream holds when unset. */
function zeroOf(value: unknown): unknown {
  if (typeof value === 'number') return 0;
  if (typeof value === 'string') return '';
  if (typeof value === 'boolean') return false;
  return null;
}

/** `defaultChallengeSolver`: the module-private defaulter of a hoisted object. */
function hoistedDefaulter(name: string): string {
  return `default${name}`;
}
