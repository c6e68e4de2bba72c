import * as validate from '../validate/index.js';
import { type Validator, checks } from './checks.js';
import { IDENTIFIER, sourceFunction } from './source-function.js';
import type { ListSchema, MapSchema, ObjectSchema, SchemaNode } from './types.js';

/** The runtime/validate helpers the compiled source calls, taken from its face by name. */
const HELPERS = [
  'FieldPath',
  'base64Error',
  'charLength',
  'checkMapKeysUnique',
  'checkSetUnique',
  'checkValueValidation',
  'isBase64',
  'isDate',
  'isDateTime',
  'isDuration',
  'isObject',
  'isQuantity',
] as const satisfies readonly (keyof typeof validate)[];

/**
 * A validator compiled to straight-line JavaScript, as the generated validators were and as ajv
 * does: the same checks as the closures of validator.ts, about four times faster. Schema content
 * never becomes source text: field names that are plain identifiers are written as property names,
 * numbers as numeric literals of finite values; every other value (names, patterns, enums,
 * messages, references) is an element of the constants array `k`, read by index.
 */
export function compileToSource(
  root: SchemaNode,
  customResource: boolean,
  refValidator: (node: SchemaNode) => Validator,
): Validator | undefined {
  const builder = new SourceBuilder(customResource, refValidator);
  const entry = builder.root(root);
  const source = `"use strict";\nconst {${HELPERS.join(', ')}} = rt;\n${builder.functions.join('\n')}\nreturn ${entry};`;
  return sourceFunction(['k', 'rt'], source)?.(builder.constants, validate) as Validator | undefined;
}

/** A value's path as source: the validator's `p` and steps, each a constant field name or a variable index/key. */
class PathSource {
  constructor(
    private readonly base: string,
    private readonly steps: readonly ({ field: string } | { key: string } | { member: string })[] = [],
  ) {}

  field(constant: string): PathSource {
    return new PathSource(this.base, [...this.steps, { field: constant }]);
  }

  item(variable: string): PathSource {
    return new PathSource(this.base, [...this.steps, { key: variable }]);
  }

  member(variable: string): PathSource {
    return new PathSource(this.base, [...this.steps, { member: variable }]);
  }

  /** An expression building the FieldPath (evaluated only where it is used: reports and nested calls). */
  toString(): string {
    let expr = this.base;
    for (const s of this.steps) {
      if ('field' in s) expr = `new FieldPath(${expr}, ${s.field})`;
      else if ('member' in s) expr = `new FieldPath(${expr}, ${s.member})`;
      else expr = `new FieldPath(${expr}, '', ${s.key})`;
    }
    return expr;
  }
}

class SourceBuilder {
  readonly functions: string[] = [];
  readonly constants: unknown[] = [];
  private readonly constantIndex = new Map<unknown, number>();
  private readonly names = new Map<SchemaNode, string>();
  private vars = 0;

  constructor(
    private readonly openAPI: boolean,
    private readonly refValidator: (node: SchemaNode) => Validator,
  ) {}

  root(node: SchemaNode): string {
    if (node.type === 'object' && node.fields.length > 0) return this.objectFunction(node);
    return this.fn((out) => this.check(out, node, 'v', new PathSource('p'), true));
  }

  /** `k[i]`: a value handed to the source by reference, never printed into it. */
  private k(value: unknown): string {
    let i = this.constantIndex.get(value);
    if (i === undefined) this.constantIndex.set(value, (i = this.constants.push(value) - 1));
    return `k[${i}]`;
  }

  /** A field name as a string literal when it is an identifier, else through the constants. */
  private nameLiteral(name: string): string {
    return IDENTIFIER.test(name) ? `'${name}'` : this.k(name);
  }

  /** A finite number as a literal; anything else through the constants. */
  private num(n: number): string {
    return Number.isFinite(n) ? `(${String(n)})` : this.k(n);
  }

  private fn(body: (out: string[]) => void): string {
    const name = `f${this.functions.length}`;
    this.functions.push(''); // reserve the slot: nested functions come after
    const out: string[] = [];
    body(out);
    this.functions[Number(name.slice(1))] = `function ${name}(v, p, e) {\n${out.join('\n')}\n}`;
    return name;
  }

  private objectFunction(node: ObjectSchema): string {
    const known = this.names.get(node);
    if (known) return known;
    const name = `f${this.functions.length}`;
    this.names.set(node, name);
    this.fn((out) => this.objectBody(out, node));
    return name;
  }

