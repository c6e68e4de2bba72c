import type { Constraints, Field, GroupVersion, ObjectNode, TypeId, TypeNode } from '../model/index.js';
import { groupDir, ownGroupVersions } from '../model/index.js';
import { type GeneratedFile, camelCase, tsString, tsValue } from '../print/index.js';
import { type Declaration, isInterface, nodeNames } from './declarations.js';
import { type EmitContext, gvAliasPrefix } from './emit-context.js';
import { fieldAccess } from './field-access.js';

/**
 * The validators artifact: `<group>/<version>/validate.ts`, one straight-line function per object
 * type that checks types, required fields, enums, bounds, patterns, formats and list uniqueness,
 * and reports unknown fields apart. CEL rules are not here: the runtime compiles them once from the
 * schema descriptors and runs them after these checks pass.
 */
export function emitValidators(ctx: EmitContext): GeneratedFile[] {
  return ownGroupVersions(ctx.model).map((gv) => new ValidatorWriter(ctx, gv).write());
}

class ValidatorWriter {
  private readonly file: GeneratedFile;
  private names = new Map<TypeNode, string>();
  private readonly constantNames = new Set<string>();
  private readonly constantByValue = new Map<string, string>();
  private vars = 0;
  /**
   * Custom resources are checked by upstream's OpenAPI validator, whose messages tools match
   * (`spec.size in body should be less than or equal to 5`); built-in kinds by Go code of their own.
   */
  private readonly openAPI: boolean;

  constructor(
    private readonly ctx: EmitContext,
    private readonly gv: GroupVersion,
  ) {
    this.file = ctx.newFile(`${groupDir(gv.group)}/${gv.version}/validate.ts`, gv.sources);
    this.openAPI = gv.types.some((t) => t.kind?.resource?.custom === true);
  }

  /** The statement reporting a failed check: kube-openapi's error for custom resources, svckit's own otherwise. */
  private report(own: string, openAPI: string): string {
    return this.openAPI ? `e.openAPI(${openAPI})` : own;
  }

  private typeError(path: PathCode | string, x: string, type: string): string {
    return this.report(`e.type(${path}, ${x}, '${type}')`, `'type', ${path}, ${x}, '${type}'`);
  }

  write(): GeneratedFile {
    const declarations = this.ctx.names(this.gv).functionDeclarations();
    this.names = nodeNames(declarations, (d) => d.declaredAs);
    this.file.declare(...declarations.filter(declaresFunction).map((d) => this.validatorName(d)));
    for (const d of declarations) {
      if (!declaresFunction(d)) continue;
      this.declaration(this.file, d);
      this.file.line();
    }
    return this.file;
  }

  private runtime(name: string): string {
    return this.file.importValue(name, this.ctx.runtimeModule('validate'));
  }

  private declaration(out: GeneratedFile, d: Declaration): void {
    const collector = this.file.importType('Collector', this.ctx.runtimeModule('validate'));
    const pathLike = this.file.importType('PathLike', this.ctx.runtimeModule('validate'));
    const exported = d.named ? 'export ' : '';
    out.doc(
      d.named
        ? `Checks a {@link ${d.name}} value: structure, bounds and formats (CEL rules run in the runtime).`
        : `Checks the ${d.name} part of a value.`,
    );
    out.block(`${exported}function ${this.validatorName(d)}(v: unknown, p: ${pathLike}, e: ${collector}): void {`, () => {
      this.vars = 0;
      if (d.node.kind === 'object' && isInterface(d.node)) this.objectBody(out, d.node);
      else this.check(out, d.node, 'v', new PathCode('p'), true);
    });
  }

  private objectBody(out: GeneratedFile, node: ObjectNode): void {
    const isObject = this.runtime('isObject');
    out.block(`if (!${isObject}(v)) {`, () => out.line(`${this.typeError('p', 'v', 'object')};`).line('return;'));
    if (!node.preserveUnknown && !node.embeddedResource) this.unknownFields(out, node);
    // kube-openapi checks the junctors before the object's own properties: its errors come first.
    this.valueValidation(out, node, 'v', 'p');
    this.objectConstraints(out, node);
    for (const f of node.fields) this.field(out, f);
  }

