import { isObject, isZeroDuration } from '../validate/index.js';
import { type Defaulter, copyDefault, hasDefaults, zeroOf } from './default-support.js';
import { IDENTIFIER, sourceFunction } from './source-function.js';
import type { FieldSchema, ObjectSchema, SchemaNode } from './types.js';

const HELPERS = { copyDefault, isObject, isZeroDuration };

/**
 * A defaulter compiled to straight-line JavaScript, as the generated defaulters were: the same steps
 * as the closures of defaulter.ts. As in validator-source.ts, schema content never becomes source
 * text: identifier field names and finite numbers only; defaults, other names and references are
 * elements of the constants array `k`.
 */
export function compileDefaulterSource(root: SchemaNode, refDefaulter: (node: SchemaNode) => Defaulter): Defaulter | undefined {
  const b = new DefaulterSource(refDefaulter);
  const entry = root.type === 'object' && root.fields.length > 0 ? b.objectFunction(root) : b.fn((out) => b.descend(out, root, 'v', true));
  const source = `"use strict";\nconst {${Object.keys(HELPERS).join(', ')}} = rt;\n${b.functions.join('\n')}\nreturn ${entry};`;
  return sourceFunction(['k', 'rt'], source)?.(b.constants, HELPERS) as Defaulter | undefined;
}

class DefaulterSource {
  readonly functions: string[] = [];
  readonly constants: unknown[] = [];
  private readonly names = new Map<SchemaNode, string>();
  private vars = 0;

  constructor(private readonly refDefaulter: (node: SchemaNode) => Defaulter) {}

  private k(value: unknown): string {
    return `k[${this.constants.push(value) - 1}]`;
  }

  fn(body: (out: string[]) => void): string {
    const index = this.functions.push('') - 1; // reserve the slot: nested functions come after
    const out: string[] = [];
    body(out);
    this.functions[index] = `function f${index}(v) {\n${out.join('\n')}\n}`;
    return `f${index}`;
  }

  objectFunction(node: ObjectSchema): string {
    let name = this.names.get(node);
    if (!name) {
      name = `f${this.functions.length}`;
      this.names.set(node, name);
      this.fn((out) => {
        out.push('if (!isObject(v)) return;');
        for (const f of node.fields) this.field(out, f);
      });
    }
    return name;
  }

  private field(out: string[], f: FieldSchema): void {
    const value = f.schema.default;
    const inner = hasDefaults(f.schema);
    if (value === undefined && !inner) return;
    const key = IDENTIFIER.test(f.name) ? `'${f.name}'` : this.k(f.name);
    const target = IDENTIFIER.test(f.name) ? `v.${f.name}` : `v[${key}]`;
    // Reads see only the document's own properties (`toString` is not an inherited function here).
    const read = f.name in Object.prototype ? `(Object.hasOwn(v, ${key}) ? ${target} : undefined)` : target;
    if (value !== undefined) {
      const zero = f.schema.type === 'duration' ? `isZeroDuration(${read})` : `${read} === ${this.literal(zeroOf(value))}`;
      const unset = f.defaultZeroIsUnset ? `${read} === undefined || ${zero}` : `${read} === undefined`;
      // A fresh copy on every call: defaulted objects are never shared between documents.
      const fresh = this.fresh(value) ?? `copyDefault(${this.k(value)})`;
      out.push(`if (${unset}) ${target} = ${fresh};`);
    }
    if (inner) this.descend(out, f.schema, read, false);
  }

  /**
   * A default as an expression building a fresh copy (a literal V8 clones fast), when every key in it
   * is an identifier other than `__proto__`; strings stay in the constants. Otherwise undefined.
   */
  private fresh(value: unknown): string | undefined {
    if (typeof value !== 'object' || value === null) return this.literal(value);
    const parts: string[] = [];
    if (Array.isArray(value)) {
      for (const item of value) {
        const p = this.fresh(item);
        if (p === undefined) return undefined;
        parts.push(p);
      }
      return `[${parts.join(', ')}]`;
    }
    for (const [key, item] of Object.entries(value)) {
      const p = IDENTIFIER.test(key) && key !== '__proto__' ? this.fresh(item) : undefined;
      if (p === undefined) return undefined;
      parts.push(`${key}: ${p}`);
    }
    return `{${parts.join(', ')}}`;
  }

  /** Finite numbers, booleans, null and '' as literals; anything else through the constants. */
  private literal(value: unknown): string {
    if (typeof value === 'number' && Number.isFinite(value)) return `(${String(value)})`;
    if (typeof value === 'boolean' || value === null) return String(value);
    if (value === '') return "''";
    return this.k(value);
  }

  /** Statements that default inside the value of expression `x`. */
  descend(out: string[], node: SchemaNode, x: string, top: boolean): void {
    switch (node.type) {
      case 'ref': {
        // The slot holds a stub until the first call, then the target's defaulter itself.
        const target = node.ref;
        const slot = this.constants.length;
        const stub: Defaulter = (v) => {
          const d = this.refDefaulter(target());
          this.constants[slot] = d;
          d(v);
        };
        out.push(`${this.k(stub)}(${x});`);
        return;
      }
      case 'object':
        if (!top && node.fields.length > 0) out.push(`${this.objectFunction(node)}(${x});`);
        return;
      case 'list': {
        const [list, y] = [this.var(), this.var()];
        out.push(`const ${list} = ${x};`, `if (Array.isArray(${list})) for (const ${y} of ${list}) {`);
        this.descend(out, node.items, y, false);
        out.push('}');
        return;
      }
      case 'map': {
        const [map, y] = [this.var(), this.var()];
        out.push(`const ${map} = ${x};`, `if (isObject(${map})) for (const ${y} of Object.values(${map})) {`);
        this.descend(out, node.values, y, false);
        out.push('}');
        return;
      }
      default:
        return;
    }
  }

  private var(): string {
    return `x${this.vars++}`;
  }
}