  private report(own: string, openAPI: string): string {
    return this.openAPI ? `e.openAPI(${openAPI})` : own;
  }

  private typeError(path: PathSource | string, x: string, type: string): string {
    return this.report(`e.type(${path}, ${x}, '${type}')`, `'type', ${path}, ${x}, '${type}'`);
  }

  private var(prefix = 'x'): string {
    return `${prefix}${this.vars++}`;
  }

  private objectBody(out: string[], node: ObjectSchema): void {
    out.push(`if (!isObject(v)) { ${this.typeError('p', 'v', 'object')}; return; }`);
    if (!node.preserveUnknown && !node.embeddedResource) {
      // A switch over the names: V8 compares the interned keys by identity.
      const cases = node.fields.map((f) => `case ${this.nameLiteral(f.name)}:`).join(' ');
      out.push(
        node.fields.length === 0
          ? 'for (const key in v) e.unknown(`${p}.${key}`);'
          : `for (const key in v) { switch (key) { ${cases} break; default: e.unknown(\`\${p}.\${key}\`); } }`,
      );
    }
    if (node.valueValidation) out.push(`checkValueValidation(v, p, ${this.k(node.valueValidation)}, e);`);
    const { minProperties: min, maxProperties: max } = node;
    if (min !== undefined || max !== undefined) {
      const n = this.var();
      out.push(`const ${n} = Object.keys(v).length;`);
      if (min !== undefined)
        out.push(
          `if (${n} < ${this.num(min)}) ${this.report(`e.invalid(p, ${n}, ${this.k(`must have at least ${min} properties`)})`, `'minProperties', p, ${n}, ${this.num(min)}`)};`,
        );
      if (max !== undefined)
        out.push(
          `if (${n} > ${this.num(max)}) ${this.report(`e.tooMany(p, ${n}, ${this.num(max)})`, `'maxProperties', p, ${n}, ${this.num(max)}`)};`,
        );
    }
    for (const f of node.fields) {
      const required = f.required === true;
      if (!required && !checks(f.schema)) continue;
      const x = this.var();
      const name = this.nameLiteral(f.name);
      const path = new PathSource('p').field(name);
      const inherited = f.name in Object.prototype;
      const read = inherited
        ? `Object.hasOwn(v, ${name}) ? v[${name}] : undefined`
        : IDENTIFIER.test(f.name)
          ? `v.${f.name}`
          : `v[${name}]`;
      out.push(`const ${x} = ${read};`);
      const absent = f.schema.nullable ? `${x} === undefined` : `${x} === undefined || ${x} === null`;
      if (required) {
        out.push(`if (${absent}) e.required(${path});`);
        if (!checks(f.schema)) continue;
        out.push('else {');
      } else out.push(`if (!(${absent})) {`);
      this.check(out, f.schema, x, path, false);
      out.push('}');
    }
  }

  private check(out: string[], node: SchemaNode, x: string, path: PathSource, top: boolean, nonNull = false): void {
    if (node.nullable && !top && !nonNull) {
      out.push(`if (${x} !== null) {`);
      this.check(out, node, x, path, top, true);
      out.push('}');
      return;
    }
    this.structure(out, node, x, path, top);
    const ownBody = node.type === 'object' && node.fields.length > 0 && !top;
    if (node.valueValidation && !ownBody) out.push(`checkValueValidation(${x}, ${path}, ${this.k(node.valueValidation)}, e);`);
  }