  /**
   * A CRD's inline allOf/anyOf/oneOf/not, handed to the runtime as data: branches are mostly
   * `required` lists and bounds, which read better as the schema wrote them than as code.
   */
  private valueValidation(out: GeneratedFile, node: TypeNode, x: string, path: string): void {
    if (!node.valueValidation) return;
    const data = tsValue(node.valueValidation);
    const branches = this.constant(
      'valueValidation',
      `${data} satisfies ${this.file.importType('ValueValidation', this.ctx.runtimeModule('validate'))}`,
      data,
    );
    out.line(`${this.runtime('checkValueValidation')}(${x}, ${path}, ${branches}, e);`);
  }

  /**
   * Every key that is not a field is reported apart. A `switch` over the field names: V8 compares
   * the (interned) keys by identity, about three times faster than a `Set` lookup per key.
   */
  private unknownFields(out: GeneratedFile, node: ObjectNode): void {
    if (node.fields.length === 0) {
      out.line(`for (const k in v) e.unknown(\`\${p}.\${k}\`);`);
      return;
    }
    out.block('for (const k in v) {', () => {
      out.block('switch (k) {', () => {
        out.line(node.fields.map((f) => `case ${tsString(f.name)}:`).join(' '));
        out.line('  break;');
        out.line('default:');
        out.line('  e.unknown(`${p}.${k}`);');
      });
    });
  }

  private objectConstraints(out: GeneratedFile, node: TypeNode): void {
    const c = node.constraints;
    if (c?.minProperties === undefined && c?.maxProperties === undefined) return;
    const n = this.var();
    out.line(`const ${n} = Object.keys(v as object).length;`);
    if (c.minProperties !== undefined)
      out.line(
        `if (${n} < ${c.minProperties}) ${this.report(`e.invalid(p, ${n}, 'must have at least ${c.minProperties} properties')`, `'minProperties', p, ${n}, ${c.minProperties}`)};`,
      );
    if (c.maxProperties !== undefined)
      out.line(
        `if (${n} > ${c.maxProperties}) ${this.report(`e.tooMany(p, ${n}, ${c.maxProperties})`, `'maxProperties', p, ${n}, ${c.maxProperties}`)};`,
      );
  }

  private field(out: GeneratedFile, f: Field): void {
    // An optional field that accepts anything needs no code at all.
    if (!f.required && !this.checks(f.type)) return;
    const x = this.var();
    const path = new PathCode('p').field(f.name);
    out.line(`const ${x} = ${fieldAccess(f.name)};`);
    const absent = f.type.nullable ? `${x} === undefined` : `${x} === undefined || ${x} === null`;
    if (f.required) {
      out.line(`if (${absent}) e.required(${path});`);
      if (!this.checks(f.type)) return;
      out.block('else {', () => this.check(out, f.type, x, path, false));
      return;
    }
    out.block(`if (!(${absent})) {`, () => this.check(out, f.type, x, path, false));
  }

  /** False for nodes that accept anything (raw), so no code is written for them. */
  private checks(node: TypeNode): boolean {
    return !(node.kind === 'raw' && !node.constraints && !node.nullable);
  }

  /** Statements that check the value in `x` (a variable), reporting at path expression `path`. */
  private check(out: GeneratedFile, node: TypeNode, x: string, path: PathCode, top: boolean, nonNull = false): void {
    // The node itself, not a copy without `nullable`: a nullable object is still checked by its own validator.
    if (node.nullable && !top && !nonNull) {
      out.block(`if (${x} !== null) {`, () => this.check(out, node, x, path, top, true));
      return;
    }
    this.structure(out, node, x, path, top);
    // An object's own validator function checks its value validations.
    if (!(node.kind === 'object' && this.names.has(node) && !top)) this.valueValidation(out, node, x, this.fieldPath(path));
  }

  private structure(out: GeneratedFile, node: TypeNode, x: string, path: PathCode, top: boolean): void {
    switch (node.kind) {
      case 'ref':
        out.line(`${this.refValidator(node.target)}(${x}, ${this.fieldPath(path)}, e);`);
        this.enumCheck(out, node.constraints, x, path);
        return;
      case 'object': {
        const hoisted = this.names.get(node);
        if (hoisted && !top) {
          out.line(`${hoistedValidator(hoisted)}(${x}, ${this.fieldPath(path)}, e);`);
          return;
        }
        const isObject = this.runtime('isObject');
        out.line(`if (!${isObject}(${x})) ${this.typeError(path, x, 'object')};`);
        return;
      }
      case 'list':
        return this.list(out, node, x, path);
      case 'map':
        return this.map(out, node, x, path);
      case 'raw':
        return;
      case 'int-or-string':
        out.line(
          `if (typeof ${x} !== 'string' && !Number.isInteger(${x})) ${this.report(`e.type(${path}, ${x}, 'integer or string')`, `'type', ${path}, ${x}, 'integer,string'`)};`,
        );
        return this.enumCheck(out, node.constraints, x, path);
      case 'quantity':
        out.line(`if (!${this.runtime('isQuantity')}(${x})) e.invalid(${path}, ${x}, 'must be a quantity such as 1Gi, 500m or 1e3');`);
        return;
      case 'scalar':
        return this.scalar(out, node.type, node.format, node.constraints, x, path);
      case 'bytes':
        // Go decodes []byte from base64 before anything validates: a bad value is a decoding error
        // that shows no value (a Secret's data must never be echoed in an error or an audit log).
        return this.string(out, node.constraints, x, path, {
          test: `${this.runtime('isBase64')}(${x})`,
          report: `e.undecodable(${path}, ${this.runtime('base64Error')}(${x}) ?? '')`,
        });
      case 'time':
        return node.format === 'date'
          ? this.string(
              out,
              node.constraints,
              x,
              path,
              this.format(`${this.runtime('isDate')}(${x})`, x, path, 'must be a date (YYYY-MM-DD)', 'date'),
            )
          : this.string(
              out,
              node.constraints,
              x,
              path,
              this.format(`${this.runtime('isDateTime')}(${x})`, x, path, 'must be an RFC 3339 timestamp', 'date-time'),
            );
      case 'duration':
        return this.string(
          out,
          node.constraints,
          x,
          path,
          this.format(`${this.runtime('isDuration')}(${x})`, x, path, 'must be a duration such as 30s, 1m30s or 500ms', 'duration'),
        );
    }
  }

  private scalar(
    out: GeneratedFile,
    type: string,
    format: string | undefined,
    c: Constraints | undefined,
    x: string,
    path: PathCode,
  ): void {
    switch (type) {
      case 'string':
        return this.string(out, c, x, path);
      case 'boolean':
        out.line(`if (typeof ${x} !== 'boolean') ${this.typeError(path, x, 'boolean')};`);
        return this.enumCheck(out, c, x, path);
      case 'integer': {
        out.line(`if (typeof ${x} !== 'number' || !Number.isInteger(${x})) ${this.typeError(path, x, 'integer')};`);
        // The ranges of fitsIntegerFormat, written out: no call and no format name compared per value.
        // kube-openapi checks no integer format: a custom resource's int32 field takes any integer.
        if (format === 'int32' && !this.openAPI)
          out.line(`else if (${x} < -2147483648 || ${x} > 2147483647) e.invalid(${path}, ${x}, 'out of range for int32');`);
        if (format === 'int64') out.line(`else if (!Number.isSafeInteger(${x})) e.invalid(${path}, ${x}, 'out of range for int64');`);
        return this.numberBounds(out, c, x, path);
      }
      default:
        out.line(`if (typeof ${x} !== 'number') ${this.typeError(path, x, 'number')};`);
        return this.numberBounds(out, c, x, path);
    }
  }