  private structure(out: string[], node: SchemaNode, x: string, path: PathSource, top: boolean): void {
    switch (node.type) {
      case 'ref': {
        // The slot holds a stub until the first call, then the target's validator itself.
        const target = node.ref;
        const slot = this.constants.length;
        const stub: Validator = (v, p, e) => {
          const validate = this.refValidator(target());
          this.constants[slot] = validate;
          validate(v, p, e);
        };
        out.push(`${this.k(stub)}(${x}, ${path}, e);`);
        this.enumCheck(out, node, x, path);
        return;
      }
      case 'object':
        if (node.fields.length > 0 && !top) out.push(`${this.objectFunction(node)}(${x}, ${path}, e);`);
        else out.push(`if (!isObject(${x})) ${this.typeError(path, x, 'object')};`);
        return;
      case 'list':
        return this.list(out, node, x, path);
      case 'map':
        return this.map(out, node, x, path);
      case 'raw':
        return;
      case 'int-or-string':
        out.push(
          `if (typeof ${x} !== 'string' && !Number.isInteger(${x})) ${this.report(`e.type(${path}, ${x}, 'integer or string')`, `'type', ${path}, ${x}, 'integer,string'`)};`,
        );
        return this.enumCheck(out, node, x, path);
      case 'quantity':
        out.push(`if (!isQuantity(${x})) e.invalid(${path}, ${x}, 'must be a quantity such as 1Gi, 500m or 1e3');`);
        return;
      case 'bytes':
        return this.string(out, node, x, path, { test: `isBase64(${x})`, report: `e.undecodable(${path}, base64Error(${x}) ?? '')` });
      case 'date':
        return this.string(out, node, x, path, this.format(`isDate(${x})`, x, path, 'must be a date (YYYY-MM-DD)', 'date'));
      case 'date-time':
        return this.string(out, node, x, path, this.format(`isDateTime(${x})`, x, path, 'must be an RFC 3339 timestamp', 'date-time'));
      case 'duration':
        return this.string(
          out,
          node,
          x,
          path,
          this.format(`isDuration(${x})`, x, path, 'must be a duration such as 30s, 1m30s or 500ms', 'duration'),
        );
      case 'string':
        return this.string(out, node, x, path);
      case 'boolean':
        out.push(`if (typeof ${x} !== 'boolean') ${this.typeError(path, x, 'boolean')};`);
        return this.enumCheck(out, node, x, path);
      case 'integer':
        out.push(`if (typeof ${x} !== 'number' || !Number.isInteger(${x})) ${this.typeError(path, x, 'integer')};`);
        // kube-openapi checks no integer format: a custom resource's int32 field takes any integer.
        if (node.format === 'int32' && !this.openAPI)
          out.push(`else if (${x} < -2147483648 || ${x} > 2147483647) e.invalid(${path}, ${x}, 'out of range for int32');`);
        if (node.format === 'int64') out.push(`else if (!Number.isSafeInteger(${x})) e.invalid(${path}, ${x}, 'out of range for int64');`);
        return this.numberBounds(out, node, x, path);
      default:
        out.push(`if (typeof ${x} !== 'number') ${this.typeError(path, x, 'number')};`);
        return this.numberBounds(out, node, x, path);
    }
  }

  private numberBounds(out: string[], node: SchemaNode, x: string, path: PathSource): void {
    const lines: string[] = [];
    const { minimum: min, maximum: max, exclusiveMinimum: exMin, exclusiveMaximum: exMax } = node;
    if (min !== undefined) {
      const own = `e.invalid(${path}, ${x}, ${this.k(`must be ${exMin ? 'greater than' : 'greater than or equal to'} ${min}`)})`;
      lines.push(
        `if (${x} ${exMin ? '<=' : '<'} ${this.num(min)}) ${this.report(own, `'minimum', ${path}, ${x}, ${this.num(min)}, ${exMin === true}`)};`,
      );
    }
    if (max !== undefined) {
      const own = `e.invalid(${path}, ${x}, ${this.k(`must be ${exMax ? 'less than' : 'less than or equal to'} ${max}`)})`;
      lines.push(
        `if (${x} ${exMax ? '>=' : '>'} ${this.num(max)}) ${this.report(own, `'maximum', ${path}, ${x}, ${this.num(max)}, ${exMax === true}`)};`,
      );
    }
    const enumLine = this.enumLine(node, x, path);
    if (enumLine) lines.push(enumLine);
    if (lines.length > 0) out.push(`if (typeof ${x} === 'number') {`, ...lines, '}');
  }

  private format(test: string, x: string, path: PathSource, message: string, format: string): { test: string; report: string } {
    return { test, report: this.report(`e.invalid(${path}, ${x}, ${this.k(message)})`, `'format', ${path}, ${x}, '${format}'`) };
  }