  private numberBounds(out: GeneratedFile, c: Constraints | undefined, x: string, path: PathCode): void {
    const lines: string[] = [];
    if (c?.minimum !== undefined) {
      const op = c.exclusiveMinimum ? '<=' : '<';
      const own = `e.invalid(${path}, ${x}, ${tsString(`must be ${c.exclusiveMinimum ? 'greater than' : 'greater than or equal to'} ${c.minimum}`)})`;
      lines.push(
        `if (${x} ${op} ${c.minimum}) ${this.report(own, `'minimum', ${path}, ${x}, ${c.minimum}, ${c.exclusiveMinimum === true}`)};`,
      );
    }
    if (c?.maximum !== undefined) {
      const op = c.exclusiveMaximum ? '>=' : '>';
      const own = `e.invalid(${path}, ${x}, ${tsString(`must be ${c.exclusiveMaximum ? 'less than' : 'less than or equal to'} ${c.maximum}`)})`;
      lines.push(
        `if (${x} ${op} ${c.maximum}) ${this.report(own, `'maximum', ${path}, ${x}, ${c.maximum}, ${c.exclusiveMaximum === true}`)};`,
      );
    }
    const enumLine = this.enumLine(c, x, path);
    if (enumLine) lines.push(enumLine);
    if (lines.length === 0) return;
    out.block(`if (typeof ${x} === 'number') {`, () => lines.forEach((l) => out.line(l)));
  }

  /** A format check whose failure is an Invalid value with `message`. */
  private format(test: string, x: string, path: PathCode, message: string, format: string): FormatCheck {
    return { test, report: this.report(`e.invalid(${path}, ${x}, ${tsString(message)})`, `'format', ${path}, ${x}, '${format}'`) };
  }

  private string(out: GeneratedFile, c: Constraints | undefined, x: string, path: PathCode, format?: FormatCheck): void {
    const lines: string[] = [];
    if (format) lines.push(`if (!${format.test}) ${format.report};`);
    // kube-openapi's string checks stop at the first failure: for custom resources, one chain.
    const firstCheck = lines.length;
    if (c?.minLength !== undefined || c?.maxLength !== undefined) {
      const len = `${this.runtime('charLength')}(${x})`;
      if (c.minLength !== undefined) {
        const own = `e.invalid(${path}, ${x}, 'must be at least ${c.minLength} characters long')`;
        lines.push(`if (${len} < ${c.minLength}) ${this.report(own, `'minLength', ${path}, ${x}, ${c.minLength}`)};`);
      }
      if (c.maxLength !== undefined)
        lines.push(
          `if (${len} > ${c.maxLength}) ${this.report(`e.tooLong(${path}, ${x}, ${c.maxLength})`, `'maxLength', ${path}, ${x}, ${c.maxLength}`)};`,
        );
    }
    if (c?.pattern !== undefined) {
      const re = this.constant('pattern', `${this.runtime('lazyRegex')}(${tsString(c.pattern)})`, c.pattern);
      const own = `e.invalid(${path}, ${x}, ${tsString(`must match ${c.pattern}`)})`;
      lines.push(`if (!${re}.test(${x})) ${this.report(own, `'pattern', ${path}, ${x}, ${tsString(c.pattern)}`)};`);
    }
    if (this.openAPI) for (let i = firstCheck + 1; i < lines.length; i++) lines[i] = `else ${lines[i]}`;
    const enumLine = this.enumLine(c, x, path);
    if (enumLine) lines.push(enumLine);
    out.line(`if (typeof ${x} !== 'string') ${this.typeError(path, x, 'string')};`);
    if (lines.length === 0) return;
    out.block('else {', () => lines.forEach((l) => out.line(l)));
  }

  private enumCheck(out: GeneratedFile, c: Constraints | undefined, x: string, path: PathCode): void {
    const line = this.enumLine(c, x, path);
    if (line) out.line(line);
  }

  private enumLine(c: Constraints | undefined, x: string, path: PathCode): string | undefined {
    if (!c?.enum) return undefined;
    const values = c.enum;
    const test =
      values.length <= 4
        ? values.map((v) => `${x} !== ${tsValue(v)}`).join(' && ')
        : `!${this.constant('allowed', `new Set<unknown>(${tsValue(values)})`, JSON.stringify(values))}.has(${x})`;
    return `if (${test}) ${this.report(`e.notSupported(${path}, ${x}, ${tsValue(values)})`, `'enum', ${path}, ${x}, ${tsValue(values)}`)};`;
  }

  private list(out: GeneratedFile, node: Extract<TypeNode, { kind: 'list' }>, x: string, path: PathCode): void {
    out.line(`if (!Array.isArray(${x})) ${this.typeError(path, x, 'array')};`);
    out.block('else {', () => {
      const c = node.constraints;
      if (c?.minItems !== undefined) {
        const own = `e.invalid(${path}, ${x}.length, 'must have at least ${c.minItems} items')`;
        out.line(`if (${x}.length < ${c.minItems}) ${this.report(own, `'minItems', ${path}, ${x}.length, ${c.minItems}`)};`);
      }
      if (c?.maxItems !== undefined)
        out.line(
          `if (${x}.length > ${c.maxItems}) ${this.report(`e.tooMany(${path}, ${x}.length, ${c.maxItems})`, `'maxItems', ${path}, ${x}.length, ${c.maxItems}`)};`,
        );
      if (this.checks(node.items)) {
        const i = this.var('i');
        out.block(`for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {`, () => {
          const y = this.var();
          out.line(`const ${y}: unknown = ${x}[${i}];`);
          this.check(out, node.items, y, path.item(i), false);
        });
      }
      // A list of one item cannot repeat: skip the call for most lists.
      if (node.listType === 'set') out.line(`if (${x}.length > 1) ${this.runtime('checkSetUnique')}(${this.fieldPath(path)}, ${x}, e);`);
      if (node.listType === 'map' && node.listMapKeys) {
        const keys = this.constant(listKeysName(node.listMapKeys), tsValue(node.listMapKeys));
        out.line(`if (${x}.length > 1) ${this.runtime('checkMapKeysUnique')}(${this.fieldPath(path)}, ${x}, ${keys}, e);`);
      }
    });
  }

  private map(out: GeneratedFile, node: Extract<TypeNode, { kind: 'map' }>, x: string, path: PathCode): void {
    const isObject = this.runtime('isObject');
    out.line(`if (!${isObject}(${x})) ${this.typeError(path, x, 'object')};`);
    out.block('else {', () => {
      const c = node.constraints;
      if (c?.minProperties !== undefined || c?.maxProperties !== undefined) {
        const n = this.var();
        out.line(`const ${n} = Object.keys(${x}).length;`);
        if (c.minProperties !== undefined) {
          const own = `e.invalid(${path}, ${n}, 'must have at least ${c.minProperties} entries')`;
          out.line(`if (${n} < ${c.minProperties}) ${this.report(own, `'minProperties', ${path}, ${n}, ${c.minProperties}`)};`);
        }
        if (c.maxProperties !== undefined)
          out.line(
            `if (${n} > ${c.maxProperties}) ${this.report(`e.tooMany(${path}, ${n}, ${c.maxProperties})`, `'maxProperties', ${path}, ${n}, ${c.maxProperties}`)};`,
          );
      }
      if (!this.checks(node.values)) return;
      const k = this.var('k');
      out.block(`for (const ${k} in ${x}) {`, () => {
        const y = this.var();
        out.line(`const ${y}: unknown = ${x}[${k}];`);
        // kube-openapi names a map's value `labels.key`; svckit's own kinds, as Go's field paths, `labels[key]`.
        this.check(out, node.values, y, this.openAPI ? path.member(k) : path.item(k), false);
      });
    });
  }

  /** The path handed to a nested validator or list check: a FieldPath, so no text is built unless it reports. */
  private fieldPath(path: PathCode): string {
    return path.object(this.runtime('FieldPath'));
  }