  private string(out: string[], node: SchemaNode, x: string, path: PathSource, format?: { test: string; report: string }): void {
    const lines: string[] = [];
    if (format) lines.push(`if (!${format.test}) ${format.report};`);
    // kube-openapi's string checks stop at the first failure: for custom resources, one chain.
    const firstCheck = lines.length;
    const { minLength: minLen, maxLength: maxLen, pattern } = node;
    if (minLen !== undefined) {
      const own = `e.invalid(${path}, ${x}, ${this.k(`must be at least ${minLen} characters long`)})`;
      lines.push(`if (charLength(${x}) < ${this.num(minLen)}) ${this.report(own, `'minLength', ${path}, ${x}, ${this.num(minLen)}`)};`);
    }
    if (maxLen !== undefined)
      lines.push(
        `if (charLength(${x}) > ${this.num(maxLen)}) ${this.report(`e.tooLong(${path}, ${x}, ${this.num(maxLen)})`, `'maxLength', ${path}, ${x}, ${this.num(maxLen)}`)};`,
      );
    if (pattern !== undefined) {
      const re = this.k(validate.lazyRegex(pattern));
      const own = `e.invalid(${path}, ${x}, ${this.k(`must match ${pattern}`)})`;
      lines.push(`if (!${re}.test(${x})) ${this.report(own, `'pattern', ${path}, ${x}, ${this.k(pattern)}`)};`);
    }
    if (this.openAPI) for (let i = firstCheck + 1; i < lines.length; i++) lines[i] = `else ${lines[i]}`;
    const enumLine = this.enumLine(node, x, path);
    if (enumLine) lines.push(enumLine);
    out.push(`if (typeof ${x} !== 'string') ${this.typeError(path, x, 'string')};`);
    if (lines.length > 0) out.push('else {', ...lines, '}');
  }

  private enumCheck(out: string[], node: SchemaNode, x: string, path: PathSource): void {
    const line = this.enumLine(node, x, path);
    if (line) out.push(line);
  }

  private enumLine(node: SchemaNode, x: string, path: PathSource): string | undefined {
    const values = node.enum;
    if (!values) return undefined;
    const allowed = this.k(new Set<unknown>(values));
    const list = this.k(values);
    return `if (!${allowed}.has(${x})) ${this.report(`e.notSupported(${path}, ${x}, ${list})`, `'enum', ${path}, ${x}, ${list}`)};`;
  }

  private list(out: string[], node: ListSchema, x: string, path: PathSource): void {
    out.push(`if (!Array.isArray(${x})) ${this.typeError(path, x, 'array')};`, 'else {');
    const { minItems: min, maxItems: max } = node;
    if (min !== undefined) {
      const own = `e.invalid(${path}, ${x}.length, ${this.k(`must have at least ${min} items`)})`;
      out.push(`if (${x}.length < ${this.num(min)}) ${this.report(own, `'minItems', ${path}, ${x}.length, ${this.num(min)}`)};`);
    }
    if (max !== undefined)
      out.push(
        `if (${x}.length > ${this.num(max)}) ${this.report(`e.tooMany(${path}, ${x}.length, ${this.num(max)})`, `'maxItems', ${path}, ${x}.length, ${this.num(max)}`)};`,
      );
    if (checks(node.items)) {
      const i = this.var('i');
      const y = this.var();
      out.push(`for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {`, `const ${y} = ${x}[${i}];`);
      this.check(out, node.items, y, path.item(i), false);
      out.push('}');
    }
    // A list of one item cannot repeat: skip the call for most lists.
    if (node.listType === 'set') out.push(`if (${x}.length > 1) checkSetUnique(${path}, ${x}, e);`);
    if (node.listType === 'map' && node.listMapKeys)
      out.push(`if (${x}.length > 1) checkMapKeysUnique(${path}, ${x}, ${this.k(node.listMapKeys)}, e);`);
    out.push('}');
  }

  private map(out: string[], node: MapSchema, x: string, path: PathSource): void {
    out.push(`if (!isObject(${x})) ${this.typeError(path, x, 'object')};`, 'else {');
    const { minProperties: min, maxProperties: max } = node;
    if (min !== undefined || max !== undefined) {
      const n = this.var();
      out.push(`const ${n} = Object.keys(${x}).length;`);
      if (min !== undefined) {
        const own = `e.invalid(${path}, ${n}, ${this.k(`must have at least ${min} entries`)})`;
        out.push(`if (${n} < ${this.num(min)}) ${this.report(own, `'minProperties', ${path}, ${n}, ${this.num(min)}`)};`);
      }
      if (max !== undefined)
        out.push(
          `if (${n} > ${this.num(max)}) ${this.report(`e.tooMany(${path}, ${n}, ${this.num(max)})`, `'maxProperties', ${path}, ${n}, ${this.num(max)}`)};`,
        );
    }
    if (checks(node.values)) {
      const key = this.var('k');
      const y = this.var();
      out.push(`for (const ${key} in ${x}) {`, `const ${y} = ${x}[${key}];`);
      // kube-openapi names a map's value `labels.key`; svckit's own kinds, as Go's field paths, `labels[key]`.
      this.check(out, node.values, y, this.openAPI ? path.member(key) : path.item(key), false);
      out.push('}');
    }
    out.push('}');
  }
}