  /** A named type's exported validator, or a hoisted object's module-private one. */
  private validatorName(d: Declaration): string {
    return d.named ? this.ctx.names(this.gv).validator(d.name) : hoistedValidator(d.name);
  }

  private refValidator(target: TypeId): string {
    const name = this.ctx.names(target).validator(target.name);
    if (target.group === this.gv.group && target.version === this.gv.version) return name;
    return this.file.importValue(name, this.ctx.gvModule(target, 'validate'), gvAliasPrefix(target));
  }

  /** A module-level constant, shared by every use of the same value. */
  private constant(base: string, init: string, key = init): string {
    const existing = this.constantByValue.get(key);
    if (existing) return existing;
    const stem = base.replace(/^[A-Z]/, (s) => s.toLowerCase());
    let name = stem;
    for (let i = 2; this.constantNames.has(name); i++) name = `${stem}${i}`;
    this.constantNames.add(name);
    this.file.top(`const ${name} = ${init};`);
    this.constantByValue.set(key, name);
    return name;
  }

  private var(prefix = 'x'): string {
    return `${prefix}${this.vars++}`;
  }
}

/** A field by name, a list index or map key in brackets, or a map key as a member (`.key`, kube-openapi's spelling). */
type PathStep = { field: string } | { key: string } | { member: string };

/** A format's test of a string `x` and the statement that reports its failure. */
interface FormatCheck {
  test: string;
  report: string;
}

/**
 * A value's path as code: the validator's path parameter `p` and the steps below it, each a field
 * name or the variable holding a list index or map key. As text (`toString`) it is a template
 * literal, evaluated only in an error report; `object` is a FieldPath built without strings.
 */
class PathCode {
  constructor(
    private readonly base: string,
    private readonly steps: readonly PathStep[] = [],
  ) {}

  field(name: string): PathCode {
    return new PathCode(this.base, [...this.steps, { field: name }]);
  }

  item(variable: string): PathCode {
    return new PathCode(this.base, [...this.steps, { key: variable }]);
  }

  member(variable: string): PathCode {
    return new PathCode(this.base, [...this.steps, { member: variable }]);
  }

  toString(): string {
    if (this.steps.length === 0) return this.base;
    const tail = this.steps
      .map((s) => ('field' in s ? `.${s.field.replace(/[`$\\]/g, '\\$&')}` : 'key' in s ? `[\${${s.key}}]` : `.\${${s.member}}`))
      .join('');
    return `\`\${${this.base}}${tail}\``;
  }

  /** `new FieldPath(p, 'ports', i3)`: one object per field step, the index or key folded into it. */
  object(fieldPath: string): string {
    let expr = this.base;
    let field: string | undefined;
    for (const s of this.steps) {
      if ('field' in s) {
        if (field !== undefined) expr = `new ${fieldPath}(${expr}, ${tsString(field)})`;
        field = s.field;
      } else if ('member' in s) {
        if (field !== undefined) expr = `new ${fieldPath}(${expr}, ${tsString(field)})`;
        expr = `new ${fieldPath}(${expr}, ${s.member})`;
        field = undefined;
      } else {
        expr = `new ${fieldPath}(${expr}, ${tsString(field ?? '')}, ${s.key})`;
        field = undefined;
      }
    }
    return field === undefined ? expr : `new ${fieldPath}(${expr}, ${tsString(field)})`;
  }
}

/** `containerPortProtocolKeys`: the constant holding a list-map's key field names. */
/** A declaration that holds its own function: not a repeat, not the alias of another type's. */
export function declaresFunction(d: Declaration): boolean {
  return !d.repeat && d.declaredAs === d.name;
}

/** `validateChallengeSolver`: the module-private validator of a hoisted object. */
function hoistedValidator(name: string): string {
  return `validate${name}`;
}

function listKeysName(keys: readonly string[]): string {
  const name = camelCase(`${keys.join(' ')} keys`);
  return /^[A-Za-z_$]/.test(name) ? name : `keys${name}`;
}
